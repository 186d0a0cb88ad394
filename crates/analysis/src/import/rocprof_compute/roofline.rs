//! `roofline.csv`: rocprof-compute's roofline benchmark, run on the machine before the
//! workload. One row per GPU (`device`), the bandwidth its microbenchmarks reached at each
//! level in GB/s (`HBMBw`, `L2Bw`, `L1Bw`, `LDSBw`) and the GFLOP/s (GOP/s) at each precision
//! and pipe (`FP32Flops`, `MFMABF16Flops`, ...), each with the `Low` and `High` of its runs
//! beside it, which are not kept. A missing column is a roof not measured; a value that is not
//! a positive number is an error naming its line and column.

use std::collections::BTreeMap;
use std::path::Path;

use super::super::csv_table::Table;
use crate::analyze::measured::Roofs;
use crate::analyze::specs::{Level, Pipe, Precision};
use crate::error::Result;

const BANDWIDTHS: [(&str, Level); 4] =
    [("HBMBw", Level::Dram), ("L2Bw", Level::L2), ("L1Bw", Level::L1), ("LDSBw", Level::Lds)];

const PEAKS: [(&str, Precision, Pipe); 7] = [
    ("FP32Flops", Precision::Fp32, Pipe::Vector),
    ("FP64Flops", Precision::Fp64, Pipe::Vector),
    ("MFMAF16Flops", Precision::Fp16, Pipe::Matrix),
    ("MFMABF16Flops", Precision::Bf16, Pipe::Matrix),
    ("MFMAF32Flops", Precision::Fp32, Pipe::Matrix),
    ("MFMAF64Flops", Precision::Fp64, Pipe::Matrix),
    ("MFMAI8Ops", Precision::Int8, Pipe::Matrix),
];

/// What measured them, as the evidence names it.
pub const SOURCE: &str = "rocprof-compute's roofline benchmark (roofline.csv)";

/// Each GPU's roofs, by its index (the agent id the workload's dispatches name).
pub fn read(path: &Path) -> Result<BTreeMap<u64, Roofs>> {
    let mut t = Table::open(path, None)?;
    let mut out = BTreeMap::new();
    while t.next()? {
        let device = t.text("device")?.trim().to_owned();
        let device: u64 =
            device.parse().map_err(|_| t.error("device", format!("expected a GPU index, found {device:?}")))?;
        let mut roofs = Roofs { source: SOURCE.to_owned(), ..Roofs::default() };
        for (column, level) in BANDWIDTHS {
            if let Some(gbps) = value(&t, column)? {
                roofs.bandwidth.insert(level, gbps / 1e3);
            }
        }
        for (column, precision, pipe) in PEAKS {
            if let Some(gflops) = value(&t, column)? {
                roofs.peaks.insert((precision, pipe), gflops / 1e3);
            }
        }
        if out.insert(device, roofs).is_some() {
            return Err(t.error("device", format!("GPU {device} measured twice")));
        }
    }
    Ok(out)
}

/// `column`'s positive number, `None` where the column is absent or the cell empty.
fn value(t: &Table, column: &str) -> Result<Option<f64>> {
    if !t.has(column) {
        return Ok(None);
    }
    let text = t.text(column)?.trim().to_owned();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(Some(v)),
        _ => Err(t.error(column, format!("expected a positive number, found {text:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-roofline-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("roofline.csv");
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn the_mi200_workloads_roofs_are_read_per_gpu_in_tb_and_tflops() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/rocprof-compute/vcopy-MI200/roofline.csv");
        let roofs = read(&path).unwrap();
        assert_eq!(roofs.len(), 4);
        let gpu0 = &roofs[&0];
        assert!((gpu0.bandwidth[&Level::Dram] - 1.3889302).abs() < 1e-9);
        assert!((gpu0.bandwidth[&Level::Lds] - 17.717834).abs() < 1e-9);
        assert!((gpu0.peaks[&(Precision::Fp32, Pipe::Vector)] - 20.941971).abs() < 1e-9);
        assert!((gpu0.peaks[&(Precision::Int8, Pipe::Matrix)] - 166.40227).abs() < 1e-9);
    }

    #[test]
    fn a_bad_value_or_a_gpu_twice_names_its_line_and_column() {
        let bad = read(&file("bad", "device,HBMBw\n0,fast\n")).unwrap_err().to_string();
        assert!(bad.contains("roofline.csv:2:") && bad.contains("HBMBw") && bad.contains("fast"), "{bad}");
        let twice = read(&file("twice", "device,HBMBw\n0,1000\n0,1001\n")).unwrap_err().to_string();
        assert!(twice.contains("measured twice"), "{twice}");
        let partial = read(&file("partial", "device,HBMBw,L2Bw\n1,1000,\n")).unwrap();
        assert_eq!(partial[&1].bandwidth.len(), 1);
    }
}
