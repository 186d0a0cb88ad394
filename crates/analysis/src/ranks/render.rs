//! The comparison as terminal tables or as CSV, one file per section (JSON is the report's
//! serde form).

use std::io::Write;

use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;

use super::Report;
use crate::error::Error;
use crate::terminal::cell;
use crate::units::human_ns;

/// A part of the report, with its CSV file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    /// Per rank: busy, idle, compute, communication, overlap, waits, steps.
    Ranks,
    /// Per step: median, slowest rank, excess.
    Steps,
    /// Per rank slowest in some step.
    Stragglers,
    /// Per kernel collective: spread, first, last, others' wait.
    Collectives,
    /// Per collective of RCCL API calls, likewise.
    ApiCollectives,
    /// Per collective operation.
    Operations,
    /// Per rank of a hang dump: what it waits on.
    Hangs,
}

impl Section {
    pub const ALL: [Section; 7] = [
        Section::Ranks,
        Section::Steps,
        Section::Stragglers,
        Section::Collectives,
        Section::ApiCollectives,
        Section::Operations,
        Section::Hangs,
    ];

    /// The `--section` name.
    pub fn name(self) -> &'static str {
        match self {
            Section::Ranks => "ranks",
            Section::Steps => "steps",
            Section::Stragglers => "stragglers",
            Section::Collectives => "collectives",
            Section::ApiCollectives => "api_collectives",
            Section::Operations => "operations",
            Section::Hangs => "hangs",
        }
    }

    /// The section named `name`.
    pub fn by_name(name: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Its CSV file's name.
    pub fn file_name(self) -> String {
        format!("{}.csv", self.name())
    }

    /// Its CSV header.
    pub fn header(self) -> &'static [&'static str] {
        match self {
            Section::Ranks => &[
                "name",
                "rank",
                "host",
                "pid",
                "kernels",
                "collectives",
                "span_ns",
                "busy_ns",
                "idle_ns",
                "compute_ns",
                "communication_ns",
                "overlap_ns",
                "overlap_share",
                "steps",
                "slowest_steps",
                "step_excess_ns",
                "last_arrivals",
                "collective_wait_ns",
                "kept_waiting_ns",
            ],
            Section::Steps => {
                &["step", "marker", "ranks", "complete", "median_ns", "slowest", "slowest_ns", "excess_ns"]
            }
            Section::Stragglers => &[
                "rank",
                "slowest_steps",
                "excess_total_ns",
                "excess_mean_ns",
                "excess_max_ns",
                "steps",
                "step_markers",
            ],
            Section::Collectives | Section::ApiCollectives => {
                &["source", "operation", "index", "ranks", "complete", "spread_ns", "first", "last", "others_wait_ns"]
            }
            Section::Hangs => &[
                "rank",
                "trigger",
                "quiet_ns",
                "outstanding",
                "kernel",
                "operation",
                "call",
                "thread_id",
                "launched_ns",
                "open_markers",
            ],
            Section::Operations => &[
                "source",
                "operation",
                "collectives",
                "incomplete",
                "mean_spread_ns",
                "max_spread_ns",
                "others_wait_ns",
            ],
        }
    }
}

/// What writing CSV can run into.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Csv(#[from] csv::Error),
    /// Rows read back from the external sort; boxed, as the crate's error is large.
    #[error(transparent)]
    Read(Box<Error>),
}

impl From<Error> for RenderError {
    fn from(e: Error) -> RenderError {
        RenderError::Read(Box::new(e))
    }
}

/// A number as CSV holds it: the shortest text that reads back as the same `f64`.
fn number(value: f64) -> String {
    format!("{value}")
}

fn optional<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(String::new, |v| v.to_string())
}

