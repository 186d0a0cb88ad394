//! The ground-truth CSV: one row per record the simulated SDK emits, and the comparison tests
//! run between it and what a tool received.
//!
//! The driver writes rows from what it asked the runtime to do plus the ids and timestamps the
//! simulator returned to it, never from records. A test tool writes the same schema from the
//! records and callbacks it received. Equal multisets of rows mean the tool got exactly the truth.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The columns, in order.
pub const HEADER: &str = "record,thread_id,correlation_id,ancestor_id,operation,agent_id,queue_id,object_id,kernel_id,dispatch_id,start_ns,end_ns,grid_x,grid_y,grid_z,workgroup_x,workgroup_y,workgroup_z,lds_bytes,scratch_bytes,bytes,src_agent_id,dst_agent_id,src_address,dst_address,value,name";

/// The first line of every file the simulator or its tools write.
pub fn banner_line() -> String {
    format!("# {}\n", crate::SIMULATED_BANNER)
}

/// One row; unset fields are empty cells.
#[derive(Debug, Default, Clone)]
pub struct Row<'a> {
    pub record: &'a str,
    pub thread_id: Option<u64>,
    pub correlation_id: Option<u64>,
    pub ancestor_id: Option<u64>,
    pub operation: Option<&'a str>,
    pub agent_id: Option<u64>,
    pub queue_id: Option<u64>,
    pub object_id: Option<u64>,
    pub kernel_id: Option<u64>,
    pub dispatch_id: Option<u64>,
    pub start_ns: Option<u64>,
    pub end_ns: Option<u64>,
    pub grid: Option<[u32; 3]>,
    pub workgroup: Option<[u32; 3]>,
    pub lds_bytes: Option<u64>,
    pub scratch_bytes: Option<u64>,
    pub bytes: Option<u64>,
    pub src_agent_id: Option<u64>,
    pub dst_agent_id: Option<u64>,
    pub src_address: Option<u64>,
    pub dst_address: Option<u64>,
    pub value: Option<f64>,
    pub name: Option<&'a str>,
}

impl Row<'_> {
    /// Appends the row and a newline to `out`.
    pub fn write_to(&self, out: &mut String) {
        fn num(out: &mut String, v: Option<u64>) {
            out.push(',');
            if let Some(v) = v {
                let _ = write!(out, "{v}");
            }
        }
        out.push_str(self.record);
        num(out, self.thread_id);
        num(out, self.correlation_id);
        num(out, self.ancestor_id);
        out.push(',');
        out.push_str(self.operation.unwrap_or(""));
        num(out, self.agent_id);
        num(out, self.queue_id);
        num(out, self.object_id);
        num(out, self.kernel_id);
        num(out, self.dispatch_id);
        num(out, self.start_ns);
        num(out, self.end_ns);
        for dims in [self.grid, self.workgroup] {
            for i in 0..3 {
                num(out, dims.map(|d| u64::from(d[i])));
            }
        }
        num(out, self.lds_bytes);
        num(out, self.scratch_bytes);
        num(out, self.bytes);
        num(out, self.src_agent_id);
        num(out, self.dst_agent_id);
        num(out, self.src_address);
        num(out, self.dst_address);
        out.push(',');
        if let Some(v) = self.value {
            let _ = write!(out, "{v}");
        }
        out.push(',');
        if let Some(name) = self.name {
            if name.contains([',', '"', '\n']) {
                out.push('"');
                out.push_str(&name.replace('"', "\"\""));
                out.push('"');
            } else {
                out.push_str(name);
            }
        }
        out.push('\n');
    }
}

/// Rows per record type, and the rows only one side has.
#[derive(Debug, Default)]
pub struct Comparison {
    pub truth_rows: HashMap<String, u64>,
    pub received_rows: HashMap<String, u64>,
    /// Up to 20 rows of the truth that were not received.
    pub missing: Vec<String>,
    /// Up to 20 received rows that are not in the truth.
    pub unexpected: Vec<String>,
    pub missing_count: u64,
    pub unexpected_count: u64,
}

impl Comparison {
    pub fn is_exact(&self) -> bool {
        self.missing_count == 0 && self.unexpected_count == 0
    }

    /// A report fit for a test failure.
    pub fn report(&self) -> String {
        let mut text = format!(
            "{} truth rows not received, {} received rows not in the truth\nper record (truth / received):\n",
            self.missing_count, self.unexpected_count
        );
        let mut kinds: Vec<&String> = self.truth_rows.keys().chain(self.received_rows.keys()).collect();
        kinds.sort();
        kinds.dedup();
        for kind in kinds {
            let _ = writeln!(
                text,
                "  {kind}: {} / {}",
                self.truth_rows.get(kind).unwrap_or(&0),
                self.received_rows.get(kind).unwrap_or(&0)
            );
        }
        for row in &self.missing {
            let _ = writeln!(text, "  missing:    {row}");
        }
        for row in &self.unexpected {
            let _ = writeln!(text, "  unexpected: {row}");
        }
        text
    }
}

