//! A dataset's `device_sample` rows as one time series per process and GPU.

use std::collections::BTreeMap;
use std::path::Path;

use rocprof_rs_format::Table;
use rocprof_rs_format::device::Readings;

use crate::error::Result;

/// One sample of one GPU: its time and its readings (read through as `sample.power_w`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Sample {
    pub time_ns: i64,
    pub readings: Readings,
}

impl std::ops::Deref for Sample {
    type Target = Readings;
    fn deref(&self) -> &Readings {
        &self.readings
    }
}

/// Which GPU, as seen by which process.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeviceKey {
    pub pid: u32,
    pub device_index: u32,
}

/// One GPU's samples, in time order.
#[derive(Debug, Clone, Default)]
pub struct Series {
    pub device_uuid: String,
    pub library: String,
    /// The agent its kernels carry, where the process used the GPU.
    pub agent_id: Option<u64>,
    pub host: Option<String>,
    pub rank: Option<i32>,
    /// The names of each sample's throttle bits, where it had any.
    pub throttle: Vec<Option<String>>,
    pub samples: Vec<Sample>,
}

impl Series {
    /// The first and last sample times.
    pub fn span_ns(&self) -> Option<(i64, i64)> {
        Some((self.samples.first()?.time_ns, self.samples.last()?.time_ns))
    }
}

/// `readings` with its power and energy null where not a number (a library's error value): no
/// figure is made of them.
fn finite(readings: Readings) -> Readings {
    let finite = |value: Option<f64>| value.filter(|v| v.is_finite());
    Readings {
        power_w: finite(readings.power_w),
        power_average_w: finite(readings.power_average_w),
        energy_j: finite(readings.energy_j),
        ..readings
    }
}

/// Every GPU's series in the dataset under `dir` (empty where it has no samples).
pub fn read(dir: &Path) -> Result<BTreeMap<DeviceKey, Series>> {
    let mut all: BTreeMap<DeviceKey, Series> = BTreeMap::new();
    crate::read::batches(dir, Table::DeviceSample, |b| {
        let [time, agent, index, uuid, library, names, pid] =
            ["time_ns", "agent_id", "device_index", "device_uuid", "library", "throttle", "pid"]
                .map(|name| b.col(name));
        let (time, agent, index, uuid, library, names, pid) = (time?, agent?, index?, uuid?, library?, names?, pid?);
        let readings = Readings::columns(b)?;
        let (host, rank) = (b.col_opt("host")?, b.col_opt("rank")?);
        for i in 0..b.rows() {
            let key = DeviceKey { pid: pid.u64(i) as u32, device_index: index.u64(i) as u32 };
            let row_host = host.as_ref().and_then(|h| h.opt_text(i));
            if let Some(known) = all.get(&key)
                && known.host.as_deref() != row_host
            {
                return Err(crate::Error::Invalid(format!(
                    "{}: process {} sampled GPUs on {} and on {}: device samples name a process by its pid, so \
                     read each host's runs from a dataset of their own",
                    dir.display(),
                    key.pid,
                    known.host.as_deref().unwrap_or("an unknown host"),
                    row_host.unwrap_or("an unknown host")
                )));
            }
            let series = all.entry(key).or_insert_with(|| Series {
                device_uuid: uuid.text(i).to_owned(),
                library: library.text(i).to_owned(),
                agent_id: agent.opt_u64(i),
                host: host.as_ref().and_then(|h| h.opt_text(i)).map(str::to_owned),
                rank: rank.as_ref().and_then(|r| r.opt_i64(i)).map(|r| r as i32),
                ..Series::default()
            });
            series.samples.push(Sample { time_ns: time.i64(i), readings: finite(Readings::read(&readings, i)) });
            series.throttle.push(names.opt_text(i).filter(|t| !t.is_empty()).map(str::to_owned));
        }
        Ok(())
    })?;
    for series in all.values_mut() {
        // Files are read in name order, which is time order for one process; a sort keeps any
        // other order right as well.
        let mut order: Vec<usize> = (0..series.samples.len()).collect();
        order.sort_by_key(|&i| series.samples[i].time_ns);
        series.samples = order.iter().map(|&i| series.samples[i]).collect();
        series.throttle = order.iter().map(|&i| series.throttle[i].clone()).collect();
    }
    Ok(all)
}
