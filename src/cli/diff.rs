//! `rocprof-rs diff A B`: which kernels got slower or faster between two runs, and how sure
//! that is; exits 1 when any regressed, for CI.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use rocprof_rs_analysis::analyze::diff::{self, KernelDiff, Options, Report, Verdict};
use rocprof_rs_analysis::terminal::TABLE_ROWS;
use rocprof_rs_analysis::units::human_ns;

use super::listing::Format;

/// The options of `rocprof-rs diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The baseline dataset.
    a: PathBuf,
    /// The dataset to compare with it.
    b: PathBuf,
    /// A kernel changed when its median moved by more than this: `2%` or `0.02`.
    #[arg(long, default_value = "2%", value_parser = parse_share)]
    threshold: f64,
    /// The confidence the rank test must reach for a change to count (0.99: p < 0.01).
    #[arg(long, default_value_t = 0.99)]
    confidence: f64,
    /// Only this process in both.
    #[arg(long)]
    pid: Option<u32>,
    /// table, csv or json.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Cut names to this many characters in the table.
    #[arg(long, default_value_t = 60)]
    width: usize,
    /// Memory for the external sorts that keep diff within bounds on any number of kernels
    /// (bytes, or with K, M or G; at least 4K). Beyond it, summaries go to temporary files under
    /// TMPDIR and are merged; the output is the same.
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = rocprof_rs_analysis::spill::parse_size)]
    memory: usize,
}

/// A `--threshold` that is not a share.
#[derive(Debug, PartialEq, thiserror::Error)]
enum ShareError {
    #[error("{0:?} is not a share: write 2% or 0.02")]
    NotANumber(String),
    #[error("{0:?}: the threshold must be between 0% and 100%")]
    OutOfRange(String),
}

/// `2%`, `0.02`, or `2` (a bare number of 1 or more is a percentage).
fn parse_share(text: &str) -> Result<f64, ShareError> {
    let (number, percent) = match text.trim().strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (text.trim(), false),
    };
    let value: f64 = number.parse().map_err(|_| ShareError::NotANumber(text.to_owned()))?;
    let share = if percent || value >= 1.0 { value / 100.0 } else { value };
    if !(0.0..1.0).contains(&share) {
        return Err(ShareError::OutOfRange(text.to_owned()));
    }
    Ok(share)
}

/// Runs `diff`: exit 0 when nothing regressed, 1 when something did, 2 on an error.
pub fn diff(args: DiffArgs) -> ExitCode {
    rocprof_rs_analysis::spill::set_memory(args.memory);
    let read = |dir: &Path| diff::read_run(dir, args.pid);
    let (a, b) = match read(&args.a).and_then(|a| Ok((a, read(&args.b)?))) {
        Ok(runs) => runs,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::from(2);
        }
    };
    if !(0.0..1.0).contains(&args.confidence) {
        eprintln!("rocprof-rs: --confidence {}: expected a probability below 1, such as 0.99", args.confidence);
        return ExitCode::from(2);
    }
    let options = Options { threshold: args.threshold, confidence: args.confidence };
    let report = match diff::compare(&a, &b, options) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::from(2);
        }
    };
    drop((a, b));
    if args.format == Format::Csv {
        report.notes.iter().for_each(|note| eprintln!("rocprof-rs: note: {note}"));
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match args.format {
        Format::Json => {
            let body = super::bodies::DiffBody { baseline: args.a.display().to_string(), report: &report };
            super::envelope::Output::Diff.write(Some(&args.b), body, &mut out)
        }
        Format::Csv => csv(&report, &mut out),
        // Names reach the terminal escaped (JSON and CSV keep their exact text).
        Format::Table => {
            let mut escaped = rocprof_rs_analysis::terminal::Escaped::new(&mut out);
            table(&report, args.width, &mut escaped).and_then(|()| escaped.flush())
        }
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        eprintln!("rocprof-rs: standard output: {e}");
        return ExitCode::from(2);
    }
    if report.regressions() > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

fn change_text(k: &KernelDiff) -> String {
    k.change.map_or_else(|| "-".to_owned(), |c| format!("{:+.1}%", 100.0 * c))
}

fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Regressed => "REGRESSED",
        Verdict::Improved => "improved",
        Verdict::Unchanged => "unchanged",
        Verdict::New => "new",
        Verdict::Missing => "missing",
    }
}

