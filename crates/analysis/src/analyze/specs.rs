//! The GPU spec database (`gpus.toml`, beside this file): peak rates and bandwidths per part,
//! each with the source it came from.
//!
//! Peaks are kept together with the per-CU, per-clock rate they come from, because a device in
//! a trace is rarely the datasheet's device: a compute partition (CPX) has a fraction of the
//! CUs, and a device may run below its peak clock. [`Device`] applies what the trace says about
//! the agent (its CUs, its clock) over the database, and re-derives each peak as
//! CU × clock × rate; the database's own figure is used only where no rate is known.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::error::{Error, Result};

/// The database text, compiled in.
const TEXT: &str = include_str!("gpus.toml");

/// Number formats: a precision, as the database's field names spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    Fp64,
    Fp32,
    Tf32,
    Fp16,
    Bf16,
    Fp8,
    Fp6,
    Fp4,
    Int8,
    Int4,
}

impl Precision {
    pub const ALL: [Precision; 10] = [
        Precision::Fp64,
        Precision::Fp32,
        Precision::Tf32,
        Precision::Fp16,
        Precision::Bf16,
        Precision::Fp8,
        Precision::Fp6,
        Precision::Fp4,
        Precision::Int8,
        Precision::Int4,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Precision::Fp64 => "fp64",
            Precision::Fp32 => "fp32",
            Precision::Tf32 => "tf32",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
            Precision::Fp8 => "fp8",
            Precision::Fp6 => "fp6",
            Precision::Fp4 => "fp4",
            Precision::Int8 => "int8",
            Precision::Int4 => "int4",
        }
    }

    /// Integer formats are counted in operations (TOPS), the rest in FLOPs.
    pub fn is_integer(self) -> bool {
        matches!(self, Precision::Int8 | Precision::Int4)
    }
}

/// Where an operation runs: the vector ALUs (VALU, CUDA cores) or the matrix units (MFMA,
/// WMMA, tensor cores).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Pipe {
    Vector,
    Matrix,
}

impl Pipe {
    pub fn name(self) -> &'static str {
        match self {
            Pipe::Vector => "vector",
            Pipe::Matrix => "matrix",
        }
    }
}

/// A level of the memory hierarchy, outermost first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// HBM, GDDR or LPDDR.
    Dram,
    /// Infinity Cache (AMD's MALL).
    Mall,
    L2,
    /// The vector L1 (CDNA's vL1D, RDNA's L0, NVIDIA's L1).
    L1,
    /// LDS (NVIDIA's shared memory).
    Lds,
}

impl Level {
    pub const ALL: [Level; 5] = [Level::Dram, Level::Mall, Level::L2, Level::L1, Level::Lds];

    pub fn name(self) -> &'static str {
        match self {
            Level::Dram => "dram",
            Level::Mall => "mall",
            Level::L2 => "l2",
            Level::L1 => "l1",
            Level::Lds => "lds",
        }
    }
}

/// How a number came to be in the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Provenance {
    /// Stated by the cited sources.
    Published,
    /// Computed from other entries; the metric's `formula` says how.
    Derived,
    /// A constant of AMD's own performance model (rocprofiler-compute), not a datasheet figure.
    ToolModel,
    /// Measured by us on the part (a profiler's sustained peak, a benchmark); `src` names the
    /// run and `formula` how the figure follows from what it printed.
    Measured,
    /// Unknown, or not applicable; the note says which.
    Null,
}

/// One number with its provenance.
#[derive(Debug, Clone, Deserialize)]
pub struct Metric {
    #[serde(default)]
    pub value: Option<toml::Value>,
    pub kind: Provenance,
    #[serde(default)]
    pub src: Vec<String>,
    #[serde(default)]
    pub formula: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
}

impl Metric {
    pub fn number(&self) -> Option<f64> {
        match self.value.as_ref()? {
            toml::Value::Integer(i) => Some(*i as f64),
            toml::Value::Float(f) => Some(*f),
            _ => None,
        }
    }
}

/// Where a number came from.
#[derive(Debug, Clone, Deserialize)]
pub struct Source {
    pub url: String,
    pub title: String,
    /// Whether the figures were checked against this source's text.
    pub read: bool,
    pub how: String,
}

