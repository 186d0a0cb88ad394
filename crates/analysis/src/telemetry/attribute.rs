//! Energy per dispatch and per marker range, from the GPUs' sampled power.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rocprof_rs_format::Table;

use super::energy::{Energy, integrate, power_points};
use super::series::{DeviceKey, Series};
use crate::error::Result;

/// One dispatch's energy.
#[derive(Debug, Clone, PartialEq)]
pub struct DispatchEnergy {
    pub pid: u32,
    pub agent_id: u64,
    pub dispatch_id: u64,
    /// Shared among a kernel's dispatches: a name is held once however many there are.
    pub kernel_name: std::sync::Arc<str>,
    pub start_ns: i64,
    pub end_ns: i64,
    /// `None` where the dispatch is outside its GPU's samples.
    pub energy: Option<Energy>,
}

/// Splits the energy of each stretch among the intervals running in it, equally: the GPU's
/// power is the sum of what its concurrent kernels draw, and the samples cannot tell them
/// apart. `None` for an interval some part of which has no samples around it.
pub fn share(points: &[(i64, f64)], intervals: &[(i64, i64)]) -> Vec<Option<Energy>> {
    let mut edges: Vec<(i64, bool, usize)> = Vec::with_capacity(intervals.len() * 2);
    for (i, &(start, end)) in intervals.iter().enumerate() {
        edges.push((start, true, i));
        edges.push((end.max(start), false, i));
    }
    // Ends before starts at one instant: back-to-back kernels do not overlap.
    edges.sort_unstable_by_key(|&(t, start, i)| (t, start, i));
    let mut result: Vec<Option<Energy>> =
        intervals.iter().map(|&(s, e)| integrate(points, s, e.max(s)).map(|_| Energy::default())).collect();
    let mut active: Vec<usize> = Vec::new();
    let mut previous = i64::MIN;
    for (t, start, i) in edges {
        if !active.is_empty() && t > previous {
            let slice = integrate(points, previous, t);
            let k = active.len() as f64;
            for &a in &active {
                match (&mut result[a], slice) {
                    (Some(total), Some(part)) => *total += part / k,
                    (total, None) => *total = None,
                    (None, Some(_)) => {}
                }
            }
        }
        previous = t;
        if start {
            active.push(i);
        } else if let Some(at) = active.iter().position(|&a| a == i) {
            active.swap_remove(at);
        }
    }
    result
}

/// Every dispatch's energy, for the dispatches on a GPU that was sampled.
pub fn dispatches(dir: &Path, series: &BTreeMap<DeviceKey, Series>) -> Result<Vec<DispatchEnergy>> {
    let by_agent: HashMap<(u32, u64), &Series> =
        series.iter().filter_map(|(key, s)| Some(((key.pid, s.agent_id?), s))).collect();
    if by_agent.is_empty() {
        return Ok(Vec::new());
    }
    let mut rows: Vec<DispatchEnergy> = Vec::new();
    let mut names: HashMap<String, std::sync::Arc<str>> = HashMap::new();
    crate::read::batches(dir, Table::KernelDispatch, |b| {
        let (pid, agent, id, name) = (b.col("pid")?, b.col("agent_id")?, b.col("dispatch_id")?, b.col("kernel_name")?);
        let (start, end) = (b.col("start_ns")?, b.col("end_ns")?);
        for i in 0..b.rows() {
            let key = (pid.u64(i) as u32, agent.u64(i));
            if by_agent.contains_key(&key) {
                rows.push(DispatchEnergy {
                    pid: key.0,
                    agent_id: key.1,
                    dispatch_id: id.u64(i),
                    kernel_name: match names.get(name.text(i)) {
                        Some(shared) => shared.clone(),
                        None => {
                            let shared: std::sync::Arc<str> = name.text(i).into();
                            names.insert(name.text(i).to_owned(), shared.clone());
                            shared
                        }
                    },
                    start_ns: start.i64(i),
                    end_ns: end.i64(i),
                    energy: None,
                });
            }
        }
        Ok(())
    })?;
    let mut by_device: HashMap<(u32, u64), Vec<usize>> = HashMap::new();
    for (i, row) in rows.iter().enumerate() {
        by_device.entry((row.pid, row.agent_id)).or_default().push(i);
    }
    for (key, members) in by_device {
        let points = power_points(&by_agent[&key].samples);
        let intervals: Vec<(i64, i64)> = members.iter().map(|&i| (rows[i].start_ns, rows[i].end_ns)).collect();
        for (&i, energy) in members.iter().zip(share(&points, &intervals)) {
            rows[i].energy = energy;
        }
    }
    Ok(rows)
}

/// One marker range's energy: every sampled GPU of its process over the range (a range is a
/// thread's, not a GPU's).
#[derive(Debug, Clone, PartialEq)]
pub struct RangeEnergy {
    pub pid: u32,
    pub message: String,
    pub start_ns: i64,
    pub end_ns: i64,
    pub energy: Option<Energy>,
}

/// Every marker range's energy, for processes with samples.
pub fn ranges(dir: &Path, series: &BTreeMap<DeviceKey, Series>) -> Result<Vec<RangeEnergy>> {
    let mut points: HashMap<u32, Vec<Vec<(i64, f64)>>> = HashMap::new();
    for (key, s) in series {
        if s.agent_id.is_some() {
            points.entry(key.pid).or_default().push(power_points(&s.samples));
        }
    }
    let mut rows = Vec::new();
    if points.is_empty() {
        return Ok(rows);
    }
    crate::read::batches(dir, Table::Marker, |b| {
        let (pid, message, start, end) = (b.col("pid")?, b.col("message")?, b.col("start_ns")?, b.col("end_ns")?);
        for i in 0..b.rows() {
            let pid = pid.u64(i) as u32;
            let Some(gpus) = points.get(&pid) else { continue };
            let (s, e) = (start.i64(i), end.i64(i));
            if e <= s {
                continue;
            }
            let energy = gpus.iter().try_fold(Energy::default(), |mut sum, gpu| {
                sum += integrate(gpu, s, e)?;
                Some(sum)
            });
            rows.push(RangeEnergy { pid, message: message.text(i).to_owned(), start_ns: s, end_ns: e, energy });
        }
        Ok(())
    })?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_intervals_share_a_stretch_and_uncovered_ones_have_none() {
        let points = [(0, 100.0), (1_000, 100.0)];
        // One alone from 0 to 400, two together from 400 to 600.
        let got = share(&points, &[(0, 600), (400, 600), (900, 1_200)]);
        let joules = |e: &Option<Energy>| e.map(|e| (e.joules * 1e9).round());
        assert_eq!(joules(&got[0]), Some(100.0 * 400.0 + 100.0 * 100.0));
        assert_eq!(joules(&got[1]), Some(100.0 * 100.0));
        assert_eq!(got[2], None);
        // Back to back: no overlap.
        let got = share(&points, &[(0, 500), (500, 1_000)]);
        assert_eq!(got.iter().map(joules).collect::<Vec<_>>(), [Some(50_000.0), Some(50_000.0)]);
    }
}
