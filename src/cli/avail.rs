//! `rocprof-rs avail`: what each agent can measure, as text or JSON.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use comfy_table::{Cell, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use rocprof_rs::backend::amd::avail::{Inventory, inventory};
use rocprof_rs::backend::amd::catalog::AgentInfo;

/// Text for people or JSON for programs, for commands that print a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TextOrJson {
    Text,
    Json,
}

/// The options of `rocprof-rs avail`.
#[derive(Debug, Args)]
pub struct AvailArgs {
    /// Print JSON: the agents with their counters, and each preset per GPU (the same as
    /// --format json).
    #[arg(long)]
    json: bool,
    /// text or json.
    #[arg(long, value_name = "text|json", default_value = "text")]
    format: TextOrJson,
    /// Only counters whose name contains this text (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// The rocprofiler-sdk library to ask (default: the one the dynamic loader finds).
    #[arg(long, value_name = "PATH")]
    sdk: Option<PathBuf>,
    /// NVIDIA: list this chip's metrics and presets (GH100, GA100, ...) with CUPTI's host API,
    /// with no GPU needed. Without it, the GPUs CUPTI sees are listed where no rocprofiler-sdk is.
    #[arg(long, value_name = "CHIP")]
    chip: Option<String>,
}

/// Runs `avail`.
pub fn avail(args: AvailArgs) -> ExitCode {
    if args.chip.is_some() {
        return nvidia(&args, None);
    }
    let sdk = match &args.sdk {
        Some(path) => rocprof_rs::backend::amd::sdk::sdk_from(path),
        None => rocprof_rs::backend::amd::sdk::sdk(),
    };
    let result = sdk.map_err(rocprof_rs::Error::from).and_then(inventory);
    let mut inventory = match result {
        Ok(inventory) => inventory,
        // No AMD profiler here: NVIDIA's, if CUPTI sees a GPU.
        Err(e) if args.sdk.is_none() => return nvidia(&args, Some(e.to_string())),
        Err(e) => {
            eprintln!("rocprof-rs: cannot list counters: {e}; `rocprof-rs doctor` says what is missing");
            return ExitCode::FAILURE;
        }
    };
    if let Some(filter) = &args.filter {
        let filter = filter.to_ascii_lowercase();
        for agent in &mut inventory.agents {
            if let Ok(counters) = &mut agent.counters {
                counters.retain(|c| c.name.to_ascii_lowercase().contains(&filter));
            }
        }
    }
    if args.json || args.format == TextOrJson::Json {
        if let Err(e) = super::envelope::Output::Avail.print(None, &inventory) {
            eprintln!("rocprof-rs: standard output: {e}");
            return ExitCode::FAILURE;
        }
    } else {
        print!("{}", render(&inventory));
    }
    ExitCode::SUCCESS
}

fn table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    table.set_header(header.iter().map(Cell::new));
    table
}

fn mib(bytes: u64) -> String {
    if bytes >= 1 << 30 { format!("{} GiB", bytes >> 30) } else { format!("{} MiB", bytes >> 20) }
}