/// One part, as the database describes it.
#[derive(Debug, Clone, Deserialize)]
pub struct Gpu {
    pub id: String,
    pub name: String,
    pub vendor: String,
    pub architecture: String,
    /// The LLVM target (AMD), e.g. `gfx942`.
    #[serde(default)]
    pub gfx_target: Option<String>,
    /// The CUDA compute capability (NVIDIA), e.g. `9.0`.
    #[serde(default)]
    pub compute_capability: Option<String>,
    /// Every other field: metrics (inline tables) and notes (strings).
    #[serde(flatten)]
    fields: BTreeMap<String, toml::Value>,
}

impl Gpu {
    /// The metric `key` (e.g. `dram_bw_tbps`), where the database has it.
    pub fn metric(&self, key: &str) -> Option<Metric> {
        self.fields.get(key).and_then(|v| v.clone().try_into().ok())
    }

    /// The value of metric `key`, where it is known.
    pub fn value(&self, key: &str) -> Option<f64> {
        self.metric(key).and_then(|m| m.number())
    }

    /// Every metric, by name.
    pub fn metrics(&self) -> impl Iterator<Item = (&str, Metric)> {
        self.fields.iter().filter_map(|(k, v)| Some((k.as_str(), v.clone().try_into().ok()?)))
    }

    pub fn compute_units(&self) -> Option<f64> {
        self.value("compute_units")
    }

    /// The clock the database's peaks of `precision` on `pipe` are quoted at, in MHz: NVIDIA
    /// quotes its low-precision tensor-core peaks at a lower clock than the rest (FP64 tensor
    /// included).
    pub fn peak_clock_mhz(&self, precision: Precision, pipe: Pipe) -> Option<f64> {
        let engine = self.value("peak_engine_clock_mhz");
        match (pipe, precision) {
            (Pipe::Matrix, p) if p != Precision::Fp64 => self.value("tensor_clock_mhz").or(engine),
            _ => engine,
        }
    }

    /// The datasheet peak in TFLOP/s (TOP/s for integers), dense. For FP32 on the vector pipe
    /// this is the non-packed rate, the one hardware counters can reach.
    pub fn peak(&self, precision: Precision, pipe: Pipe) -> Option<f64> {
        let unit = if precision.is_integer() { "tops" } else { "tflops" };
        self.value(&format!("peak_{}_{}_{unit}", precision.name(), pipe.name()))
    }

    /// Operations per clock per CU (per SM).
    pub fn rate(&self, precision: Precision, pipe: Pipe) -> Option<f64> {
        self.value(&format!("rate_{}_{}_per_clk_per_cu", precision.name(), pipe.name()))
    }

    /// Peak bandwidth of `level` in TB/s, for the whole part.
    pub fn bandwidth(&self, level: Level) -> Option<f64> {
        self.value(&format!("{}_bw_tbps", level.name()))
    }

    /// Bytes per clock per CU of a per-CU level (L1, LDS).
    pub fn bytes_per_clock_per_cu(&self, level: Level) -> Option<f64> {
        self.value(&format!("{}_bw_bytes_per_clk_per_cu", level.name()))
    }

    /// The HIP devices one package shows (2 for MI250X's two dies).
    pub fn devices_per_package(&self) -> f64 {
        self.value("devices_per_package").unwrap_or(1.0)
    }
}

/// The database.
#[derive(Debug, Deserialize)]
pub struct Database {
    pub schema_version: u32,
    pub sources: BTreeMap<String, Source>,
    #[serde(rename = "gpu")]
    pub gpus: Vec<Gpu>,
}

