//! `doctor --measure-roofs`' text: each roof measured, beside the datasheet's.

use std::collections::BTreeMap;

use rocprof_rs_analysis::analyze::measured::Roof;
use rocprof_rs_analysis::analyze::specs::{Agent, Database, Device};

use super::Measurement;

/// The datasheet's figure for each roof measured, by roof name, where the spec database knows
/// the GPU: the same figures `analyze` would otherwise use.
pub fn datasheet(m: &Measurement) -> BTreeMap<String, f64> {
    let agent = agent(m);
    let Some(part) = Database::builtin().ok().and_then(|db| db.find(&agent)) else { return BTreeMap::new() };
    let device = Device::new(part, &agent);
    let figure = |roof: &str| match Roof::parse(roof)? {
        Roof::Bandwidth(level) => device.datasheet_bandwidth(level),
        Roof::Peak(precision, pipe) => device.datasheet_peak(precision, pipe),
    };
    m.runs.iter().filter_map(|run| Some((run.roof.clone(), figure(&run.roof)?))).collect()
}

fn agent(m: &Measurement) -> Agent {
    Agent { product_name: m.kept.gpu_name.clone(), compute_units: Some(m.kept.sm_count), ..Agent::default() }
}

/// The measurement of one GPU, kept at `kept`, as a table against its datasheet.
pub fn text(m: &Measurement, kept: Option<&std::path::Path>) -> String {
    let part = Database::builtin().ok().and_then(|db| db.find(&agent(m)));
    let sheet = datasheet(m);
    let mut out = format!(
        "CUDA device {}: {} ({}, {} SMs){}\n",
        m.ordinal,
        m.kept.gpu_name,
        m.kept.uuid,
        m.kept.sm_count,
        part.map_or(" - not in the spec database, so no datasheet beside it".to_owned(), |g| format!(
            ", datasheet: {}",
            g.id
        ))
    );
    for run in &m.runs {
        let beside = sheet.get(&run.roof).map_or("no datasheet figure".to_owned(), |p| {
            format!("datasheet {p:.2}, {:.0}% of it", 100.0 * run.best / p)
        });
        out.push_str(&format!(
            "  {:<12} {:>8.2} {:<7} (median {:.2}; {}; {})\n",
            run.roof, run.best, run.unit, run.median, beside, run.kernel
        ));
    }
    for why in &m.skipped {
        out.push_str(&format!("  not measured: {why}\n"));
    }
    if let Some(path) = kept {
        out.push_str(&format!(
            "  kept at {}: analyze judges workloads on a GPU of this kind against it\n",
            path.display()
        ));
    }
    out
}