/// The inventory as text: agents, presets per GPU, then each GPU's counters.
pub fn render(inventory: &Inventory) -> String {
    let mut out = String::new();
    let gpus: Vec<&AgentInfo> = inventory.agents.iter().filter(|a| a.gpu).collect();
    let _ = writeln!(out, "rocprofiler-sdk {}: {} GPU agent(s)\n", inventory.sdk_version, gpus.len());
    let mut agents = table(&[
        "agent", "product", "CUs", "SIMDs", "waves/CU", "wave", "XCDs", "clock", "memory", "L2", "LDS", "counters",
    ]);
    for a in &gpus {
        let counters = match &a.counters {
            Ok(c) => format!("{} ({} derived)", c.len(), c.iter().filter(|c| c.derived).count()),
            Err(why) => format!("none: {why}"),
        };
        agents.add_row(vec![
            a.label(),
            a.product.clone(),
            a.cu_count.to_string(),
            a.simd_count.to_string(),
            a.max_waves_per_cu.to_string(),
            a.wave_front_size.to_string(),
            a.num_xcc.to_string(),
            format!("{} MHz", a.max_engine_clock_mhz),
            mib(a.local_mem_bytes),
            mib(a.l2_bytes),
            format!("{} KiB", a.lds_kb),
            counters,
        ]);
    }
    let _ = writeln!(out, "{agents}\n");
    let mut header = vec!["preset"];
    let labels: Vec<String> = gpus.iter().map(|a| a.label()).collect();
    header.extend(labels.iter().map(String::as_str));
    let mut presets = table(&header);
    for preset in &inventory.presets {
        let mut row = vec![preset.name.to_owned()];
        for on in &preset.agents {
            row.push(match (&on.unavailable, on.complete) {
                (Some(_), _) => "no counters".to_owned(),
                (None, true) => format!("full ({})", on.counters.len()),
                (None, false) => format!("partial: no {}", on.missing.join(", ")),
            });
        }
        presets.add_row(row);
    }
    let _ = writeln!(out, "{presets}\n");
    for a in &gpus {
        let Ok(counters) = &a.counters else { continue };
        let _ = writeln!(out, "{} counters:", a.label());
        let mut list = table(&["counter", "kind", "instances", "description"]);
        for c in counters {
            let kind = if c.derived { "derived".to_owned() } else { c.block.clone() };
            list.add_row(vec![c.name.clone(), kind, c.instances.to_string(), c.description.clone()]);
        }
        let _ = writeln!(out, "{list}\n");
    }
    out
}

/// `avail` on NVIDIA: the chip named, or every GPU CUPTI sees. `amd` is why the AMD listing
/// failed, said where NVIDIA's fails too.
fn nvidia(args: &AvailArgs, amd: Option<String>) -> ExitCode {
    use rocprof_rs::backend::cupti::{counting::avail, load_for_listing};
    let fail = |why: String| {
        let amd = amd.as_deref().map(|a| format!("no AMD counters ({a}); ")).unwrap_or_default();
        eprintln!("rocprof-rs: cannot list counters: {amd}{why}; `rocprof-rs doctor` says what is missing");
        ExitCode::FAILURE
    };
    let cupti = match load_for_listing() {
        Ok(cupti) => cupti,
        Err(e) => return fail(format!("no NVIDIA counters ({e})")),
    };
    let chips = match &args.chip {
        Some(chip) => vec![(chip.clone(), chip.clone())],
        None => match avail::gpus(cupti) {
            Ok(chips) => chips,
            Err(e) => return fail(format!("no NVIDIA GPU to list ({e}; name a chip with --chip)")),
        },
    };
    if chips.is_empty() {
        return fail("CUPTI sees no NVIDIA GPU (name a chip with --chip to list its metrics)".into());
    }
    let mut reports = Vec::new();
    for (label, chip) in chips {
        match avail::chip(cupti, label, &chip, args.filter.as_deref()) {
            Ok(report) => reports.push(report),
            Err(e) => return fail(format!("{chip}: {e}")),
        }
    }
    if args.json || args.format == TextOrJson::Json {
        if let Err(e) = super::envelope::Output::AvailNvidia.print(None, super::bodies::ChipsBody { chips: &reports }) {
            return fail(format!("standard output: {e}"));
        }
    } else {
        print!("{}", render_nvidia(&reports));
    }
    ExitCode::SUCCESS
}

/// NVIDIA chips as text: presets per chip, then each chip's metrics.
fn render_nvidia(chips: &[rocprof_rs::backend::cupti::counting::avail::Chip]) -> String {
    let mut out = String::new();
    for chip in chips {
        let _ = writeln!(out, "{}: {} metrics (CUPTI)\n", chip.label, chip.metrics.len());
        let mut presets = table(&["preset", "runs", "passes", "about"]);
        for p in &chip.presets {
            let runs = if p.complete { format!("full ({})", p.metrics.len()) } else { p.notes.join("; ") };
            presets.add_row(vec![p.name.to_owned(), runs, p.passes.to_string(), p.about.to_owned()]);
        }
        let _ = writeln!(out, "{presets}\n");
        let mut list = table(&["metric", "unit", "hw unit", "passes", "description"]);
        for m in &chip.metrics {
            list.add_row(vec![
                m.name.clone(),
                m.unit.clone(),
                m.hw_unit.clone(),
                m.passes.to_string(),
                m.description.clone(),
            ]);
        }
        let _ = writeln!(out, "{list}\n");
    }
    out
}
