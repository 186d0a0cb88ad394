//! `rocprof-rs analyze`: where each kernel stands on the roofline, what limits it, and what to
//! try first.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use rocprof_rs_analysis::analyze::kept;
use rocprof_rs_analysis::analyze::specs::{Level, Pipe, Precision};
use rocprof_rs_analysis::analyze::{self, Analysis, KernelAnalysis, Options, Streamed};
use rocprof_rs_analysis::hotspots;
use rocprof_rs_analysis::terminal::TABLE_ROWS;
use rocprof_rs_analysis::units::human_ns;
use rocprof_rs_format::publish::OutputFile;

use super::listing::Format;

/// The options of `rocprof-rs analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// A dataset directory (a run, or an import), or a kernel-optimisation results JSON.
    path: PathBuf,
    /// Only kernels whose name matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    kernel: Option<String>,
    /// table, csv or json.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// The GPU to hold kernels against, by database id (mi300x, mi355x, h100_sxm5, ...), where
    /// the trace does not name it (imports) or for a kernel-optimisation results JSON (default there: mi300x).
    #[arg(long, value_name = "ID")]
    gpu: Option<String>,
    /// Only this process.
    #[arg(long)]
    pid: Option<u32>,
    /// Write the roofline chart here as SVG.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Kernels explained in detail, with their recommendations (table format).
    #[arg(long, default_value_t = 5)]
    top: usize,
    /// Take dispatch times from this dataset (another run of the same program), by kernel name
    /// (demangled, without `[clone .kd]`, `(.kd)` or `.kd`; by the bare function name where
    /// that is one kernel's): for counter files without timestamps (rocprof v1, rocprof-compute).
    #[arg(long, value_name = "DIR")]
    timings: Option<PathBuf>,
    /// Take PC samples (the stall mix that tells latency from issue or barriers) from this
    /// dataset, another run of the same program, by kernel name: CUPTI cannot sample PCs in a
    /// run that collects counters.
    #[arg(long, value_name = "DIR")]
    samples: Option<PathBuf>,
    /// The measured roofs to judge against: a file `rocprof-rs doctor --measure-roofs` wrote
    /// (used for every GPU of its kind, before the dataset's own), or `datasheet` for the
    /// datasheet's alone. Without it: the roofs the dataset carries (an imported roofline.csv),
    /// else the newest measurement kept for a GPU of the same kind and SM count. (A file named
    /// `datasheet` is `./datasheet`.)
    #[arg(long, value_name = "FILE|datasheet")]
    roofs: Option<PathBuf>,
    /// What a results JSON's flops_estimated are: PRECISION-PIPE, e.g. fp16-matrix (the default),
    /// fp32-vector.
    #[arg(long, value_name = "PRECISION-PIPE", value_parser = parse_estimated)]
    estimated: Option<(Precision, Pipe)>,
    /// Memory for the external sorts that keep it within bounds on any number of kernels (bytes,
    /// or with K, M or G; at least 4K). Beyond it, summaries go to temporary files under TMPDIR
    /// and are merged; the output is the same.
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = rocprof_rs_analysis::spill::parse_size)]
    memory: usize,
}

/// An `--estimated` that names no precision and pipe.
#[derive(Debug, thiserror::Error)]
enum EstimatedError {
    #[error("{0:?}: write PRECISION-PIPE, e.g. fp16-matrix")]
    Shape(String),
    #[error("{0:?}: expected fp64, fp32, tf32, fp16, bf16, fp8, fp6, fp4, int8 or int4")]
    Precision(String),
    #[error("{0:?}: expected vector or matrix")]
    Pipe(String),
}

fn parse_estimated(text: &str) -> Result<(Precision, Pipe), EstimatedError> {
    let (precision, pipe) = text.split_once('-').ok_or_else(|| EstimatedError::Shape(text.to_owned()))?;
    let precision = Precision::ALL
        .into_iter()
        .find(|p| p.name() == precision)
        .ok_or_else(|| EstimatedError::Precision(precision.to_owned()))?;
    let pipe = match pipe {
        "vector" => Pipe::Vector,
        "matrix" => Pipe::Matrix,
        other => return Err(EstimatedError::Pipe(other.to_owned())),
    };
    Ok((precision, pipe))
}