/// One section as CSV (a header, then a line per row), written to `out`.
pub fn csv(report: &Report, section: Section, out: &mut impl Write) -> Result<(), RenderError> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(section.header())?;
    match section {
        Section::Ranks => {
            for r in &report.ranks {
                let b = &r.busy;
                w.write_record([
                    r.name.clone(),
                    optional(r.rank),
                    optional(r.host.as_ref()),
                    r.pid.to_string(),
                    b.kernels.to_string(),
                    b.collectives.to_string(),
                    b.span_ns.to_string(),
                    b.busy_ns.to_string(),
                    b.idle_ns.to_string(),
                    b.compute_ns.to_string(),
                    b.communication_ns.to_string(),
                    b.overlap_ns.to_string(),
                    optional(b.overlap_share.map(number)),
                    r.steps.to_string(),
                    r.slowest_steps.to_string(),
                    number(r.step_excess_ns),
                    r.last_arrivals.to_string(),
                    r.collective_wait_ns.to_string(),
                    r.kept_waiting_ns.to_string(),
                ])?;
            }
        }
        Section::Steps => {
            for s in &report.steps {
                w.write_record([
                    s.step.to_string(),
                    s.marker.clone(),
                    s.ranks.to_string(),
                    s.complete.to_string(),
                    number(s.median_ns),
                    s.slowest.name.clone(),
                    s.slowest_ns.to_string(),
                    number(s.excess_ns),
                ])?;
            }
        }
        Section::Stragglers => {
            for s in &report.stragglers {
                let steps = s.steps.iter().map(u64::to_string).collect::<Vec<_>>().join(" ");
                w.write_record([
                    s.rank.name.clone(),
                    s.slowest_steps.to_string(),
                    number(s.excess_total_ns),
                    number(s.excess_mean_ns),
                    number(s.excess_max_ns),
                    steps,
                    s.step_markers.join("\n"),
                ])?;
            }
        }
        Section::Collectives | Section::ApiCollectives => {
            let rows = if section == Section::Collectives { &report.collectives } else { &report.api_collectives };
            rows.for_each(|c| {
                w.write_record([
                    c.source.name().to_owned(),
                    c.operation.name().to_owned(),
                    c.index.to_string(),
                    c.ranks.to_string(),
                    c.complete.to_string(),
                    c.spread_ns.to_string(),
                    c.first.name,
                    c.last.name,
                    c.others_wait_ns.to_string(),
                ])
                .map_err(RenderError::from)
            })?;
        }
        Section::Operations => {
            for o in &report.operations {
                w.write_record([
                    o.source.name().to_owned(),
                    o.operation.name().to_owned(),
                    o.collectives.to_string(),
                    o.incomplete.to_string(),
                    number(o.mean_spread_ns),
                    o.max_spread_ns.to_string(),
                    o.others_wait_ns.to_string(),
                ])?;
            }
        }
        Section::Hangs => {
            for h in &report.hangs {
                let o = h.oldest.as_ref();
                w.write_record([
                    h.name.clone(),
                    h.trigger.clone(),
                    h.quiet_ns.to_string(),
                    h.outstanding.to_string(),
                    optional(o.and_then(|o| o.kernel.as_ref())),
                    optional(o.and_then(|o| o.operation).map(|op| op.name())),
                    optional(o.map(|o| &o.call)),
                    optional(o.map(|o| o.thread_id)),
                    optional(o.map(|o| o.launched_ns)),
                    optional(o.map(|o| marker_path(&o.open_markers))),
                ])?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

/// A table with right-aligned numbers from column `numbers_from` on.
fn new_table(header: &[&str], numbers_from: usize) -> Table {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    table.set_header(header.to_vec());
    for column in numbers_from..header.len() {
        if let Some(c) = table.column_mut(column) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    table
}

fn percent(share: Option<f64>) -> String {
    share.map_or_else(|| "-".into(), |s| format!("{:.1}", s * 100.0))
}

/// Steps listed in a cell, each with its marker text: the first few, and how many more.
pub fn step_list(steps: &[u64], markers: &[String]) -> String {
    const SHOWN: usize = 6;
    let named = |(i, step): (usize, &u64)| match markers.get(i).filter(|m| !m.is_empty()) {
        Some(marker) => format!("{step} ({marker})"),
        None => step.to_string(),
    };
    let mut text = steps.iter().enumerate().take(SHOWN).map(named).collect::<Vec<_>>().join(", ");
    if steps.len() > SHOWN {
        text.push_str(&format!(" … (+{})", steps.len() - SHOWN));
    }
    text
}

/// The sections asked for as terminal tables, host names cut to `width` characters.
pub fn table(report: &Report, sections: &[Section], width: usize, out: &mut impl Write) -> Result<(), RenderError> {
    for note in &report.notes {
        writeln!(out, "note: {note}")?;
    }
    if !report.notes.is_empty() {
        writeln!(out)?;
    }
    // A hang is what a reader of a hang dump came for: first.
    if sections.contains(&Section::Hangs) {
        hangs_table(report, width, out)?;
    }
    for &section in sections {
        match section {
            Section::Ranks => ranks_table(report, width, out)?,
            Section::Steps => steps_table(report, width, out)?,
            Section::Stragglers => stragglers_table(report, width, out)?,
            Section::Collectives => {
                collectives_table("Collectives (kernels)", &report.collectives, report.top, width, out)?
            }
            Section::ApiCollectives => {
                collectives_table("Collectives (RCCL API calls)", &report.api_collectives, report.top, width, out)?
            }
            Section::Operations => operations_table(report, out)?,
            Section::Hangs => {}
        }
    }
    Ok(())
}

/// Open marker ranges as one cell: outermost first.
fn marker_path(markers: &[String]) -> String {
    markers.join(" > ")
}

fn hangs_table(report: &Report, width: usize, out: &mut impl Write) -> Result<(), RenderError> {
    if report.hangs.is_empty() {
        return Ok(());
    }
    if report.hangs.iter().any(|h| h.trigger == "hang") {
        writeln!(out, "Hang: what each rank waited on (its oldest launch not finished)")?;
    } else {
        writeln!(
            out,
            "In flight when the dump was taken (no rank saw a hang): each rank's oldest launch not finished"
        )?;
    }
    let mut t = new_table(&["rank", "dump", "quiet", "outstanding", "kernel", "collective", "inside"], 2);
    for h in &report.hangs {
        let oldest = h.oldest.as_ref();
        t.add_row([
            cell(&h.name, width),
            h.trigger.clone(),
            human_ns(h.quiet_ns as f64),
            h.outstanding.to_string(),
            oldest.and_then(|o| o.kernel.as_deref()).map_or_else(|| "-".into(), |k| cell(k, width)),
            oldest.and_then(|o| o.operation).map_or_else(|| "-".into(), |o| o.name().to_owned()),
            oldest.map_or_else(|| "-".into(), |o| cell(&marker_path(&o.open_markers), width)),
        ]);
    }
    writeln!(out, "{t}\n")?;
    Ok(())
}

fn steps_table(report: &Report, width: usize, out: &mut impl Write) -> Result<(), RenderError> {
    let Some(marker) = report.step_marker.as_deref().filter(|_| !report.steps.is_empty()) else { return Ok(()) };
    let order = if report.top.is_some() { "the largest excess over the median first" } else { "in order" };
    writeln!(out, "Steps (--step-marker {marker:?}), {order}")?;
    let mut t = new_table(&["step", "marker", "ranks", "median", "slowest rank", "its time", "excess", "excess %"], 2);
    for s in &report.steps {
        let share = if s.median_ns > 0.0 { format!("{:.1}", s.excess_ns / s.median_ns * 100.0) } else { "-".into() };
        let ranks = if s.complete { s.ranks.to_string() } else { format!("{} (incomplete)", s.ranks) };
        t.add_row([
            s.step.to_string(),
            cell(&s.marker, width),
            ranks,
            human_ns(s.median_ns),
            cell(&s.slowest.name, width),
            human_ns(s.slowest_ns as f64),
            human_ns(s.excess_ns),
            share,
        ]);
    }
    writeln!(out, "{t}")?;
    if report.steps_omitted > 0 {
        writeln!(out, "({} more not shown; --top shows more)", report.steps_omitted)?;
    }
    writeln!(out)?;
    Ok(())
}

fn stragglers_table(report: &Report, width: usize, out: &mut impl Write) -> Result<(), RenderError> {
    if report.stragglers.is_empty() {
        return Ok(());
    }
    writeln!(out, "Stragglers: the ranks slowest in a step, the largest total excess first")?;
    let mut t = new_table(&["rank", "slowest in", "excess total", "mean", "max", "steps"], 1);
    for s in &report.stragglers {
        t.add_row([
            cell(&s.rank.name, width),
            s.slowest_steps.to_string(),
            human_ns(s.excess_total_ns),
            human_ns(s.excess_mean_ns),
            human_ns(s.excess_max_ns),
            step_list(&s.steps, &s.step_markers),
        ]);
    }
    writeln!(out, "{t}\n")?;
    Ok(())
}

fn collectives_table(
    title: &str,
    rows: &super::collectives::CollectiveRows,
    top: Option<usize>,
    width: usize,
    out: &mut impl Write,
) -> Result<(), RenderError> {
    if rows.is_empty() {
        return Ok(());
    }
    let order = if top.is_some() { "the longest wait for the last rank first" } else { "in order" };
    writeln!(out, "{title}, {order}")?;
    let mut t = new_table(&["operation", "#", "ranks", "spread", "first", "last", "others waited"], 1);
    rows.for_each(|r| {
        let ranks = if r.complete { r.ranks.to_string() } else { format!("{} (incomplete)", r.ranks) };
        t.add_row([
            Cell::new(r.operation.name()),
            Cell::new(r.index),
            Cell::new(ranks),
            Cell::new(human_ns(r.spread_ns as f64)),
            Cell::new(cell(&r.first.name, width)),
            Cell::new(cell(&r.last.name, width)),
            Cell::new(human_ns(r.others_wait_ns as f64)),
        ]);
        Ok::<(), Error>(())
    })?;
    writeln!(out, "{t}")?;
    if rows.omitted() > 0 {
        writeln!(out, "({} more not shown; --top shows more)", rows.omitted())?;
    }
    writeln!(out)?;
    Ok(())
}

fn operations_table(report: &Report, out: &mut impl Write) -> Result<(), RenderError> {
    if report.operations.is_empty() {
        return Ok(());
    }
    writeln!(out, "Collectives per operation")?;
    let mut t = new_table(
        &["source", "operation", "collectives", "incomplete", "mean spread", "max spread", "others waited"],
        2,
    );
    for o in &report.operations {
        t.add_row([
            o.source.name().to_owned(),
            o.operation.name().to_owned(),
            o.collectives.to_string(),
            o.incomplete.to_string(),
            human_ns(o.mean_spread_ns),
            human_ns(o.max_spread_ns as f64),
            human_ns(o.others_wait_ns as f64),
        ]);
    }
    writeln!(out, "{t}\n")?;
    Ok(())
}

fn ranks_table(report: &Report, width: usize, out: &mut impl Write) -> Result<(), RenderError> {
    writeln!(out, "Ranks")?;
    let mut t = new_table(
        &[
            "rank",
            "host",
            "kernels",
            "busy",
            "idle",
            "compute",
            "communication",
            "overlap %",
            "slowest in",
            "step excess",
            "last at",
            "waited",
            "kept others waiting",
        ],
        2,
    );
    for r in &report.ranks {
        let b = &r.busy;
        t.add_row([
            cell(&r.name, width),
            cell(r.host.as_deref().unwrap_or("-"), width),
            b.kernels.to_string(),
            human_ns(b.busy_ns as f64),
            human_ns(b.idle_ns as f64),
            human_ns(b.compute_ns as f64),
            human_ns(b.communication_ns as f64),
            percent(b.overlap_share),
            r.slowest_steps.to_string(),
            human_ns(r.step_excess_ns),
            r.last_arrivals.to_string(),
            human_ns(r.collective_wait_ns as f64),
            human_ns(r.kept_waiting_ns as f64),
        ]);
    }
    writeln!(out, "{t}\n")?;
    Ok(())
}
