//! The report's cross-rank view: each rank's busy time, the stragglers of the step marker's
//! steps, and the collectives with the longest waits, as `rocprof-rs ranks` computes them.

use std::fmt::Write as _;

use super::table::{Cell, Table, escape};
use crate::ranks::Report;
use crate::units::{grouped, human_ns};

fn time(ns: f64) -> Cell {
    Cell::Number(human_ns(ns), ns)
}

/// A bar of `share` (0 to 1) beside its text.
fn bar(text: String, share: f64, value: f64) -> Cell {
    let width = (share.clamp(0.0, 1.0) * 100.0).round();
    Cell::Html(format!(
        "<span class=\"nowrap\" data-v=\"{value}\"><span class=\"bar\"><span style=\"width:{width}%\"></span></span> {}</span>",
        escape(&text)
    ))
}

pub fn ranks(r: &Report) -> String {
    let mut out = String::new();
    let longest = r.ranks.iter().map(|k| k.busy.span_ns).max().unwrap_or(0).max(1) as f64;
    let mut table = Table::new(
        "rank-table",
        &[
            ("rank", true),
            ("host", false),
            ("pid", true),
            ("kernels", true),
            ("busy", true),
            ("idle", true),
            ("compute", true),
            ("communication", true),
            ("overlap", true),
            ("slowest in steps", true),
            ("step excess", true),
            ("last at collectives", true),
            ("waited at collectives", true),
            ("kept others waiting", true),
        ],
    );
    table.attribute("data-ranks", &r.ranks.len().to_string());
    for k in &r.ranks {
        let b = &k.busy;
        table.row(
            Some(&k.name),
            vec![
                // Sorted by rank number, else by pid: rank 10 after rank 9.
                Cell::Number(k.name.clone(), f64::from(k.rank.unwrap_or(i32::MAX)) + f64::from(k.pid) * 1e-10),
                Cell::Text(k.host.clone().unwrap_or_default()),
                Cell::Number(k.pid.to_string(), f64::from(k.pid)),
                Cell::Number(grouped(b.kernels), b.kernels as f64),
                bar(human_ns(b.busy_ns as f64), b.busy_ns as f64 / longest, b.busy_ns as f64),
                time(b.idle_ns as f64),
                time(b.compute_ns as f64),
                time(b.communication_ns as f64),
                b.overlap_share
                    .map_or(Cell::Number("-".into(), -1.0), |s| Cell::Number(format!("{:.0}%", s * 100.0), s * 100.0)),
                Cell::Number(format!("{} of {}", k.slowest_steps, k.steps), k.slowest_steps as f64),
                time(k.step_excess_ns),
                Cell::Number(grouped(k.last_arrivals), k.last_arrivals as f64),
                time(k.collective_wait_ns as f64),
                time(k.kept_waiting_ns as f64),
            ],
        );
    }
    let _ = writeln!(
        out,
        "<p class=\"caption\">{} ranks. Busy is the union of a rank's kernels; the bar is against the longest rank's span.</p>",
        r.ranks.len()
    );
    out.push_str(&table.html());
    if !r.stragglers.is_empty() {
        out.push_str("<h3>Stragglers</h3>\n");
        let mut t = Table::new(
            "straggler-table",
            &[
                ("rank", false),
                ("slowest in steps", true),
                ("excess", true),
                ("mean excess", true),
                ("largest excess", true),
                ("steps (position and marker)", false),
            ],
        );
        for s in &r.stragglers {
            t.row(
                Some(&s.rank.name),
                vec![
                    Cell::Text(s.rank.name.clone()),
                    Cell::Number(grouped(s.slowest_steps), s.slowest_steps as f64),
                    time(s.excess_total_ns),
                    time(s.excess_mean_ns),
                    time(s.excess_max_ns),
                    Cell::Text(crate::ranks::render::step_list(&s.steps, &s.step_markers)),
                ],
            );
        }
        out.push_str(&t.html());
    }
    if !r.collectives.is_empty() {
        out.push_str("<h3>Collectives with the longest waits</h3>\n");
        let mut t = Table::new(
            "collective-table",
            &[
                ("operation", false),
                ("number", true),
                ("ranks", true),
                ("spread", true),
                ("first", false),
                ("last", false),
                ("others' wait", true),
            ],
        );
        let read = r.collectives.for_each(|c| -> Result<(), crate::Error> {
            t.row(
                None,
                vec![
                    Cell::Text(c.operation.name().to_owned()),
                    Cell::Number(c.index.to_string(), c.index as f64),
                    Cell::Number(c.ranks.to_string(), f64::from(c.ranks)),
                    time(c.spread_ns as f64),
                    Cell::Text(c.first.name.clone()),
                    Cell::Text(c.last.name.clone()),
                    time(c.others_wait_ns as f64),
                ],
            );
            Ok(())
        });
        out.push_str(&t.html());
        if let Err(e) = read {
            let _ = writeln!(out, "<p class=\"warning\">cannot read every collective: {}</p>", escape(&e.to_string()));
        }
    }
    for note in &r.notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(note));
    }
    out
}
