//! The `<pid>_results.json` files of one export, written together as records stream by.
//!
//! Every file has the same sections in the same order (rocprofv3's layout), so all of them
//! move through the sections in step: a key or a bracket is written to every file at once,
//! and a record to its process's file only. Nothing is held but each file's write buffer.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use rocprof_rs_format::publish::OutputFile;
use serde::Serialize;

use crate::error::{Error, Result};

/// One process's file.
#[derive(Debug)]
struct Out {
    file: OutputFile,
    /// Whether the array open in this file has no element yet.
    empty: bool,
    records: u64,
}

/// Every process's file.
#[derive(Debug)]
pub(super) struct Outputs {
    files: BTreeMap<u32, Out>,
    /// Per open object, innermost last: whether it has no key yet (the same in every file).
    keyless: Vec<bool>,
}

fn io(path: &Path, source: std::io::Error) -> Error {
    Error::Io { path: path.display().to_string(), source }
}

impl Outputs {
    /// Opens `<pid>_results.json` in `dir` for each of `pids`, inside the object of its
    /// process: `{"rocprofiler-sdk-tool":[{`.
    pub fn create(dir: &Path, pids: impl IntoIterator<Item = u32>) -> Result<Outputs> {
        let mut files = BTreeMap::new();
        for pid in pids {
            let path = dir.join(format!("{pid}_results.json"));
            let mut file = OutputFile::create(&path).map_err(|source| io(&path, source))?;
            file.write_all(b"{\"rocprofiler-sdk-tool\":[{").map_err(|source| io(&path, source))?;
            files.insert(pid, Out { file, empty: true, records: 0 });
        }
        Ok(Outputs { files, keyless: vec![true] })
    }

    pub fn pids(&self) -> impl Iterator<Item = u32> + '_ {
        self.files.keys().copied()
    }

    /// Writes `text` to every file.
    fn all(&mut self, text: &str) -> Result<()> {
        for out in self.files.values_mut() {
            out.file.write_all(text.as_bytes()).map_err(|source| io(out.file.target(), source))?;
        }
        Ok(())
    }

    /// `"name":`, after a comma where the object already has a key.
    fn key(&mut self, name: &str) -> Result<()> {
        let first = self.keyless.last_mut().map(|k| std::mem::replace(k, false)).unwrap_or(true);
        let comma = if first { "" } else { "," };
        self.all(&format!("{comma}\"{name}\":"))
    }

    /// Opens object `name` in every file.
    pub fn begin_object(&mut self, name: &str) -> Result<()> {
        self.key(name)?;
        self.keyless.push(true);
        self.all("{")
    }

    pub fn end_object(&mut self) -> Result<()> {
        self.keyless.pop();
        self.all("}")
    }

    /// Opens array `name` in every file; [`Outputs::item`] adds to it.
    pub fn begin_array(&mut self, name: &str) -> Result<()> {
        self.key(name)?;
        for out in self.files.values_mut() {
            out.empty = true;
        }
        self.all("[")
    }

    pub fn end_array(&mut self) -> Result<()> {
        self.all("]")
    }

    /// `"name":[]` in every file: a section the dataset has nothing for.
    pub fn empty_array(&mut self, name: &str) -> Result<()> {
        self.begin_array(name)?;
        self.end_array()
    }

    /// The value of `name` in every file, each process's its own.
    pub fn value<T: Serialize>(&mut self, name: &str, mut of: impl FnMut(u32) -> T) -> Result<()> {
        self.key(name)?;
        for (&pid, out) in self.files.iter_mut() {
            serde_json::to_writer(&mut out.file, &of(pid)).map_err(|e| io(out.file.target(), e.into()))?;
        }
        Ok(())
    }

    /// Adds `value` to the open array of process `pid`'s file; `record` counts it as a record
    /// in the export's report.
    pub fn item<T: Serialize>(&mut self, pid: u32, value: &T, record: bool) -> Result<()> {
        let out = self.files.get_mut(&pid).ok_or_else(|| {
            Error::Invalid(format!("rocprofv3 JSON export: process {pid} has rows but was not counted"))
        })?;
        if !std::mem::replace(&mut out.empty, false) {
            out.file.write_all(b",").map_err(|source| io(out.file.target(), source))?;
        }
        serde_json::to_writer(&mut out.file, value).map_err(|e| io(out.file.target(), e.into()))?;
        out.records += u64::from(record);
        Ok(())
    }

    /// Closes every file's objects, completes them all, then renames each into place: an
    /// export that fails leaves none. Returns each file's name and records.
    pub fn finish(mut self) -> Result<Vec<(String, u64)>> {
        self.all("}]}")?;
        for out in self.files.values_mut() {
            out.file.complete().map_err(|source| io(out.file.target(), source))?;
        }
        let mut written = Vec::new();
        for (pid, out) in self.files {
            let path = out.file.target().to_path_buf();
            out.file.commit().map_err(|source| io(&path, source))?;
            written.push((format!("{pid}_results.json"), out.records));
        }
        Ok(written)
    }
}