impl Database {
    /// The compiled-in database.
    pub fn builtin() -> Result<&'static Database> {
        static DATABASE: OnceLock<std::result::Result<Database, toml::de::Error>> = OnceLock::new();
        DATABASE
            .get_or_init(|| toml::from_str(TEXT))
            .as_ref()
            .map_err(|e| Error::Invalid(format!("the built-in GPU database: gpus.toml: {e}")))
    }

    /// A database from TOML text.
    pub fn parse(text: &str) -> Result<Database> {
        toml::from_str(text).map_err(|e| Error::Invalid(format!("gpus.toml: {e}")))
    }

    pub fn get(&self, id: &str) -> Option<&Gpu> {
        self.gpus.iter().find(|g| g.id == id)
    }

    /// The part an agent is: by its product name where the database names it, else by its
    /// target alone where only one part has that target and the CU counts agree.
    pub fn find(&self, agent: &Agent) -> Option<&Gpu> {
        let product = normalize(&agent.product_name);
        let by_name = self.gpus.iter().find(|g| {
            let name = normalize(&g.name);
            !product.is_empty() && (name.contains(&product) || product.contains(&name) || product_matches(&product, g))
        });
        if by_name.is_some() {
            return by_name;
        }
        let same_target: Vec<&Gpu> = self
            .gpus
            .iter()
            .filter(|g| g.gfx_target.as_deref() == Some(agent.target.as_str()) && !agent.target.is_empty())
            .collect();
        match same_target.as_slice() {
            [only] => Some(only),
            many => many
                .iter()
                .find(|g| {
                    let die = g.compute_units().map(|cu| cu / g.devices_per_package());
                    die.is_some_and(|cu| agent.compute_units.is_some_and(|a| f64::from(a) == cu))
                })
                .copied(),
        }
    }
}

/// Lower-case letters and digits only, so `AMD Instinct MI300X` matches `MI300X`.
pub(crate) fn normalize(text: &str) -> String {
    text.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// Whether a product name is the part's model (`mi300x` in `amdinstinctmi300xoam`).
fn product_matches(product: &str, gpu: &Gpu) -> bool {
    let model = normalize(&gpu.id.replace("_sxm5", "").replace("_sxm", "").replace("_pcie", ""));
    !model.is_empty() && product.contains(&model) && {
        // `mi300x` must not take an MI300A, nor `h100` an H100 PCIe card named as such.
        let pcie = product.contains("pcie");
        gpu.id.ends_with("_pcie") == pcie || !gpu.id.starts_with('h')
    }
}

/// What a trace says about a device.
#[derive(Debug, Clone, Default)]
pub struct Agent {
    /// `gfx942`, or a compute capability for NVIDIA.
    pub target: String,
    pub product_name: String,
    /// The CUs (SMs) this device has: fewer than the part's in a compute partition.
    pub compute_units: Option<u32>,
    /// The clock the device reports as its maximum, MHz.
    pub max_clock_mhz: Option<u32>,
}

/// A device: the database's part with the trace's facts applied.
#[derive(Debug, Clone)]
pub struct Device<'d> {
    pub gpu: &'d Gpu,
    /// CUs (SMs) of this device.
    pub compute_units: f64,
    /// The share of the part this device is (1/8 for a CPX partition of MI300X), for the
    /// levels the database gives per part (DRAM, MALL, L2).
    pub share: f64,
    /// The clock peaks are derived at, MHz (None: the database's).
    pub clock_mhz: Option<f64>,
    /// Roofs measured on the machine, which stand in for the datasheet's where they exist.
    pub measured: Option<std::sync::Arc<super::measured::Roofs>>,
}

impl<'d> Device<'d> {
    /// `gpu` as `agent` reports it: its CU count (a partition's), its clock.
    pub fn new(gpu: &'d Gpu, agent: &Agent) -> Device<'d> {
        let part_cus = gpu.compute_units().unwrap_or(0.0) / gpu.devices_per_package();
        let compute_units = agent.compute_units.filter(|&c| c > 0).map_or(part_cus, f64::from);
        let share = if part_cus > 0.0 { (compute_units / part_cus).min(1.0) } else { 1.0 } / gpu.devices_per_package();
        let clock_mhz = agent.max_clock_mhz.filter(|&c| c > 0).map(f64::from);
        Device { gpu, compute_units, share, clock_mhz, measured: None }
    }

    /// This device judged against `roofs`, measured on it, where they give a roof.
    pub fn with_measured(self, roofs: Option<std::sync::Arc<super::measured::Roofs>>) -> Device<'d> {
        Device { measured: roofs, ..self }
    }

    /// The measured peak of `precision` on `pipe`, where one was measured.
    fn measured_peak(&self, precision: Precision, pipe: Pipe) -> Option<f64> {
        self.measured.as_ref()?.peaks.get(&(precision, pipe)).copied()
    }

