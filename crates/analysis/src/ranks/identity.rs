//! Who a row belongs to: its rank, or its process where no launcher gave one, and the host that
//! process ran on.
//!
//! Every rank met while reading gets a small index, which the sort keys carry instead of the
//! rank's name; the names and their order are worked out once, when reading is done.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::Path;
use std::sync::Mutex;

use rocprof_rs_format::keys;
use serde_json::Value;

/// A rank of the job, as the contract identifies one: by the `rank` column, and where that is
/// null, by its process (host and pid; by pid alone where the host is unknown too).
///
/// Ranks sort by number first, then processes by host (unknown first) and pid: the order of
/// every table, and the tie-break wherever two ranks have the same figure.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RankId {
    /// The `rank` column's value.
    Rank(i32),
    /// A process with no rank.
    Process {
        /// Its host, where the rows or the metadata name it.
        host: Option<String>,
        /// Its process id.
        pid: u32,
    },
}

impl std::fmt::Display for RankId {
    /// `3` for rank 3; `node1:4242` for a process with no rank; `pid:4242` where the host is
    /// unknown too.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RankId::Rank(rank) => write!(f, "{rank}"),
            RankId::Process { host: Some(host), pid } => write!(f, "{host}:{pid}"),
            RankId::Process { host: None, pid } => write!(f, "pid:{pid}"),
        }
    }
}

/// What is known of one rank.
#[derive(Debug, Clone)]
pub struct RankInfo {
    pub id: RankId,
    /// Its host: the first in name order where its rows name several.
    pub host: Option<String>,
    /// Its process: the lowest pid where several wrote rows as this rank (forked children).
    pub pid: u32,
}

/// What a row says of where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Who {
    rank: Option<i32>,
    host: Option<String>,
    pid: u32,
}

#[derive(Debug, Default)]
struct Inner {
    by_who: HashMap<Who, u32>,
    by_id: HashMap<RankId, u32>,
    info: Vec<RankInfo>,
}

/// Every rank met so far, shared by the reading threads.
#[derive(Debug, Default)]
pub struct Ranks(Mutex<Inner>);

impl Ranks {
    /// The index of the rank a row of (`rank`, `host`, `pid`) belongs to. Readers call it once
    /// per run of rows from one process, not per row.
    pub fn index(&self, rank: Option<i32>, host: Option<&str>, pid: u32) -> u32 {
        let who = Who { rank, host: host.map(str::to_owned), pid };
        let mut inner = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&index) = inner.by_who.get(&who) {
            return index;
        }
        let id = match rank {
            Some(rank) => RankId::Rank(rank),
            None => RankId::Process { host: who.host.clone(), pid },
        };
        let index = match inner.by_id.get(&id) {
            Some(&index) => {
                let info = &mut inner.info[index as usize];
                info.pid = info.pid.min(pid);
                if who.host.is_some() && (info.host.is_none() || who.host < info.host) {
                    info.host.clone_from(&who.host);
                }
                index
            }
            None => {
                let index = inner.info.len() as u32;
                inner.info.push(RankInfo { id: id.clone(), host: who.host.clone(), pid });
                inner.by_id.insert(id, index);
                index
            }
        };
        inner.by_who.insert(who, index);
        index
    }

    /// What is known of rank `index` so far.
    pub fn info(&self, index: u32) -> RankInfo {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).info[index as usize].clone()
    }

    /// The index here of a rank met by another [`Ranks`].
    pub fn adopt(&self, info: &RankInfo) -> u32 {
        let rank = match info.id {
            RankId::Rank(rank) => Some(rank),
            RankId::Process { .. } => None,
        };
        self.index(rank, info.host.as_deref(), info.pid)
    }

    /// The ranks met so far, with their order.
    pub fn table(&self) -> RankTable {
        let inner = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let info = inner.info.clone();
        let mut sorted: Vec<u32> = (0..info.len() as u32).collect();
        sorted.sort_by(|&a, &b| info[a as usize].id.cmp(&info[b as usize].id));
        let mut order = vec![0; info.len()];
        for (position, &index) in sorted.iter().enumerate() {
            order[index as usize] = position as u32;
        }
        RankTable { info, sorted, order }
    }
}

/// The ranks once reading is done: by index, and in order.
#[derive(Debug, Clone, Default)]
pub struct RankTable {
    /// By index.
    pub info: Vec<RankInfo>,
    /// Indices in rank order.
    pub sorted: Vec<u32>,
    /// Each index's position in rank order.
    pub order: Vec<u32>,
}

impl RankTable {
    /// How many ranks.
    pub fn len(&self) -> usize {
        self.info.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.info.is_empty()
    }

