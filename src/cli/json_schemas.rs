//! `rocprof-rs json-schemas`: publishes the JSON Schema of every `--format json` output, or
//! checks that the published ones are what this build prints.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::bodies::{ChipsBody, DiffBody, ExportBody, HotspotsBody, StatsBody};
use super::envelope::{Envelope, Output, SCHEMA_VERSION, SCHEMAS_DIR};

/// The options of `json-schemas`.
#[derive(Debug, Args)]
pub struct JsonSchemasArgs {
    /// Write every schema into this folder (each whole or not at all).
    #[arg(long, value_name = "DIR", conflicts_with = "check")]
    out: Option<PathBuf>,
    /// Compare every schema with the one in this folder; exit 1 naming each that differs or is
    /// missing (CI runs it on docs/schemas).
    #[arg(long, value_name = "DIR")]
    check: Option<PathBuf>,
}

/// Runs `json-schemas`: with neither option, lists the outputs and their schema files.
pub fn json_schemas(args: JsonSchemasArgs) -> ExitCode {
    if let Some(dir) = args.out {
        return write(&dir);
    }
    if let Some(dir) = args.check {
        return check(&dir);
    }
    for output in Output::ALL {
        println!("{}: {SCHEMAS_DIR}/{}", output.name(), output.file_name());
    }
    ExitCode::SUCCESS
}

