//! madengine's sampler files: `gpu_info_power_profiler_output.csv` and
//! `gpu_info_vram_profiler_output.csv`, as madengine's `gpu_info_profiler.py` writes them, from
//! the `device_sample` table, so madengine users keep their scripts.
//!
//! Columns, as madengine's source has them (ROCm/madengine,
//! `src/madengine/scripts/common/tools/gpu_info_profiler.py`): `time`, the local time as
//! `%Y-%m-%d %H:%M:%S.%f`, then one column per GPU, `Power(Watt) GPU<i>` or `vram(%) GPU<i>`
//! with `<i>` the management library's index. A power madengine could not read is `N/A`, a VRAM
//! share 0.0, as madengine writes them; values are rounded to two places, as it rounds them.
//!
//! One row per sample round. Power is the reading madengine takes: NVML's one-second average
//! (`nvmlDeviceGetPowerUsage`), AMD SMI's current socket power, in watts as the library reports
//! them; madengine's AMD reader divides AMD SMI's watts by 1000 (it takes them for milliwatts),
//! which these files do not copy.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use rocprof_rs_format::publish::{OutputDir, OutputFile};

use crate::error::{Error, Result};
use crate::telemetry::series::{self, DeviceKey, Series};

/// The power file's name.
pub const POWER_FILE: &str = "gpu_info_power_profiler_output.csv";
/// The VRAM file's name.
pub const VRAM_FILE: &str = "gpu_info_vram_profiler_output.csv";

/// Writes the two files under `out` (one pair per process that sampled, under `pid_<pid>/`
/// where there are several); returns each file with its rows.
pub fn export(dir: &Path, out: &Path) -> Result<Vec<(String, u64)>> {
    rocprof_rs_format::dataset::require_tables(dir)?;
    let runs = super::runs::read(dir)?;
    let all = series::read(dir)?;
    let mut by_pid: BTreeMap<u32, Vec<(&DeviceKey, &Series)>> = BTreeMap::new();
    for (key, s) in &all {
        by_pid.entry(key.pid).or_default().push((key, s));
    }
    if by_pid.is_empty() {
        return Err(Error::Invalid(format!(
            "{}: no device samples (device_sample): record with `rocprof-rs run --device-sample`",
            dir.display()
        )));
    }
    let folder = OutputDir::create(out).map_err(|source| io(out, source))?;
    let mut written = Vec::new();
    let several = by_pid.len() > 1;
    for (pid, gpus) in &by_pid {
        let sub = if several { format!("pid_{pid}/") } else { String::new() };
        if several {
            std::fs::create_dir_all(out.join(&sub)).map_err(|source| io(&out.join(&sub), source))?;
        }
        // BOOTTIME to the calendar, by the run's clocks read together at its start.
        let offset = runs.get(pid).and_then(|r| Some(r.start_unix_ns? - r.start_ns?)).ok_or_else(|| {
            Error::Invalid(format!(
                "{}: process {pid} has no start time on the calendar (its metadata file lacks {}): madengine's \
                 files need one",
                dir.display(),
                rocprof_rs_format::keys::START_UNIX_NS
            ))
        })?;
        let nvml = gpus.iter().all(|(_, s)| s.library == "nvml");
        let power: fn(&series::Sample) -> String = if nvml { nvml_power_cell } else { amd_power_cell };
        for (file, header, cell) in [
            (POWER_FILE, "Power(Watt) GPU", power),
            (VRAM_FILE, "vram(%) GPU", vram_cell as fn(&series::Sample) -> String),
        ] {
            let (text, rows) = csv(gpus, offset, header, cell);
            let name = format!("{sub}{file}");
            let path = out.join(&name);
            let mut output = OutputFile::create(&path).map_err(|source| io(&path, source))?;
            std::io::Write::write_all(&mut output, text.as_bytes()).map_err(|source| io(&path, source))?;
            output.commit().map_err(|source| io(&path, source))?;
            written.push((name, rows));
        }
    }
    folder.keep();
    Ok(written)
}

fn io(path: &Path, source: std::io::Error) -> Error {
    Error::Io { path: path.display().to_string(), source }
}

/// One file's text: a row per sample round (the k-th sample of every GPU), stamped with the
/// first GPU's time.
fn csv(
    gpus: &[(&DeviceKey, &Series)],
    offset_ns: i64,
    header: &str,
    cell: fn(&series::Sample) -> String,
) -> (String, u64) {
    let mut text = String::from("time");
    for (key, _) in gpus {
        let _ = write!(text, ",{header}{}", key.device_index);
    }
    text.push_str("\r\n");
    let rounds = gpus.iter().map(|(_, s)| s.samples.len()).min().unwrap_or(0);
    for k in 0..rounds {
        text.push_str(&local_time(gpus[0].1.samples[k].time_ns + offset_ns));
        for (_, s) in gpus {
            text.push(',');
            text.push_str(&cell(&s.samples[k]));
        }
        text.push_str("\r\n");
    }
    (text, rounds as u64)
}

/// NVML's one-second average (`nvmlDeviceGetPowerUsage`), what madengine reads there.
fn nvml_power_cell(sample: &series::Sample) -> String {
    watts_cell(sample.power_average_w.or(sample.power_w))
}

/// AMD SMI's current socket power, what madengine reads there.
fn amd_power_cell(sample: &series::Sample) -> String {
    watts_cell(sample.power_w)
}

fn watts_cell(watts: Option<f64>) -> String {
    watts.map_or_else(|| "N/A".to_owned(), |w| python_float(round2(w)))
}

fn vram_cell(sample: &series::Sample) -> String {
    let share = match (sample.memory_used_bytes, sample.memory_total_bytes) {
        (Some(used), Some(total)) if total > 0 => round2(used as f64 / total as f64 * 100.0),
        _ => 0.0,
    };
    python_float(share)
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// A float as Python's `str` writes it: shortest round trip, with `.0` on whole numbers.
pub fn python_float(value: f64) -> String {
    if value.is_finite() && value.fract() == 0.0 && value.abs() < 1e16 {
        format!("{value:.1}")
    } else {
        format!("{value}")
    }
}

/// Nanoseconds since the epoch as local time, `%Y-%m-%d %H:%M:%S.%f`, as Python's
/// `datetime.now().strftime` writes it.
pub fn local_time(unix_ns: i64) -> String {
    let (seconds, nanos) = (unix_ns.div_euclid(1_000_000_000), unix_ns.rem_euclid(1_000_000_000));
    let time: libc::time_t = seconds as libc::time_t;
    // SAFETY: an all-zero `tm` is a valid value to be overwritten.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid; localtime_r is the thread-safe form.
    let converted = unsafe { libc::localtime_r(&time, &mut tm) };
    if converted.is_null() {
        return format!("@{seconds}.{:06}", nanos / 1000);
    }
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        nanos / 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_read_as_pythons() {
        assert_eq!(python_float(315.0), "315.0");
        assert_eq!(python_float(round2(12.3456)), "12.35");
        assert_eq!(python_float(0.0), "0.0");
    }

    #[test]
    fn times_have_microseconds() {
        let text = local_time(1_700_000_000_123_456_789);
        assert_eq!(text.len(), "2023-11-14 22:13:20.123456".len(), "{text}");
        assert!(text.ends_with(".123456"), "{text}");
    }
}