    /// The rank of index `index`.
    pub fn id(&self, index: u32) -> &RankId {
        &self.info[index as usize].id
    }

    /// Whether rank `a` comes before rank `b`: the tie-break between equal figures.
    pub fn before(&self, a: u32, b: u32) -> bool {
        self.order[a as usize] < self.order[b as usize]
    }
}

/// The hosts the metadata files name, for rows whose files have no `host` column (formats 1
/// and 2): by the files' stem (`<stem>.metadata.json` beside `<table>/<stem>-NNNNN.parquet`),
/// else by pid where one metadata file alone has it.
#[derive(Debug, Default)]
pub struct Hosts {
    by_stem: HashMap<String, String>,
    by_pid: HashMap<u32, Option<String>>,
}

impl Hosts {
    /// The hosts named by the metadata files in `dir`. A file that cannot be read or parsed
    /// names none, as `stats` skips it: the rows then count by pid.
    pub fn read(dir: &Path) -> Hosts {
        let mut hosts = Hosts::default();
        let Ok(entries) = std::fs::read_dir(dir) else { return hosts };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(keys::METADATA_FILE_SUFFIX) else { continue };
            let Some(meta) = rocprof_rs_format::input::read_bytes(&entry.path(), rocprof_rs_format::input::JSON_LIMIT)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            else {
                continue;
            };
            let host = meta.get(keys::HOST).and_then(Value::as_str).filter(|h| !h.is_empty()).map(str::to_owned);
            if let Some(host) = &host {
                hosts.by_stem.insert(stem.to_owned(), host.clone());
            }
            let pid = meta.get(keys::PID).and_then(Value::as_str).and_then(|p| p.parse::<u32>().ok());
            if let Some(pid) = pid {
                // Two hosts' processes of one pid: the pid alone names neither.
                match hosts.by_pid.entry(pid) {
                    Entry::Vacant(slot) => {
                        slot.insert(host);
                    }
                    Entry::Occupied(mut slot) if *slot.get() != host => {
                        slot.insert(None);
                    }
                    Entry::Occupied(_) => {}
                }
            }
        }
        hosts
    }

    /// The host of the process that wrote `file`, by the file's stem.
    pub fn of_file(&self, file: &Path) -> Option<&str> {
        let name = file.file_name()?.to_str()?.strip_suffix(".parquet")?;
        let (stem, sequence) = name.rsplit_once('-')?;
        if sequence.is_empty() || !sequence.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        self.by_stem.get(stem).map(String::as_str)
    }

    /// The host of process `pid`, where one metadata file alone has that pid.
    pub fn of_pid(&self, pid: u32) -> Option<&str> {
        self.by_pid.get(&pid)?.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_come_first_then_processes_by_host_and_pid() {
        let ranks = Ranks::default();
        let b = ranks.index(None, Some("b"), 1);
        let a = ranks.index(None, Some("a"), 9);
        let seven = ranks.index(Some(7), Some("x"), 5);
        let two = ranks.index(Some(2), Some("y"), 6);
        let unknown = ranks.index(None, None, 3);
        // A forked child of rank 7, on the same host: the same rank, its parent's pid kept.
        assert_eq!(ranks.index(Some(7), Some("x"), 50), seven);
        let table = ranks.table();
        let names: Vec<String> = table.sorted.iter().map(|&i| table.id(i).to_string()).collect();
        assert_eq!(names, ["2", "7", "pid:3", "a:9", "b:1"]);
        assert!(table.before(two, seven) && table.before(seven, unknown) && table.before(a, b));
        assert_eq!(table.info[seven as usize].pid, 5);
    }

    #[test]
    fn hosts_by_stem_and_by_pid_where_one_file_has_it() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-ranks-hosts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let meta = |stem: &str, host: Option<&str>, pid: u32| {
            let mut object = serde_json::json!({ keys::PID: pid.to_string() });
            if let Some(host) = host {
                object[keys::HOST] = Value::from(host);
            }
            std::fs::write(dir.join(keys::metadata_file_name(stem)), object.to_string()).unwrap();
        };
        meta("n1-10", Some("n1"), 10);
        meta("n2-10", Some("n2"), 10);
        meta("n1-11", Some("n1"), 11);
        meta("old-12", None, 12);
        let hosts = Hosts::read(&dir);
        assert_eq!(hosts.of_file(Path::new("kernel_dispatch/n2-10-00003.parquet")), Some("n2"));
        assert_eq!(hosts.of_file(Path::new("kernel_dispatch/n2-10.parquet")), None);
        assert_eq!(hosts.of_pid(11), Some("n1"));
        assert_eq!(hosts.of_pid(10), None, "two hosts have a pid 10");
        assert_eq!(hosts.of_pid(12), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
