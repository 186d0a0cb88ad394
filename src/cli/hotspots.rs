//! `rocprof-rs hotspots`: where inside each kernel its PC samples landed, hottest instruction
//! first, with each instruction's reasons and source line.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use rocprof_rs_analysis::hotspots;

use super::avail::TextOrJson;

/// The options of `rocprof-rs hotspots`.
#[derive(Debug, Args)]
pub struct HotspotsArgs {
    /// A dataset directory with PC samples (run --pc-sampling-beta-enabled, or an import of
    /// rocprofv3's pc_sampling_*.csv).
    path: PathBuf,
    /// Instructions listed per kernel.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Kernels listed, most samples first.
    #[arg(long, default_value_t = 10)]
    kernels: usize,
    /// Only kernels whose name matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    kernel: Option<String>,
    /// text or json.
    #[arg(long, value_enum, default_value = "text")]
    format: TextOrJson,
}

/// Runs `hotspots`.
pub fn hotspots(args: HotspotsArgs) -> ExitCode {
    let filter = match args.kernel.as_deref().map(regex::Regex::new).transpose() {
        Ok(re) => re,
        Err(e) => {
            eprintln!("rocprof-rs: --kernel: {e}");
            return ExitCode::from(2);
        }
    };
    if !args.path.is_dir() {
        eprintln!("rocprof-rs: {}: not a dataset directory", args.path.display());
        return ExitCode::FAILURE;
    }
    let mut rows = match hotspots::read_pc_samples(&args.path) {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(re) = &filter {
        rows.retain(|r| re.is_match(&r.kernel_name));
    }
    if rows.is_empty() {
        eprintln!(
            "rocprof-rs: {}: no PC samples{} (run with --pc-sampling-beta-enabled)",
            args.path.display(),
            if filter.is_some() { " of a kernel --kernel matches" } else { "" }
        );
        return ExitCode::FAILURE;
    }
    let kernels = hotspots::hotspots(&rows, args.top);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match args.format {
        TextOrJson::Json => {
            let shown = &kernels[..kernels.len().min(args.kernels)];
            super::envelope::Output::Hotspots.write(
                Some(&args.path),
                super::bodies::HotspotsBody { kernels: shown },
                &mut out,
            )
        }
        // Names and instruction text reach the terminal escaped (JSON keeps their exact text).
        TextOrJson::Text => {
            let mut escaped = rocprof_rs_analysis::terminal::Escaped::new(&mut out);
            hotspots::render::text(&kernels, args.kernels, &mut escaped).and_then(|()| escaped.flush())
        }
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        eprintln!("rocprof-rs: standard output: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
