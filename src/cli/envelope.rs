//! One contract for every `--format json` output: an envelope that says what the document is
//! (`schema`, `schema_version`), what wrote it (`tool_version`, `command`) and what it describes
//! (`dataset`), with the command's own fields beside them.
//!
//! Each output's JSON Schema is derived from the types that print it, so the published schemas
//! (`docs/schemas`, written by `rocprof-rs json-schemas --out`) cannot drift from the code
//! unseen: `json-schemas --check` fails on any difference, and the schemas forbid fields they
//! do not name. Versioning: a field added is a minor version (`1.1`); a field removed, renamed or
//! changed in meaning or type is a major one (`2.0`).

use std::io::Write;
use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;

/// The version of every output's schema; see the module's versioning rule.
pub const SCHEMA_VERSION: &str = "1.0";

/// Where the published schemas live, relative to the repository's root.
pub const SCHEMAS_DIR: &str = "docs/schemas";

/// A rocprof-rs `--format json` document: what it is and what wrote it (`schema`,
/// `schema_version`, `tool_version`, `command`, `dataset`), then the command's own fields.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Envelope<T> {
    /// What this document is: `rocprof-rs/<output>`, described by
    /// `docs/schemas/<output>.schema.json`.
    pub schema: String,
    /// The schema's version: the minor number grows with additions, the major one with removals
    /// and changes.
    pub schema_version: String,
    /// The rocprof-rs that wrote the document.
    pub tool_version: String,
    /// The subcommand that printed it (`stats`, `doctor`, ...).
    pub command: String,
    /// The dataset (or input) the document describes, as given; null where there is none
    /// (`avail`, `doctor`).
    pub dataset: Option<String>,
    #[serde(flatten)]
    pub body: T,
}

/// Every JSON output, each with its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Stats,
    Analyze,
    Diff,
    Score,
    Ranks,
    Hotspots,
    Avail,
    AvailNvidia,
    Doctor,
    Roofs,
    Import,
    Export,
    Demo,
}

impl Output {
    pub const ALL: [Output; 13] = [
        Output::Stats,
        Output::Analyze,
        Output::Diff,
        Output::Score,
        Output::Ranks,
        Output::Hotspots,
        Output::Avail,
        Output::AvailNvidia,
        Output::Doctor,
        Output::Roofs,
        Output::Import,
        Output::Export,
        Output::Demo,
    ];

    /// The output's name: its schema is `docs/schemas/<name>.schema.json`.
    pub fn name(self) -> &'static str {
        match self {
            Output::Stats => "stats",
            Output::Analyze => "analyze",
            Output::Diff => "diff",
            Output::Score => "score",
            Output::Ranks => "ranks",
            Output::Hotspots => "hotspots",
            Output::Avail => "avail",
            Output::AvailNvidia => "avail-nvidia",
            Output::Doctor => "doctor",
            Output::Roofs => "doctor-roofs",
            Output::Import => "import",
            Output::Export => "export",
            Output::Demo => "demo",
        }
    }

    /// The subcommand that prints it.
    pub fn command(self) -> &'static str {
        match self {
            Output::AvailNvidia => "avail",
            Output::Roofs => "doctor",
            other => other.name(),
        }
    }

    /// The file its schema is published as.
    pub fn file_name(self) -> String {
        format!("{}.schema.json", self.name())
    }

    /// The envelope of `body`, printed by this output about `dataset`.
    pub fn envelope<T>(self, dataset: Option<&Path>, body: T) -> Envelope<T> {
        Envelope {
            schema: format!("rocprof-rs/{}", self.name()),
            schema_version: SCHEMA_VERSION.to_owned(),
            tool_version: env!("CARGO_PKG_VERSION").to_owned(),
            command: self.command().to_owned(),
            dataset: dataset.map(|d| d.display().to_string()),
            body,
        }
    }

    /// Writes the envelope of `body` to `out` as pretty JSON, ended by a line.
    pub fn write<T: Serialize>(self, dataset: Option<&Path>, body: T, out: &mut impl Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &self.envelope(dataset, body)).map_err(std::io::Error::from)?;
        writeln!(out)
    }

    /// Prints the envelope of `body` on standard output.
    pub fn print<T: Serialize>(self, dataset: Option<&Path>, body: T) -> std::io::Result<()> {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        self.write(dataset, body, &mut out)?;
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_sits_beside_the_envelope() {
        #[derive(Serialize)]
        struct Body {
            kernels: Vec<u32>,
        }
        let doc =
            serde_json::to_value(Output::Hotspots.envelope(Some(Path::new("run")), Body { kernels: vec![1] })).unwrap();
        assert_eq!(doc["schema"], "rocprof-rs/hotspots");
        assert_eq!(doc["schema_version"], SCHEMA_VERSION);
        assert_eq!(doc["dataset"], "run");
        assert_eq!(doc["command"], "hotspots");
        assert_eq!(doc["kernels"], serde_json::json!([1]));
    }
}
