//! `rocprof-rs import`: other profilers' outputs as a rocprof-rs dataset.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// The options of `rocprof-rs import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// rocprofv3 CSV output directories or results.json, rocpd databases, rocprof v1 results.csv or
    /// results.json, rocprof-compute workload folders or their CSV files.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The dataset directory to write (created if needed; existing files are never replaced).
    #[arg(short = 'o', long, value_name = "DIR")]
    output: PathBuf,
    /// The file-name stem of the imported files.
    #[arg(long, default_value = "imported")]
    name: String,
    /// text or json: what was imported.
    #[arg(long, value_name = "text|json", default_value = "text")]
    format: super::TextOrJson,
}

/// Runs `import`.
pub fn import(args: ImportArgs) -> ExitCode {
    match rocprof_rs_analysis::import::import(&args.inputs, &args.output, &args.name) {
        Ok(report) => {
            if args.format == super::TextOrJson::Json {
                std::println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
            } else {
                for input in &report.inputs {
                    let rows: u64 = input.files.iter().map(|(_, n)| n).sum();
                    println!("{}: {} ({} files, {rows} rows)", input.input, input.format, input.files.len());
                    for note in &input.notes {
                        println!("  note: {note}");
                    }
                }
                let tables: Vec<String> = report.rows.iter().map(|(t, n)| format!("{t} {n}")).collect();
                println!("wrote {} under {}", tables.join(", "), report.output);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rocprof-rs: import failed, nothing written: {e}");
            ExitCode::FAILURE
        }
    }
}
