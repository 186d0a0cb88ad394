//! What the user asks for: counter names (`ROCPROF_RS_PMC`), a rocprof-style input file with
//! one pass per `pmc:` line (`ROCPROF_RS_PMC_FILE`), or a preset (`ROCPROF_RS_COUNTER_PRESET`),
//! and how passes are taken.
//!
//! Parsing checks only the form; whether each name exists is a question for the agents, asked
//! during initialize ([`crate::counters::plan`]).

use std::collections::BTreeMap;
use std::path::Path;

use super::{COUNTER_INSTANCES, COUNTER_PASS, COUNTER_PASSES, COUNTER_PRESET, PMC, PMC_FILE, Variable, accepts};
use crate::counters::presets;
use crate::counters::selection::{PassMode, Selection};
use crate::error::{Error, Result};

/// A counter request.
#[derive(Debug, Clone)]
pub struct CounterRequest {
    pub selection: Selection,
    /// Keep one value per hardware instance instead of their sum.
    pub per_instance: bool,
    pub mode: PassMode,
    /// In [`PassMode::Application`], the pass this run takes (0-based).
    pub pass: usize,
}

impl CounterRequest {
    /// The request in `env`, or `None` if no counters are asked for.
    pub fn from_env(env: &BTreeMap<String, String>) -> Result<Option<CounterRequest>> {
        let set = |name: &str| env.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
        let given: Vec<&str> = [PMC, PMC_FILE, COUNTER_PRESET].into_iter().filter(|v| set(v).is_some()).collect();
        if given.len() > 1 {
            return Err(Error::Counters(format!(
                "{} are all set: choose one of {PMC}, {PMC_FILE} and {COUNTER_PRESET}",
                given.join(" and ")
            )));
        }
        // How passes are taken is checked whether or not counters are asked for: a bad value
        // is refused the same either way.
        let mode = match set(COUNTER_PASSES).unwrap_or("rotate") {
            "rotate" => PassMode::Rotate,
            "application" => PassMode::Application,
            other => return Err(invalid(COUNTER_PASSES, other, accepts(COUNTER_PASSES).into())),
        };
        let pass = match set(COUNTER_PASS) {
            None => 0,
            Some(v) => v.parse().map_err(|_| invalid(COUNTER_PASS, v, accepts(COUNTER_PASS).into()))?,
        };
        let per_instance = match set(COUNTER_INSTANCES).unwrap_or("0") {
            "1" => true,
            "0" => false,
            other => return Err(invalid(COUNTER_INSTANCES, other, accepts(COUNTER_INSTANCES).into())),
        };
        let selection = if let Some(text) = set(PMC) {
            Selection::Names(parse_names(text).map_err(|why| invalid(PMC, text, why.to_string()))?)
        } else if let Some(path) = set(PMC_FILE) {
            Selection::Passes(read_input_file(Path::new(path))?)
        } else if let Some(name) = set(COUNTER_PRESET) {
            Selection::Preset(presets::by_name(name).ok_or_else(|| invalid(COUNTER_PRESET, name, presets::names()))?)
        } else {
            return Ok(None);
        };
        Ok(Some(CounterRequest { selection, per_instance, mode, pass }))
    }
}

fn invalid(variable: &'static str, value: &str, accepts: String) -> Error {
    Error::Config { variable, value: value.to_owned(), accepts }
}

/// What a list of counter names must be, where one is not.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NamesError {
    /// A name with a character no counter name has.
    #[error("counter names of letters, digits and _ (found {bad:?} in {name:?})")]
    Character {
        /// The character.
        bad: char,
        /// The name it is in.
        name: String,
    },
    /// No name at all.
    #[error("at least one counter name")]
    Empty,
}

/// Counter names separated by commas or spaces.
pub fn parse_names(text: &str) -> std::result::Result<Vec<String>, NamesError> {
    let mut names: Vec<String> = Vec::new();
    for name in text.split([',', ' ', '\t']).filter(|n| !n.is_empty()) {
        if let Some(bad) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || "_[]:.".contains(*c))) {
            return Err(NamesError::Character { bad, name: name.to_owned() });
        }
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    if names.is_empty() {
        return Err(NamesError::Empty);
    }
    Ok(names)
}

/// The largest counter input file read: thousands of passes of every counter a GPU has.
pub const INPUT_FILE_LIMIT: u64 = 1 << 20;