/// The kernels as terminal tables of [`TABLE_ROWS`] rows each (one for an ordinary run), so a
/// million kernels print in bounded memory, then the totals.
fn table(report: &Report, width: usize, out: &mut impl Write) -> std::io::Result<()> {
    let mut chunk: Vec<Vec<Cell>> = Vec::new();
    report.kernels.for_each(|k| {
        chunk.push(row_cells(&k, width));
        if chunk.len() == TABLE_ROWS {
            print_table(std::mem::take(&mut chunk), out)?;
        }
        Ok::<bool, std::io::Error>(true)
    })?;
    if !chunk.is_empty() || report.kernels.is_empty() {
        print_table(chunk, out)?;
    }
    let total = report.total_b_ns as f64 / (report.total_a_ns as f64).max(1.0) - 1.0;
    writeln!(
        out,
        "GPU kernel time {} → {} ({:+.1}%); {} regressed beyond {:.1}% at {:.1}% confidence",
        human_ns(report.total_a_ns as f64),
        human_ns(report.total_b_ns as f64),
        100.0 * total,
        report.regressions(),
        100.0 * report.threshold,
        100.0 * report.confidence
    )?;
    for note in &report.notes {
        writeln!(out, "note: {note}")?;
    }
    Ok(())
}

fn row_cells(k: &KernelDiff, width: usize) -> Vec<Cell> {
    let name = rocprof_rs_analysis::terminal::cell(&k.name, width);
    let median = |calls: u64, ns: u64| if calls == 0 { "-".to_owned() } else { human_ns(ns as f64) };
    vec![
        Cell::new(name),
        Cell::new(verdict_text(k.verdict)),
        Cell::new(change_text(k)),
        Cell::new(k.confidence.map_or_else(|| "-".to_owned(), |c| format!("{:.1}%", 100.0 * c))),
        Cell::new(median(k.calls_a, k.median_a_ns)),
        Cell::new(median(k.calls_b, k.median_b_ns)),
        Cell::new(k.calls_a),
        Cell::new(k.calls_b),
    ]
}

fn print_table(rows: Vec<Vec<Cell>>, out: &mut impl Write) -> std::io::Result<()> {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    table.set_header(["kernel", "verdict", "change", "confidence", "median A", "median B", "calls A", "calls B"]);
    for row in rows {
        table.add_row(row);
    }
    for column in 2..8 {
        if let Some(c) = table.column_mut(column) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(out, "{table}")
}

fn csv(report: &Report, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "Kernel_Name,Verdict,Change,Confidence,Median_A_ns,Median_B_ns,Calls_A,Calls_B,Total_A_ns,Total_B_ns"
    )?;
    report.kernels.for_each(|k| {
        let opt = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.6}"));
        writeln!(
            out,
            "\"{}\",{},{},{},{},{},{},{},{},{}",
            k.name.replace('"', "\"\""),
            verdict_text(k.verdict),
            opt(k.change),
            opt(k.confidence),
            k.median_a_ns,
            k.median_b_ns,
            k.calls_a,
            k.calls_b,
            k.total_a_ns,
            k.total_b_ns
        )?;
        Ok::<bool, std::io::Error>(true)
    })
}

#[cfg(test)]
mod tests {
    use super::parse_share;

    #[test]
    fn thresholds_read_as_shares() {
        assert_eq!(parse_share("2%"), Ok(0.02));
        assert_eq!(parse_share("0.05"), Ok(0.05));
        assert_eq!(parse_share("5"), Ok(0.05));
        assert!(parse_share("150%").is_err());
        assert!(parse_share("abc").unwrap_err().to_string().contains("2% or 0.02"));
    }
}