/// Runs `analyze`.
pub fn analyze(args: AnalyzeArgs) -> ExitCode {
    rocprof_rs_analysis::spill::set_memory(args.memory);
    let kernel = match args.kernel.as_deref().map(regex::Regex::new).transpose() {
        Ok(re) => re,
        Err(e) => {
            eprintln!("rocprof-rs: --kernel: {e}");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        pid: args.pid,
        kernel,
        gpu: args.gpu.clone(),
        estimated: args.estimated,
        timings: args.timings.clone(),
        samples: args.samples.clone(),
        roofs: match kept::choice(args.roofs.as_deref()) {
            Ok((choice, problems)) => {
                for problem in problems {
                    eprintln!("rocprof-rs: {problem}");
                }
                choice
            }
            Err(e) => {
                eprintln!("rocprof-rs: --roofs: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    // Refused before the analysis: a device or FIFO is never an output, and several GPUs'
    // charts would go beside it (`/dev/null-mi300x.svg`).
    if let Some(path) = args.svg.as_ref().filter(|p| std::fs::metadata(p).is_ok_and(|m| !m.is_file())) {
        eprintln!(
            "rocprof-rs: --svg {}: not a regular file (a device, FIFO, socket or folder is never replaced by an output)",
            path.display()
        );
        return ExitCode::FAILURE;
    }
    let analysis = match analyze::analyze_streamed(&args.path, &options) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::FAILURE;
        }
    };
    // What stats warns of (files never completed, records dropped), once the dataset was read:
    // a folder of incomplete files alone is the analysis's own one-line error.
    if args.path.is_dir() {
        let warnings = rocprof_rs_analysis::stats::health::warnings(&args.path).unwrap_or_default();
        warnings.iter().for_each(|w| eprintln!("rocprof-rs: warning: {w}"));
    }
    if let Some(j) = analysis.timings.as_ref().filter(|j| j.matched < j.kernels) {
        // On stderr too: a kernel left without times reads as 0 ns in every format.
        eprintln!(
            "rocprof-rs: warning: --timings: {} of {} kernels have no dispatch times from {} (the notes say which)",
            j.kernels - j.matched,
            j.kernels,
            j.from
        );
    }
    if analysis.is_empty() {
        eprintln!("rocprof-rs: {}: no kernels to analyse", args.path.display());
        return ExitCode::FAILURE;
    }
    if let Some(path) = &args.svg {
        let charts = match analysis.first(analyze::svg::CHART_KERNELS) {
            Ok(kernels) => analyze::svg::charts(&Analysis {
                kernels,
                analysed: analysis.len(),
                devices: analysis.devices.clone(),
                notes: Vec::new(),
                timings: None,
                throttled: Vec::new(),
            }),
            Err(e) => {
                eprintln!("rocprof-rs: {e}");
                return ExitCode::FAILURE;
            }
        };
        if charts.is_empty() {
            eprintln!("rocprof-rs: no roofline chart: no kernel has counters (or estimates) and a known GPU");
        }
        match write_charts(path, charts) {
            Ok(files) => files.iter().for_each(|f| eprintln!("rocprof-rs: roofline chart in {}", f.display())),
            Err(e) => {
                eprintln!("rocprof-rs: --svg {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match args.format {
        Format::Json => super::envelope::Output::Analyze.write(Some(&args.path), &analysis, &mut out),
        Format::Csv => csv(&analysis, &mut out),
        // Names reach the terminal escaped (JSON and CSV keep their exact text).
        Format::Table => {
            let hot = hottest(&args.path);
            let mut escaped = rocprof_rs_analysis::terminal::Escaped::new(&mut out);
            text(&analysis, args.top, &hot, &mut escaped).and_then(|()| escaped.flush())
        }
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        eprintln!("rocprof-rs: standard output: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Each sampled kernel's hottest instructions, by name, for the detailed kernels' text.
type Hottest = std::collections::HashMap<String, Vec<hotspots::Instruction>>;

/// Instructions listed under a detailed kernel.
const HOT_INSTRUCTIONS: usize = 3;

/// The dataset's hottest instructions per kernel; none where it has no PC samples (or they
/// cannot be read, which the analysis's notes say).
fn hottest(path: &Path) -> Hottest {
    let rows = if path.is_dir() { hotspots::read_pc_samples(path).unwrap_or_default() } else { Vec::new() };
    hotspots::hotspots(&rows, HOT_INSTRUCTIONS).into_iter().map(|k| (k.kernel_name, k.instructions)).collect()
}

/// Writes each GPU's chart, `path` itself where there is one and `FILE-<gpu>.svg` beside it
/// where there are several: every file whole, and none unless all could be completed.
fn write_charts(path: &Path, charts: Vec<(String, String)>) -> Result<Vec<PathBuf>, super::report::WriteError> {
    let several = charts.len() > 1;
    let mut outputs = Vec::new();
    for (gpu, svg) in charts {
        let file = if several {
            let stem = path.file_stem().map_or_else(|| "roofline".into(), |s| s.to_string_lossy().into_owned());
            path.with_file_name(format!("{stem}-{gpu}.svg"))
        } else {
            path.to_path_buf()
        };
        let failed = |source| super::report::WriteError::File { path: file.clone(), source };
        let mut output = OutputFile::create(&file).map_err(failed)?;
        output.write_all(svg.as_bytes()).and_then(|()| output.complete()).map_err(failed)?;
        outputs.push(output);
    }
    let mut files = Vec::new();
    for output in outputs {
        let file = output.target().to_path_buf();
        output.commit().map_err(|source| super::report::WriteError::File { path: file.clone(), source })?;
        files.push(file);
    }
    Ok(files)
}

/// The kernel's DRAM intensity (or its outermost level's) and its top point's numbers; a kernel
/// that measurably did no FLOPs sits at intensity 0, its efficiency its busiest level's share.
fn position(k: &KernelAnalysis) -> (Option<f64>, Option<f64>, Option<f64>) {
    if let (None, Some(z)) = (k.points.first(), &k.zero_flops) {
        return (Some(0.0), Some(0.0), Some(z.efficiency));
    }
    let Some(p) = k.points.first() else { return (None, None, None) };
    let level = p.levels.iter().find(|l| l.level == Level::Dram).or(p.levels.first());
    (level.map(|l| l.intensity), Some(p.achieved_tflops), p.efficiency)
}

/// The kernels as terminal tables of [`TABLE_ROWS`] rows each (one for an ordinary run, so a
/// million kernels print in bounded memory), the devices' ceilings, the first `top` kernels in
/// detail, and the notes.
fn text(analysis: &Streamed, top: usize, hot: &Hottest, out: &mut impl Write) -> std::io::Result<()> {
    let mut chunk: Vec<Vec<Cell>> = Vec::new();
    let mut detailed = Vec::new();
    analysis.for_each(|k| {
        chunk.push(row_cells(&k));
        if detailed.len() < top {
            detailed.push(k);
        }
        if chunk.len() == TABLE_ROWS {
            print_table(std::mem::take(&mut chunk), out)?;
        }
        Ok::<bool, std::io::Error>(true)
    })?;
    if !chunk.is_empty() {
        print_table(chunk, out)?;
    }
    for d in &analysis.devices {
        let peaks: Vec<String> = d
            .peaks
            .iter()
            .filter(|p| {
                matches!(
                    (p.0, p.1),
                    (Precision::Fp64 | Precision::Fp32, Pipe::Vector) | (Precision::Fp16, Pipe::Matrix)
                )
            })
            .map(|(p, u, v)| format!("{} {} {v:.1}", p.name(), u.name()))
            .collect();
        let bws: Vec<String> = d.bandwidths.iter().map(|(l, b)| format!("{} {b:.2}", l.name())).collect();
        writeln!(out, "{}: TFLOP/s {}; TB/s {}", d.name, peaks.join(", "), bws.join(", "))?;
    }
    for k in &detailed {
        writeln!(out, "\n{} — {} ({:.1}% of kernel time)", k.name, k.diagnosis.class.name(), 100.0 * k.share)?;
        for e in &k.diagnosis.evidence {
            writeln!(out, "  because: {e}")?;
        }
        for f in &k.diagnosis.also {
            writeln!(out, "  also {}: {}", f.class.name(), f.evidence.join("; "))?;
        }
        for (i, r) in k.diagnosis.recommendations.iter().take(3).enumerate() {
            writeln!(out, "  {}. {} — up to {:.0}% ({})", i + 1, r.action, 100.0 * r.expected_gain, r.why)?;
        }
        for i in hot.get(&k.name).into_iter().flatten() {
            writeln!(out, "  hot: {}", hotspots::render::instruction_line(i))?;
        }
        let throttled =
            analysis.throttled.iter().find(|t| t.kernel_name == k.name && t.pid == k.pid && t.agent_id == k.agent_id);
        if let Some(t) = throttled {
            writeln!(
                out,
                "  throttled: its GPU's SM clock fell to {} MHz (from {} MHz under load) during {} of {} sampled dispatches{}",
                t.lowest_mhz,
                t.peak_mhz,
                t.throttled,
                t.sampled,
                if t.reasons.is_empty() { String::new() } else { format!("; reasons: {}", t.reasons.join(", ")) }
            )?;
        }
    }
    for note in &analysis.notes {
        writeln!(out, "note: {note}")?;
    }
    Ok(())
}

fn print_table(rows: Vec<Vec<Cell>>, out: &mut impl Write) -> std::io::Result<()> {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    table.set_header([
        "kernel",
        "gpu",
        "calls",
        "total",
        "%",
        "class",
        "FLOP/B",
        "TFLOP/s",
        "of roof",
        "occupancy",
        "waves",
        "first thing to try",
    ]);
    for row in rows {
        table.add_row(row);
    }
    for column in [2, 3, 4, 6, 7, 8, 9, 10] {
        if let Some(c) = table.column_mut(column) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(out, "{table}")
}

fn row_cells(k: &KernelAnalysis) -> Vec<Cell> {
    let opt = |v: Option<f64>, digits: usize| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.digits$}"));
    let (ai, tflops, efficiency) = position(k);
    let name = rocprof_rs_analysis::terminal::cell(&k.name, 48);
    let first = k
        .diagnosis
        .recommendations
        .first()
        .map_or_else(|| "-".to_owned(), |r| format!("{} (up to {:.0}%)", r.action, 100.0 * r.expected_gain));
    vec![
        Cell::new(name),
        Cell::new(k.gpu.as_deref().unwrap_or("-")),
        Cell::new(k.calls),
        Cell::new(human_ns(k.total_ns)),
        Cell::new(format!("{:.1}", 100.0 * k.share)),
        Cell::new(k.diagnosis.class.name()),
        Cell::new(opt(ai, 2)),
        Cell::new(opt(tflops, 3)),
        Cell::new(efficiency.map_or_else(|| "-".to_owned(), |e| format!("{:.0}%", 100.0 * e))),
        Cell::new(
            k.occupancy
                .as_ref()
                .map_or_else(|| "-".to_owned(), |o| format!("{}/{}", o.waves_per_simd, o.max_waves_per_simd)),
        ),
        Cell::new(k.occupancy.as_ref().and_then(|o| o.waves).map_or_else(|| "-".to_owned(), |w| format!("{w:.2}"))),
        Cell::new(first),
    ]
}

fn csv(analysis: &Streamed, out: &mut impl Write) -> std::io::Result<()> {
    out.write_all(
        b"Kernel_Name,Pid,Agent_Id,GPU,Calls,Total_ns,Mean_ns,Share,Class,Precision,Pipe,Intensity,Achieved_TFLOPs,Efficiency,Waves_Per_SIMD,Max_Waves_Per_SIMD,Top_Recommendation,Expected_Gain\n",
    )?;
    let opt = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.6}"));
    analysis.for_each(|k| {
        let (ai, tflops, efficiency) = position(&k);
        let p = k.points.first();
        let r = k.diagnosis.recommendations.first();
        writeln!(
            out,
            "\"{}\",{},{},{},{},{:.0},{:.1},{:.6},{},{},{},{},{},{},{},{},\"{}\",{}",
            k.name.replace('"', "\"\""),
            k.pid,
            k.agent_id,
            k.gpu.as_deref().unwrap_or(""),
            k.calls,
            k.total_ns,
            k.mean_ns,
            k.share,
            k.diagnosis.class.name(),
            p.map_or("", |p| p.precision.name()),
            p.map_or("", |p| p.pipe.name()),
            opt(ai),
            opt(tflops),
            opt(efficiency),
            k.occupancy.as_ref().map_or(String::new(), |o| o.waves_per_simd.to_string()),
            k.occupancy.as_ref().map_or(String::new(), |o| o.max_waves_per_simd.to_string()),
            r.map_or(String::new(), |r| r.action.replace('"', "\"\"")),
            r.map_or(String::new(), |r| format!("{:.4}", r.expected_gain)),
        )?;
        Ok::<bool, std::io::Error>(true)
    })
}