    /// The part whole, at its datasheet clock.
    pub fn datasheet(gpu: &'d Gpu) -> Device<'d> {
        Device::new(gpu, &Agent::default())
    }

    /// Peak TFLOP/s (TOP/s): CU × clock × rate where the rate is known, the database's figure
    /// scaled to this device's share otherwise.
    pub fn peak(&self, precision: Precision, pipe: Pipe) -> Option<f64> {
        self.measured_peak(precision, pipe).or_else(|| self.datasheet_peak(precision, pipe))
    }

    /// The datasheet's peak (CU × clock × rate, or the database's figure), measured or not.
    pub fn datasheet_peak(&self, precision: Precision, pipe: Pipe) -> Option<f64> {
        let clock = self.clock_mhz.or_else(|| self.gpu.peak_clock_mhz(precision, pipe));
        match (self.gpu.rate(precision, pipe), clock) {
            (Some(rate), Some(clock)) => Some(self.compute_units * clock * rate / 1e6),
            _ => self.gpu.peak(precision, pipe).map(|p| p * self.cu_share()),
        }
    }

    /// Peak bandwidth of `level`, TB/s: per-CU levels as CU × clock × bytes per clock; the
    /// rest as the part's figure times this device's share.
    pub fn bandwidth(&self, level: Level) -> Option<f64> {
        let measured = self.measured.as_ref().and_then(|m| m.bandwidth.get(&level).copied());
        measured.or_else(|| self.datasheet_bandwidth(level))
    }

    /// The datasheet's bandwidth of `level`, measured or not.
    pub fn datasheet_bandwidth(&self, level: Level) -> Option<f64> {
        let engine = self.gpu.value("peak_engine_clock_mhz");
        let clock = self.clock_mhz.or(engine);
        match (level, self.gpu.bytes_per_clock_per_cu(level), clock) {
            (Level::L1 | Level::Lds, Some(bytes), Some(clock)) => Some(self.compute_units * clock * bytes / 1e6),
            (Level::L1 | Level::Lds, _, _) => self.gpu.bandwidth(level).map(|b| b * self.cu_share()),
            (Level::L2, _, _) => {
                let at_clock = clock.zip(engine).map_or(1.0, |(c, d)| c / d);
                self.gpu.bandwidth(level).map(|b| b * self.share * at_clock)
            }
            _ => self.gpu.bandwidth(level).map(|b| b * self.share),
        }
    }

    /// Instructions its schedulers can issue per second, at one per scheduler (SIMD) per clock:
    /// the issue-slot roof.
    pub fn issue_per_second(&self) -> Option<f64> {
        let clock = self.clock_mhz.or_else(|| self.gpu.value("peak_engine_clock_mhz"))?;
        let schedulers = self.gpu.value("simds_per_cu")?;
        Some(self.compute_units * schedulers * clock * 1e6)
    }

    /// This device's CUs over the part's.
    fn cu_share(&self) -> f64 {
        self.gpu.compute_units().map_or(1.0, |cu| self.compute_units / cu)
    }

    /// The arithmetic intensity (FLOP per byte of `level`) where `precision` on `pipe` stops
    /// being bound by `level`.
    pub fn ridge(&self, precision: Precision, pipe: Pipe, level: Level) -> Option<f64> {
        Some(self.peak(precision, pipe)? / self.bandwidth(level)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> &'static Database {
        Database::builtin().expect("gpus.toml parses")
    }

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance * b.abs().max(1e-12)
    }

    #[test]
    fn the_database_has_every_part_the_analysis_promises() {
        let ids: Vec<&str> = db().gpus.iter().map(|g| g.id.as_str()).collect();
        for id in [
            "mi300x",
            "mi325x",
            "mi355x",
            "mi350x",
            "mi250x",
            "mi210",
            "mi100",
            "rx7900xtx",
            "w7900",
            "radeon8060s",
            "h100_sxm5",
            "h200_sxm",
        ] {
            assert!(ids.contains(&id), "{id} missing from {ids:?}");
        }
    }

    #[test]
    fn every_number_names_a_source_the_database_lists() {
        for gpu in &db().gpus {
            for (key, metric) in gpu.metrics() {
                if matches!(metric.kind, Provenance::Published | Provenance::Measured) {
                    assert!(!metric.src.is_empty(), "{}.{key}: {:?} without a source", gpu.id, metric.kind);
                }
                if metric.kind == Provenance::Measured {
                    assert!(metric.formula.is_some(), "{}.{key}: measured without the formula from the run", gpu.id);
                }
                if metric.kind == Provenance::Derived {
                    assert!(
                        metric.formula.is_some() || !metric.src.is_empty(),
                        "{}.{key}: derived without a formula",
                        gpu.id
                    );
                }
                if metric.kind == Provenance::Null {
                    assert!(metric.value.is_none(), "{}.{key}: null with a value", gpu.id);
                } else if key != "partition_modes" {
                    assert!(metric.value.is_some(), "{}.{key}: {:?} without a value", gpu.id, metric.kind);
                }
                for src in &metric.src {
                    let id = src.split([':', ' ']).next().unwrap_or_default();
                    assert!(
                        src.starts_with("derived") || db().sources.contains_key(id),
                        "{}.{key}: unknown source {id}",
                        gpu.id
                    );
                }
            }
        }
    }

    /// Each published peak is CU × clock × rate, within AMD's and NVIDIA's rounding.
    #[test]
    fn every_published_peak_is_cus_times_clock_times_rate() {
        let mut checked = 0;
        for gpu in &db().gpus {
            for precision in Precision::ALL {
                for pipe in [Pipe::Vector, Pipe::Matrix] {
                    let (Some(peak), Some(rate)) = (gpu.peak(precision, pipe), gpu.rate(precision, pipe)) else {
                        continue;
                    };
                    let cus = gpu.compute_units().unwrap();
                    let derived = cus * gpu.peak_clock_mhz(precision, pipe).unwrap() * rate / 1e6;
                    assert!(
                        close(derived, peak, 0.01),
                        "{} {} {}: {peak} published, {cus} CU × clock × {rate} = {derived}",
                        gpu.id,
                        precision.name(),
                        pipe.name()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 80, "only {checked} peaks had rates");
    }

    /// MI300X: the ridge points are the ratios of the datasheet figures (5.3 TB/s HBM3).
    #[test]
    fn mi300x_ridge_points_are_the_datasheet_ratios() {
        let mi300x = db().get("mi300x").unwrap();
        let device = Device::datasheet(mi300x);
        for (precision, pipe, datasheet_tflops) in [
            (Precision::Fp64, Pipe::Vector, 81.7),
            (Precision::Fp64, Pipe::Matrix, 163.4),
            (Precision::Fp32, Pipe::Matrix, 163.4),
            (Precision::Tf32, Pipe::Matrix, 653.7),
            (Precision::Fp16, Pipe::Matrix, 1307.4),
            (Precision::Bf16, Pipe::Matrix, 1307.4),
            (Precision::Fp8, Pipe::Matrix, 2614.9),
            (Precision::Int8, Pipe::Matrix, 2614.9),
        ] {
            let ridge = device.ridge(precision, pipe, Level::Dram).unwrap();
            let datasheet = datasheet_tflops / 5.3;
            // The datasheet figures are rounded to 0.1 TFLOP/s; the derived peak is exact.
            assert!(close(ridge, datasheet, 0.001), "{precision:?} {pipe:?}: {ridge} vs {datasheet}");
        }
        assert!(close(device.ridge(Precision::Fp16, Pipe::Matrix, Level::Dram).unwrap(), 246.68, 0.001));
        assert!(close(device.ridge(Precision::Fp64, Pipe::Vector, Level::Dram).unwrap(), 15.42, 0.001));
    }

    #[test]
    fn a_cpx_partition_gets_its_share_of_compute_and_memory() {
        let mi300x = db().get("mi300x").unwrap();
        let agent = Agent { target: "gfx942".into(), compute_units: Some(38), ..Agent::default() };
        let cpx = Device::new(mi300x, &agent);
        // 38 CUs × 2100 MHz × 128 FLOP/clk = 10.2144 TFLOP/s.
        assert!(close(cpx.peak(Precision::Fp64, Pipe::Vector).unwrap(), 10.2144, 1e-9));
        // One XCD of eight: its own L2, an eighth of the HBM (when every partition is busy).
        assert!(close(cpx.bandwidth(Level::Dram).unwrap(), 5.3 / 8.0, 1e-9));
        assert!(close(cpx.bandwidth(Level::Lds).unwrap(), 38.0 * 2100.0 * 128.0 / 1e6, 1e-9));
    }

    #[test]
    fn a_lower_clock_lowers_every_clocked_peak_and_not_the_hbm() {
        let mi300x = db().get("mi300x").unwrap();
        let agent = Agent { max_clock_mhz: Some(1050), ..Agent::default() };
        let slow = Device::new(mi300x, &agent);
        assert!(close(slow.peak(Precision::Fp16, Pipe::Matrix).unwrap(), 1307.4 / 2.0, 0.001));
        assert!(close(slow.bandwidth(Level::L2).unwrap(), 34.41 / 2.0, 0.001));
        assert!(close(slow.bandwidth(Level::Dram).unwrap(), 5.3, 1e-9));
    }

    #[test]
    fn one_mi250x_die_is_half_the_package() {
        let mi250x = db().get("mi250x").unwrap();
        let die = Device::datasheet(mi250x);
        assert!(close(die.compute_units, 110.0, 1e-9));
        assert!(close(die.peak(Precision::Fp64, Pipe::Vector).unwrap(), 47.9 / 2.0, 0.01));
        assert!(close(die.bandwidth(Level::Dram).unwrap(), 3.2768 / 2.0, 1e-9));
    }

    /// H100 SXM5's levels as ncu 2025.3.1 reported them (peak_sustained × the unit's clock, at
    /// 1.978 GHz for the L1 and shared memory, where the database's clock is 1980 MHz); the PCIe
    /// card takes the same per-SM rates at its own SMs and clock, and no L2 figure; the H200 the
    /// SXM5's L2.
    #[test]
    fn hopper_levels_are_the_measured_peaks() {
        let sxm = Device::datasheet(db().get("h100_sxm5").unwrap());
        assert!(close(sxm.bandwidth(Level::Dram).unwrap(), 3.35, 1e-9));
        assert!(close(sxm.bandwidth(Level::L2).unwrap(), 7680.0 * 1.7086e9 / 1e12, 0.001));
        assert!(close(sxm.bandwidth(Level::L1).unwrap(), 133.7, 0.002));
        assert!(close(sxm.bandwidth(Level::Lds).unwrap(), 33.4, 0.002));
        assert!(close(sxm.bandwidth(Level::Lds).unwrap(), 132.0 * 1980.0 * 128.0 / 1e6, 1e-9));
        let pcie = Device::datasheet(db().get("h100_pcie").unwrap());
        assert!(close(pcie.bandwidth(Level::L1).unwrap(), 114.0 * 1755.0 * 512.0 / 1e6, 1e-9));
        assert!(close(pcie.bandwidth(Level::Lds).unwrap(), 114.0 * 1755.0 * 128.0 / 1e6, 1e-9));
        assert_eq!(pcie.bandwidth(Level::L2), None, "its L2 clock was not measured");
        let h200 = Device::datasheet(db().get("h200_sxm").unwrap());
        assert!(close(h200.bandwidth(Level::L2).unwrap(), 13.12, 1e-9));
        assert!(close(h200.bandwidth(Level::L1).unwrap(), sxm.bandwidth(Level::L1).unwrap(), 1e-9));
    }

    #[test]
    fn agents_find_their_part_by_product_or_target() {
        let find = |target: &str, product: &str, cus: Option<u32>| {
            let agent =
                Agent { target: target.into(), product_name: product.into(), compute_units: cus, ..Agent::default() };
            db().find(&agent).map(|g| g.id.as_str())
        };
        assert_eq!(find("gfx942", "AMD Instinct MI300X", Some(304)), Some("mi300x"));
        assert_eq!(find("gfx942", "AMD Instinct MI325X", Some(304)), Some("mi325x"));
        assert_eq!(find("gfx950", "AMD Instinct MI355X", Some(256)), Some("mi355x"));
        assert_eq!(find("gfx90a", "", Some(104)), Some("mi210"));
        assert_eq!(find("gfx90a", "", Some(110)), Some("mi250x"), "one of its two dies");
        assert_eq!(find("gfx942", "AMD Instinct MI300A", Some(228)), None, "not in the database");
        assert_eq!(find("gfx908", "", None), Some("mi100"));
        assert_eq!(find("9.0", "NVIDIA H100 80GB HBM3", None), Some("h100_sxm5"));
        assert_eq!(find("9.0", "NVIDIA H100 PCIe", None), Some("h100_pcie"));
        assert_eq!(find("9.0", "NVIDIA H200", None), Some("h200_sxm"));
        assert_eq!(find("gfx1030", "AMD Radeon RX 6800", None), None);
    }
}
