//! `rocprof-rs diff A B`: which kernels got slower or faster between two runs, and how sure
//! that is; exits 1 when any regressed, for CI.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use rocprof_rs_analysis::analyze::diff::{self, KernelDiff, Options, Report, Verdict};
use rocprof_rs_analysis::stats::render::human_ns;

use super::stats::Format;

/// The options of `rocprof-rs diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The baseline dataset.
    a: PathBuf,
    /// The dataset to compare with it.
    b: PathBuf,
    /// A kernel changed when its median moved by more than this: `2%` or `0.02`.
    #[arg(long, default_value = "2%", value_parser = parse_share)]
    threshold: f64,
    /// The confidence the rank test must reach for a change to count (0.99: p < 0.01).
    #[arg(long, default_value_t = 0.99)]
    confidence: f64,
    /// Only this process in both.
    #[arg(long)]
    pid: Option<u32>,
    /// table, csv or json.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Cut names to this many characters in the table.
    #[arg(long, default_value_t = 60)]
    width: usize,
}

/// A `--threshold` that is not a share.
#[derive(Debug, PartialEq, thiserror::Error)]
enum ShareError {
    #[error("{0:?} is not a share: write 2% or 0.02")]
    NotANumber(String),
    #[error("{0:?}: the threshold must be between 0% and 100%")]
    OutOfRange(String),
}

/// `2%`, `0.02`, or `2` (a bare number of 1 or more is a percentage).
fn parse_share(text: &str) -> Result<f64, ShareError> {
    let (number, percent) = match text.trim().strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (text.trim(), false),
    };
    let value: f64 = number.parse().map_err(|_| ShareError::NotANumber(text.to_owned()))?;
    let share = if percent || value >= 1.0 { value / 100.0 } else { value };
    if !(0.0..1.0).contains(&share) {
        return Err(ShareError::OutOfRange(text.to_owned()));
    }
    Ok(share)
}

/// Runs `diff`: exit 0 when nothing regressed, 1 when something did, 2 on an error.
pub fn diff(args: DiffArgs) -> ExitCode {
    let read = |dir: &Path| diff::read_run(dir, args.pid);
    let (a, b) = match (read(&args.a), read(&args.b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("rocprof-rs: {e}");
            return ExitCode::from(2);
        }
    };
    if !(0.0..1.0).contains(&args.confidence) {
        eprintln!("rocprof-rs: --confidence {}: expected a probability below 1, such as 0.99", args.confidence);
        return ExitCode::from(2);
    }
    let report = diff::compare(&a, &b, Options { threshold: args.threshold, confidence: args.confidence });
    match args.format {
        Format::Json => match serde_json::to_string_pretty(&report) {
            Ok(text) => std::println!("{text}"),
            Err(e) => {
                eprintln!("rocprof-rs: cannot encode the diff as JSON: {e}");
                return ExitCode::from(2);
            }
        },
        Format::Csv => std::print!("{}", csv(&report)),
        Format::Table => print!("{}", table(&report, args.width)),
    }
    if report.regressions().next().is_some() { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

fn change_text(k: &KernelDiff) -> String {
    k.change.map_or_else(|| "-".to_owned(), |c| format!("{:+.1}%", 100.0 * c))
}

fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Regressed => "REGRESSED",
        Verdict::Improved => "improved",
        Verdict::Unchanged => "unchanged",
        Verdict::New => "new",
        Verdict::Missing => "missing",
    }
}

fn table(report: &Report, width: usize) -> String {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    table.set_header(["kernel", "verdict", "change", "confidence", "median A", "median B", "calls A", "calls B"]);
    for k in &report.kernels {
        let name = rocprof_rs_analysis::terminal::cell(&k.name, width);
        let median = |calls: u64, ns: u64| if calls == 0 { "-".to_owned() } else { human_ns(ns as f64) };
        table.add_row([
            Cell::new(name),
            Cell::new(verdict_text(k.verdict)),
            Cell::new(change_text(k)),
            Cell::new(k.confidence.map_or_else(|| "-".to_owned(), |c| format!("{:.1}%", 100.0 * c))),
            Cell::new(median(k.calls_a, k.median_a_ns)),
            Cell::new(median(k.calls_b, k.median_b_ns)),
            Cell::new(k.calls_a),
            Cell::new(k.calls_b),
        ]);
    }
    for column in 2..8 {
        if let Some(c) = table.column_mut(column) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let total = report.total_b_ns as f64 / (report.total_a_ns as f64).max(1.0) - 1.0;
    let regressed = report.regressions().count();
    format!(
        "{table}\nGPU kernel time {} → {} ({:+.1}%); {regressed} regressed beyond {:.1}% at {:.1}% confidence\n",
        human_ns(report.total_a_ns as f64),
        human_ns(report.total_b_ns as f64),
        100.0 * total,
        100.0 * report.threshold,
        100.0 * report.confidence
    )
}

fn csv(report: &Report) -> String {
    let mut out = String::from(
        "Kernel_Name,Verdict,Change,Confidence,Median_A_ns,Median_B_ns,Calls_A,Calls_B,Total_A_ns,Total_B_ns\n",
    );
    for k in &report.kernels {
        let opt = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.6}"));
        let _ = writeln!(
            out,
            "\"{}\",{},{},{},{},{},{},{},{},{}",
            k.name.replace('"', "\"\""),
            verdict_text(k.verdict),
            opt(k.change),
            opt(k.confidence),
            k.median_a_ns,
            k.median_b_ns,
            k.calls_a,
            k.calls_b,
            k.total_a_ns,
            k.total_b_ns
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::parse_share;

    #[test]
    fn thresholds_read_as_shares() {
        assert_eq!(parse_share("2%"), Ok(0.02));
        assert_eq!(parse_share("0.05"), Ok(0.05));
        assert_eq!(parse_share("5"), Ok(0.05));
        assert!(parse_share("150%").is_err());
        assert!(parse_share("abc").unwrap_err().to_string().contains("2% or 0.02"));
    }
}