/// A rocprof/rocprofv3 counter input file: one pass per `pmc:` line, `#` comments.
///
/// Read inside the profiled application, so only a regular file of at most
/// [`INPUT_FILE_LIMIT`] bytes: `/dev/zero` or a FIFO is refused, never read.
pub fn read_input_file(path: &Path) -> Result<Vec<Vec<String>>> {
    let text = rocprof_rs_format::input::read_text(path, INPUT_FILE_LIMIT)
        .map_err(|source| Error::Io { path: path.display().to_string(), source })?;
    parse_input(&text, &path.display().to_string())
}

/// [`read_input_file`] on text already read; `path` names it in errors.
pub fn parse_input(text: &str, path: &str) -> Result<Vec<Vec<String>>> {
    let error = |line: usize, message: String| Error::CounterFile { path: path.to_owned(), line, message };
    let mut passes: Vec<Vec<String>> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            return Err(error(index + 1, format!("expected `pmc: COUNTER ...`, found {line:?}")));
        };
        match key.trim() {
            "pmc" => passes.push(parse_names(rest).map_err(|why| error(index + 1, format!("expected {why}")))?),
            other @ ("range" | "gpu" | "kernel") => {
                return Err(error(
                    index + 1,
                    format!(
                        "`{other}:` lines are not read here; choose kernels with --kernel-include-regex and --kernel-iteration-range"
                    ),
                ));
            }
            other => return Err(error(index + 1, format!("unknown key `{other}:` (only `pmc:` lines are read)"))),
        }
    }
    if passes.is_empty() {
        return Err(error(1, "no `pmc:` line".into()));
    }
    Ok(passes)
}

/// The counter variables, for the README and `--help` (from the same table as the others).
pub fn variables() -> impl Iterator<Item = &'static Variable> {
    super::VARIABLES
        .iter()
        .filter(|v| [PMC, PMC_FILE, COUNTER_PRESET, COUNTER_INSTANCES, COUNTER_PASSES, COUNTER_PASS].contains(&v.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn madengine_files_give_one_pass_per_line() {
        let text = "# Compute\n\npmc: SQ_WAVES\npmc: SQ_INSTS_VALU SQ_INSTS_SALU # two\npmc:TCC_HIT_sum,TCC_MISS_sum\n";
        let passes = parse_input(text, "c.txt").unwrap();
        assert_eq!(
            passes,
            [vec!["SQ_WAVES"], vec!["SQ_INSTS_VALU", "SQ_INSTS_SALU"], vec!["TCC_HIT_sum", "TCC_MISS_sum"]]
        );
    }

    #[test]
    fn a_bad_line_is_named_by_file_and_line() {
        let e = parse_input("pmc: SQ_WAVES\nrange: 1:10\n", "in.txt").unwrap_err().to_string();
        assert!(e.starts_with("in.txt:2: `range:` lines are not read"), "{e}");
        let e = parse_input("pmc: SQ_WAVES\npmc:\n", "in.txt").unwrap_err().to_string();
        assert_eq!(e, "in.txt:2: expected at least one counter name");
        let e = parse_input("SQ_WAVES\n", "in.txt").unwrap_err().to_string();
        assert!(e.starts_with("in.txt:1: expected `pmc: COUNTER ...`"), "{e}");
        assert!(parse_input("# nothing\n", "in.txt").unwrap_err().to_string().contains("no `pmc:` line"));
    }

    #[test]
    fn the_environment_chooses_one_selection() {
        assert!(CounterRequest::from_env(&env(&[])).unwrap().is_none());
        let r = CounterRequest::from_env(&env(&[(PMC, "SQ_WAVES, SQ_WAVES,TCC_HIT_sum")])).unwrap().unwrap();
        assert!(matches!(&r.selection, Selection::Names(n) if n == &["SQ_WAVES", "TCC_HIT_sum"]));
        assert_eq!(r.mode, PassMode::Rotate);
        let r = CounterRequest::from_env(&env(&[(COUNTER_PRESET, "roofline"), (COUNTER_PASSES, "application")]))
            .unwrap()
            .unwrap();
        assert!(matches!(r.selection, Selection::Preset(p) if p.name == "roofline"));
        assert_eq!(r.mode, PassMode::Application);
        let e = CounterRequest::from_env(&env(&[(COUNTER_PRESET, "fast")])).unwrap_err().to_string();
        assert!(e.contains("ROCPROF_RS_COUNTER_PRESET=\"fast\"") && e.contains("roofline"), "{e}");
        let e = CounterRequest::from_env(&env(&[(PMC, "A"), (COUNTER_PRESET, "basic")])).unwrap_err().to_string();
        assert!(e.contains("choose one of"), "{e}");
        let e = CounterRequest::from_env(&env(&[(PMC, "SQ-WAVES")])).unwrap_err().to_string();
        assert!(e.contains("ROCPROF_RS_PMC") && e.contains("'-'"), "{e}");
    }
}
