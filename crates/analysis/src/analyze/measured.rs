//! Roofs measured on the machine a workload ran on, used in place of the datasheet's.
//!
//! rocprof-compute's roofline benchmark writes `roofline.csv` beside a workload: per GPU, the
//! bandwidth its microbenchmarks reached at each memory level and the FLOP/s at each precision
//! and pipe. The import keeps them in the process table's metadata under
//! [`keys::MEASURED_ROOFS`], as `{"source": ..., "agents": {"<agent id>": {"dram": TB/s, ...,
//! "fp32-vector": TFLOP/s, ...}}}`; `analyze` judges the workload's kernels against them and
//! says so, with the datasheet's figures beside.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rocprof_rs_format::{Table, keys};

use super::specs::{Level, Pipe, Precision};
use crate::error::Result;
use crate::read::batches;

/// One agent's measured roofs: bandwidth per level (TB/s) and peaks per precision and pipe
/// (TFLOP/s, or TOP/s for integers).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Roofs {
    /// What measured them (`rocprof-compute roofline.csv`).
    pub source: String,
    pub bandwidth: BTreeMap<Level, f64>,
    pub peaks: BTreeMap<(Precision, Pipe), f64>,
}

/// One roof by its name in a measurement (`dram`, `fp32-vector`): a level's bandwidth or a
/// precision's peak on a pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Roof {
    Bandwidth(Level),
    Peak(Precision, Pipe),
}

impl Roof {
    /// The roof `name` names, where it names one.
    pub fn parse(name: &str) -> Option<Roof> {
        if let Some(level) = Level::ALL.into_iter().find(|l| l.name() == name) {
            return Some(Roof::Bandwidth(level));
        }
        let (p, q) = name.split_once('-')?;
        let precision = Precision::ALL.into_iter().find(|x| x.name() == p)?;
        let pipe = [Pipe::Vector, Pipe::Matrix].into_iter().find(|x| x.name() == q)?;
        Some(Roof::Peak(precision, pipe))
    }
}

impl Roofs {
    /// Sets `roof` to `value` (TB/s or TFLOP/s).
    pub fn set(&mut self, roof: Roof, value: f64) {
        match roof {
            Roof::Bandwidth(level) => self.bandwidth.insert(level, value),
            Roof::Peak(precision, pipe) => self.peaks.insert((precision, pipe), value),
        };
    }

    /// Its JSON object: `{"dram": 1.389, "fp32-vector": 20.94, ...}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        for (level, tbps) in &self.bandwidth {
            map.insert(level.name().to_owned(), (*tbps).into());
        }
        for ((precision, pipe), tflops) in &self.peaks {
            map.insert(format!("{}-{}", precision.name(), pipe.name()), (*tflops).into());
        }
        serde_json::Value::Object(map)
    }

    /// Reads [`Roofs::to_json`]'s object; names it does not know, and values that are not
    /// positive finite numbers, are left out.
    pub fn from_json(source: &str, value: &serde_json::Value) -> Roofs {
        let mut roofs = Roofs { source: source.to_owned(), ..Roofs::default() };
        let Some(map) = value.as_object() else { return roofs };
        for (name, value) in map {
            let Some(v) = value.as_f64().filter(|v| v.is_finite() && *v > 0.0) else { continue };
            if let Some(roof) = Roof::parse(name) {
                roofs.set(roof, v);
            }
        }
        roofs
    }

    pub fn is_empty(&self) -> bool {
        self.bandwidth.is_empty() && self.peaks.is_empty()
    }
}

/// The process metadata value for `roofs` by agent id, measured by `source`.
pub fn metadata_value(source: &str, roofs: &BTreeMap<u64, Roofs>) -> serde_json::Value {
    let agents: serde_json::Map<String, serde_json::Value> =
        roofs.iter().map(|(agent, r)| (agent.to_string(), r.to_json())).collect();
    serde_json::json!({ "source": source, "agents": agents })
}

/// Every (process, agent)'s measured roofs in the dataset at `dir`, from its process table.
pub fn read(dir: &Path) -> Result<HashMap<(u32, u64), Roofs>> {
    let mut out = HashMap::new();
    if rocprof_rs_format::dataset::table_files(dir, Table::Process)?.is_empty() {
        return Ok(out);
    }
    batches(dir, Table::Process, |b| {
        let (pid, metadata) = (b.col("pid")?, b.col("metadata")?);
        for i in 0..b.rows() {
            let Ok(json) = serde_json::from_str::<serde_json::Value>(metadata.text(i)) else { continue };
            let Some(measured) = json.get(keys::MEASURED_ROOFS) else { continue };
            let source = measured.get("source").and_then(|s| s.as_str()).unwrap_or("a measurement");
            let Some(agents) = measured.get("agents").and_then(|a| a.as_object()) else { continue };
            for (agent, value) in agents {
                let Ok(agent) = agent.parse::<u64>() else { continue };
                let roofs = Roofs::from_json(source, value);
                if !roofs.is_empty() {
                    out.insert((pid.u64(i) as u32, agent), roofs);
                }
            }
        }
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roofs_round_trip_through_their_json_and_bad_values_are_left_out() {
        let mut roofs = Roofs { source: "roofline.csv".into(), ..Roofs::default() };
        roofs.bandwidth.insert(Level::Dram, 1.389);
        roofs.peaks.insert((Precision::Fp32, Pipe::Vector), 20.94);
        roofs.peaks.insert((Precision::Int8, Pipe::Matrix), 166.4);
        let json = roofs.to_json();
        assert_eq!(json["dram"], 1.389);
        assert_eq!(json["int8-matrix"], 166.4);
        assert_eq!(Roofs::from_json("roofline.csv", &json), roofs);
        let bad = serde_json::json!({"dram": -1.0, "l2": "fast", "fp99-vector": 3.0, "lds": 17.7});
        let read = Roofs::from_json("x", &bad);
        assert_eq!(read.bandwidth.len(), 1);
        assert!(read.peaks.is_empty());
    }
}
