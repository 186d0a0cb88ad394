//! `rocprof-rs run`: the tool library is configured only by environment variables, so the
//! command's whole job is to turn flags (and madengine profiles) into those variables, check
//! them before anything starts, and launch the application with the tool attached.
//!
//! Everything that decides a value is a pure function with unit tests; only [`launch`] touches
//! processes and signals.

mod analyze;
mod avail;
mod backend;
mod bodies;
mod demo;
mod diff;
mod embedded;
mod env;
mod envelope;
mod export;
mod flags;
mod hotspots;
mod import;
mod json_schemas;
mod launch;
mod listing;
mod mcp;
mod output_formats;
mod outputs;
mod profile;
mod ranks;
mod report;
mod run;
mod score;
mod stats;
pub(crate) mod tool_path;

pub use analyze::{AnalyzeArgs, analyze};
pub use avail::{AvailArgs, TextOrJson, avail};
pub use demo::{DemoArgs, WorkloadArgs, demo, workload};
pub use diff::{DiffArgs, diff};
pub use envelope::Output as JsonOutput;
pub use export::{ExportArgs, export};
pub use flags::{RunArgs, variables_help};
pub use hotspots::{HotspotsArgs, hotspots};
pub use import::{ImportArgs, import};
pub use json_schemas::{JsonSchemasArgs, json_schemas};
pub use mcp::{McpArgs, mcp};
pub use ranks::{RanksArgs, ranks};
pub use report::{ReportArgs, report};
pub use run::run;
pub use score::{ScoreArgs, score};
pub use stats::{StatsArgs, stats};