fn write(dir: &std::path::Path) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("rocprof-rs: json-schemas --out {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    // Every schema is checked before any is written: all or none.
    let unversioned: Vec<String> = Output::ALL
        .into_iter()
        .filter(|output| changed_at_same_version(&dir.join(output.file_name()), &schema(*output)))
        .map(|output| output.file_name())
        .collect();
    if !unversioned.is_empty() {
        eprintln!(
            "rocprof-rs: json-schemas --out: {} changed in {}, and schema_version is still {SCHEMA_VERSION}: raise \
             SCHEMA_VERSION (src/cli/envelope.rs; a field added: minor, removed or changed: major), then write them",
            unversioned.join(", "),
            dir.display()
        );
        return ExitCode::FAILURE;
    }
    for output in Output::ALL {
        let path = dir.join(output.file_name());
        let written =
            super::listing::publish(&path, |file| std::io::Write::write_all(file, schema_text(output).as_bytes()));
        if let Err(e) = written {
            eprintln!("rocprof-rs: json-schemas: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Whether the schema published at `path` has the version this build prints and other fields
/// (descriptions aside) than `derived`: a change that needs a new version.
fn changed_at_same_version(path: &std::path::Path, derived: &serde_json::Value) -> bool {
    let text = rocprof_rs_format::input::read_text(path, rocprof_rs_format::input::JSON_LIMIT);
    let Some(published) = text.ok().and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok()) else {
        return false;
    };
    let version = &published["properties"]["schema_version"]["const"];
    version == SCHEMA_VERSION && fields(published.clone()) != fields(derived.clone())
}

/// `schema` without its descriptions: what a reader's code depends on.
fn fields(mut schema: serde_json::Value) -> serde_json::Value {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(object) => {
                if object.get("description").is_some_and(serde_json::Value::is_string) {
                    object.remove("description");
                }
                object.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut schema);
    schema
}

fn check(dir: &std::path::Path) -> ExitCode {
    let mut stale = 0;
    for output in Output::ALL {
        let path = dir.join(output.file_name());
        // A regular file of bounded size: a FIFO or a link to /dev/zero in its place is refused.
        match rocprof_rs_format::input::read_text(&path, rocprof_rs_format::input::JSON_LIMIT) {
            Ok(text) if text == schema_text(output) => {}
            Ok(_) => {
                eprintln!(
                    "rocprof-rs: {}: differs from what `{}` prints; if the change is meant, raise schema_version \
                     (a field added: minor; removed or changed: major) and run `rocprof-rs json-schemas --out {}`",
                    path.display(),
                    output.name(),
                    dir.display()
                );
                stale += 1;
            }
            Err(e) => {
                eprintln!("rocprof-rs: {}: {e}", path.display());
                stale += 1;
            }
        }
    }
    if stale == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// `output`'s JSON Schema (draft 2020-12), strict: an object has only the fields named.
fn schema(output: Output) -> serde_json::Value {
    let schema = match output {
        Output::Stats => derived::<Envelope<StatsBody>>(),
        Output::Analyze => derived::<Envelope<rocprof_rs_analysis::analyze::report::Analysis>>(),
        Output::Diff => derived::<Envelope<DiffBody<rocprof_rs_analysis::analyze::diff::Report>>>(),
        Output::Score => derived::<Envelope<rocprof_rs_analysis::analyze::fitness::Fitness>>(),
        Output::Ranks => derived::<Envelope<rocprof_rs_analysis::ranks::Report>>(),
        Output::Hotspots => derived::<Envelope<HotspotsBody>>(),
        Output::Avail => derived::<Envelope<rocprof_rs::backend::amd::avail::Inventory>>(),
        Output::AvailNvidia => derived::<Envelope<ChipsBody>>(),
        Output::Doctor => derived::<Envelope<crate::doctor::Report>>(),
        Output::Roofs => derived::<Envelope<crate::roofs::RoofsBody>>(),
        Output::Import => derived::<Envelope<rocprof_rs_analysis::import::Report>>(),
        Output::Export => derived::<Envelope<ExportBody<super::export::Written>>>(),
        Output::Demo => derived::<Envelope<super::demo::Report<'static>>>(),
    };
    let mut schema = schema.to_value();
    strict(&mut schema);
    let object = schema.as_object_mut().expect("a derived schema is an object");
    object.insert("$id".into(), format!("https://rocprof-rs.github.io/schemas/{}", output.file_name()).into());
    object.insert("title".into(), format!("rocprof-rs {} --format json", output.command()).into());
    if let Some(properties) = object.get_mut("properties").and_then(|p| p.as_object_mut()) {
        properties.insert("schema".into(), serde_json::json!({ "const": format!("rocprof-rs/{}", output.name()) }));
        properties.insert("schema_version".into(), serde_json::json!({ "const": SCHEMA_VERSION }));
        properties.insert("command".into(), serde_json::json!({ "const": output.command() }));
    }
    schema
}

/// `T`'s schema as it serialises: a field skipped when empty is not required.
fn derived<T: schemars::JsonSchema>() -> schemars::Schema {
    schemars::generate::SchemaSettings::draft2020_12().for_serialize().into_generator().into_root_schema_for::<T>()
}

/// The schema as published: pretty, ended by a line.
pub fn schema_text(output: Output) -> String {
    let mut text = serde_json::to_string_pretty(&schema(output)).expect("a schema encodes");
    text.push('\n');
    text
}

/// Forbids, in every object schema that names its fields, any field it does not name: a field
/// added to an output without a new schema then fails validation.
/// Only the keywords that hold schemas are walked: a field named `properties`, or a `const`
/// value, is not a schema.
fn strict(schema: &mut serde_json::Value) {
    use serde_json::Value;
    let Value::Object(object) = schema else { return };
    if object.contains_key("properties") && !object.contains_key("additionalProperties") {
        object.insert("additionalProperties".into(), false.into());
    }
    for key in ["properties", "$defs", "patternProperties"] {
        if let Some(Value::Object(schemas)) = object.get_mut(key) {
            schemas.values_mut().for_each(strict);
        }
    }
    for key in ["items", "additionalProperties", "propertyNames", "contains", "not"] {
        if let Some(schema) = object.get_mut(key) {
            strict(schema);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(schemas)) = object.get_mut(key) {
            schemas.iter_mut().for_each(strict);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_schemas_strict() {
        let names: std::collections::BTreeSet<_> = Output::ALL.iter().map(|o| o.name()).collect();
        assert_eq!(names.len(), Output::ALL.len());
        for output in Output::ALL {
            let schema = schema(output);
            assert_eq!(schema["additionalProperties"], false, "{}", output.name());
            assert_eq!(schema["properties"]["schema"]["const"], format!("rocprof-rs/{}", output.name()));
            for field in ["schema", "schema_version", "tool_version", "command", "dataset"] {
                assert!(
                    schema["required"].as_array().unwrap().iter().any(|r| r == field),
                    "{}: {field}",
                    output.name()
                );
            }
        }
    }
}