fn row_hash(line: &str) -> u128 {
    let mut a = std::collections::hash_map::DefaultHasher::new();
    line.hash(&mut a);
    let mut b = std::collections::hash_map::DefaultHasher::new();
    0x5eed_u32.hash(&mut b);
    line.hash(&mut b);
    (u128::from(a.finish()) << 64) | u128::from(b.finish())
}

fn for_each_row(path: &Path, mut f: impl FnMut(&str)) -> std::io::Result<()> {
    let reader = BufReader::with_capacity(1 << 20, File::open(path)?);
    for line in reader.lines() {
        let line = line?;
        if line.starts_with('#') || line == HEADER || line == crate::pc_truth::PC_HEADER || line.is_empty() {
            continue;
        }
        f(&line);
    }
    Ok(())
}

fn hashes(path: &Path, counts: &mut HashMap<String, u64>) -> std::io::Result<Vec<u128>> {
    let mut out = Vec::new();
    for_each_row(path, |line| {
        let kind = line.split(',').next().unwrap_or("");
        match counts.get_mut(kind) {
            Some(n) => *n += 1,
            None => {
                counts.insert(kind.to_owned(), 1);
            }
        }
        out.push(row_hash(line));
    })?;
    out.sort_unstable();
    Ok(out)
}

/// Compares two files of rows as multisets, ignoring comments and headers.
pub fn compare(truth: &Path, received: &Path) -> std::io::Result<Comparison> {
    let mut cmp = Comparison::default();
    let t = hashes(truth, &mut cmp.truth_rows)?;
    let r = hashes(received, &mut cmp.received_rows)?;
    let (mut i, mut j) = (0, 0);
    let mut only_t = std::collections::HashSet::new();
    let mut only_r = std::collections::HashSet::new();
    while i < t.len() || j < r.len() {
        match (t.get(i), r.get(j)) {
            (Some(a), Some(b)) if a == b => {
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a < b => {
                only_t.insert(*a);
                cmp.missing_count += 1;
                i += 1;
            }
            (Some(a), None) => {
                only_t.insert(*a);
                cmp.missing_count += 1;
                i += 1;
            }
            (_, Some(b)) => {
                only_r.insert(*b);
                cmp.unexpected_count += 1;
                j += 1;
            }
            (None, None) => break,
        }
    }
    if !cmp.is_exact() {
        for_each_row(truth, |line| {
            if cmp.missing.len() < 20 && only_t.contains(&row_hash(line)) {
                cmp.missing.push(line.to_owned());
            }
        })?;
        for_each_row(received, |line| {
            if cmp.unexpected.len() < 20 && only_r.contains(&row_hash(line)) {
                cmp.unexpected.push(line.to_owned());
            }
        })?;
    }
    Ok(cmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_quote_names_with_commas() {
        let mut s = String::new();
        Row { record: "kernel_symbol", kernel_id: Some(3), name: Some("f(int, float)"), ..Row::default() }
            .write_to(&mut s);
        assert!(s.starts_with("kernel_symbol,,,,,,,,3,"));
        assert!(s.ends_with(",\"f(int, float)\"\n"));
        assert_eq!(s.matches(',').count(), HEADER.matches(',').count() + 1);
    }

    #[test]
    fn comparison_counts_duplicates_and_differences() {
        let dir = std::env::temp_dir().join(format!("rocprof-sim-truth-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
        std::fs::write(&a, format!("{}{HEADER}\nx,1\nx,1\ny,2\n", banner_line())).unwrap();
        std::fs::write(&b, "y,2\nx,1\n").unwrap();
        let cmp = compare(&a, &b).unwrap();
        assert_eq!((cmp.missing_count, cmp.unexpected_count), (1, 0), "{}", cmp.report());
        std::fs::write(&b, "y,2\nx,1\nx,1\n").unwrap();
        assert!(compare(&a, &b).unwrap().is_exact());
        std::fs::write(&b, "y,2\nx,1\nx,9\n").unwrap();
        let cmp = compare(&a, &b).unwrap();
        assert_eq!((cmp.missing_count, cmp.unexpected_count), (1, 1));
        assert_eq!(cmp.unexpected, vec!["x,9".to_owned()]);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
