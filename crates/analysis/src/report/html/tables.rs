//! The report's tables: summary, top kernels, bottlenecks, counter coverage and the diff.

use std::fmt::Write as _;

use super::table::{Cell, Table, escape, name_cell};
use crate::analyze::Analysis;
use crate::analyze::diff::Verdict;
use crate::report::coverage::Coverage;
use crate::report::summary::Summary;
use crate::report::{Diff, Kernels, Report};
use crate::units::{bytes, grouped, human_ns};

fn figure(out: &mut String, key: &str, label: &str, shown: &str, value: f64) {
    let _ = writeln!(
        out,
        "<div class=\"figure\" data-key=\"{key}\" data-v=\"{value}\"><span class=\"label\">{label}</span><span class=\"value\">{}</span></div>",
        escape(shown)
    );
}

fn time(ns: f64) -> Cell {
    Cell::Number(human_ns(ns), ns)
}

fn count(n: u64) -> Cell {
    Cell::Number(grouped(n), n as f64)
}

fn percent(share: f64) -> Cell {
    Cell::Number(format!("{:.1}%", share * 100.0), share * 100.0)
}

/// The run at a glance, what it collected, its processes and GPUs.
pub fn summary(report: &Report) -> String {
    let s = &report.summary;
    let mut out = String::from("<div class=\"figures\">\n");
    let wall = s.wall_ns.unwrap_or(0) as f64;
    figure(&mut out, "wall", "Wall time", &s.wall_ns.map_or("unknown".into(), |w| human_ns(w as f64)), wall);
    let busy = if s.busy_known { s.gpu_busy_ns() as f64 } else { f64::NAN };
    let gpus_used = s.gpus.iter().filter(|g| g.dispatches > 0).count().max(1);
    let busy_text = if !s.busy_known {
        "unknown (the kernels could not be read for the timeline)".to_owned()
    } else if wall > 0.0 {
        format!(
            "{} ({:.1}% of wall × {gpus_used} GPU{})",
            human_ns(busy),
            busy / (wall * gpus_used as f64) * 100.0,
            if gpus_used == 1 { "" } else { "s" }
        )
    } else {
        human_ns(busy)
    };
    figure(&mut out, "gpu_busy", "GPU busy", &busy_text, busy);
    // As `stats` counts them: timed or not.
    let dispatches = report.kernels.shown().map_or(0, |k| k.dispatches);
    figure(&mut out, "dispatches", "Kernel dispatches", &grouped(dispatches), dispatches as f64);
    let names = report.kernels.shown().map_or(0, |k| k.names);
    figure(&mut out, "kernels", "Distinct kernels", &grouped(names as u64), names as f64);
    figure(&mut out, "records", "Records", &grouped(s.records), s.records as f64);
    let dropped = if s.dropped == 0 {
        "none".to_owned()
    } else {
        format!("{} ({:.2}%)", grouped(s.dropped), s.dropped as f64 / (s.records as f64 + s.dropped as f64) * 100.0)
    };
    figure(&mut out, "dropped", "Dropped", &dropped, s.dropped as f64);
    figure(&mut out, "processes", "Processes", &s.processes.len().to_string(), s.processes.len() as f64);
    figure(&mut out, "gpus", "GPUs", &s.gpus.len().to_string(), s.gpus.len() as f64);
    out.push_str("</div>\n");
    collected(&mut out, report);
    if !s.gpus.is_empty() {
        out.push_str("<h3>GPUs</h3>\n");
        out.push_str(&gpus(s));
        omitted(&mut out, s.gpus.len(), "GPUs");
    }
    if !s.processes.is_empty() {
        out.push_str("<h3>Processes</h3>\n");
        out.push_str(&processes(s));
        omitted(&mut out, s.processes.len(), "processes");
    }
    out
}

/// Rows of the summary's GPU and process tables: a job of thousands of ranks keeps a page
/// that opens.
const SUMMARY_ROWS: usize = 256;

fn omitted(out: &mut String, rows: usize, what: &str) {
    if rows > SUMMARY_ROWS {
        let _ = writeln!(out, "<p class=\"note\">The first {SUMMARY_ROWS} of {} {what}.</p>", grouped(rows as u64));
    }
}

fn collected(out: &mut String, report: &Report) {
    let s = &report.summary;
    out.push_str("<h3>What was collected</h3>\n<ul class=\"collected\">\n");
    for t in &s.tables {
        let _ = writeln!(out, "<li data-table=\"{0}\"><code>{0}</code>: {1} rows</li>", t.table, grouped(t.rows));
    }
    if !s.counters.is_empty() {
        let shown: Vec<String> = s.counters.iter().take(24).map(|c| escape(c)).collect();
        let more = s.counters.len().saturating_sub(24);
        let _ = write!(
            out,
            "<li data-counters=\"{}\">{} hardware counters: {}",
            s.counters.len(),
            s.counters.len(),
            shown.join(", ")
        );
        if more > 0 {
            let _ = write!(out, " and {more} more");
        }
        out.push_str("</li>\n");
    }
    if s.incomplete_files > 0 {
        let _ = writeln!(out, "<li class=\"warning\">{} incomplete files skipped</li>", s.incomplete_files);
    }
    out.push_str("</ul>\n");
}

fn gpus(s: &Summary) -> String {
    let mut table = Table::new(
        "gpu-table",
        &[
            ("host", false),
            ("pid", true),
            ("GPU", true),
            ("name", false),
            ("CUs / SMs", true),
            ("memory", true),
            ("dispatches", true),
            ("busy", true),
            ("busy of its span", true),
        ],
    );
    for g in s.gpus.iter().take(SUMMARY_ROWS) {
        let share = if g.span_ns > 0 { g.busy_ns as f64 / g.span_ns as f64 } else { 0.0 };
        let (busy, share) = if s.busy_known {
            (time(g.busy_ns as f64), percent(share))
        } else {
            (Cell::Number("unknown".into(), f64::NAN), Cell::Number("unknown".into(), f64::NAN))
        };
        table.row(
            Some(&g.name),
            vec![
                Cell::Text(g.host.clone().unwrap_or_default()),
                count(u64::from(g.pid)),
                Cell::Number(g.index.to_string(), f64::from(g.index)),
                Cell::Text(g.name.clone()),
                count(u64::from(g.compute_units)),
                Cell::Number(bytes(g.memory_bytes as f64), g.memory_bytes as f64),
                count(g.dispatches),
                busy,
                share,
            ],
        );
    }
    table.html()
}

fn processes(s: &Summary) -> String {
    let mut table = Table::new(
        "process-table",
        &[
            ("pid", true),
            ("host", false),
            ("rank", true),
            ("backend", false),
            ("vendor", false),
            ("command", false),
            ("records", true),
            ("dropped", true),
        ],
    );
    for p in s.processes.iter().take(SUMMARY_ROWS) {
        table.row(
            None,
            vec![
                count(u64::from(p.pid)),
                Cell::Text(p.host.clone().unwrap_or_default()),
                Cell::Number(p.rank.map_or(String::new(), |r| r.to_string()), p.rank.map_or(-1.0, f64::from)),
                Cell::Text(p.backend.clone()),
                Cell::Text(p.vendor.clone()),
                Cell::Html(format!("<code class=\"command\">{}</code>", escape(&p.command_line))),
                count(p.records),
                count(p.dropped),
            ],
        );
    }
    table.html()
}

/// The top kernels, as `stats` lists them.
pub fn kernels(k: &Kernels) -> String {
    let mut table = Table::new(
        "kernel-table",
        &[
            ("kernel", false),
            ("calls", true),
            ("total", true),
            ("share", true),
            ("mean", true),
            ("min", true),
            ("p50", true),
            ("p95", true),
            ("p99", true),
            ("max", true),
            ("stddev", true),
        ],
    );
    table.attribute("data-names", &k.names.to_string());
    table.attribute("data-dispatches", &k.dispatches.to_string());
    for r in &k.rows {
        table.row(
            Some(&r.name),
            vec![
                name_cell(&r.name),
                count(r.calls),
                time(r.total_ns as f64),
                Cell::Number(format!("{:.2}%", r.percent), r.percent),
                time(r.mean_ns),
                time(r.min_ns as f64),
                time(r.p50_ns as f64),
                time(r.p95_ns as f64),
                time(r.p99_ns as f64),
                time(r.max_ns as f64),
                time(r.stddev_ns),
            ],
        );
    }
    let mut out = format!(
        "<p class=\"caption\">{} of {} kernels, {} dispatches, {} of kernel time. Click a heading to sort.</p>\n",
        k.rows.len(),
        grouped(k.names as u64),
        grouped(k.dispatches),
        human_ns(k.total_ns as f64)
    );
    out.push_str(&table.html());
    notes(&mut out, &k.notes);
    out
}

fn notes(out: &mut String, notes: &[String]) {
    for note in notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(note));
    }
}

/// Each kernel's class, evidence and recommendations, as `analyze` gives them.
pub fn bottlenecks(a: &Analysis, summary: &Summary, top: usize) -> String {
    let mut table = Table::new(
        "bottleneck-table",
        &[
            ("kernel", false),
            ("GPU", false),
            ("calls", true),
            ("time", true),
            ("share", true),
            ("class", false),
            ("evidence", false),
            ("try first", false),
        ],
    );
    table.attribute("data-kernels", &a.analysed.to_string());
    for k in a.kernels.iter().take(top) {
        let evidence = evidence(&k.diagnosis.evidence);
        let recommendations = recommendations(&k.diagnosis.recommendations);
        let gpu = k.gpu.clone().unwrap_or_else(|| {
            summary
                .gpus
                .iter()
                .find(|g| g.pid == k.pid && g.agent_id == k.agent_id)
                .map_or("-".into(), |g| g.name.clone())
        });
        let class = k.diagnosis.class.name();
        table.row(
            Some(&k.name),
            vec![
                name_cell(&k.name),
                Cell::Text(gpu),
                count(k.calls),
                time(k.total_ns),
                percent(k.share),
                Cell::Html(format!(
                    "<span class=\"class class-{}\" data-class=\"{class}\">{class}</span>",
                    class.to_lowercase()
                )),
                Cell::Html(evidence),
                Cell::Html(if recommendations.is_empty() {
                    "-".into()
                } else {
                    format!("<ul class=\"recs\">{recommendations}</ul>")
                }),
            ],
        );
    }
    let mut out = format!(
        "<p class=\"caption\">{} of {} kernels (per process and GPU), largest share of kernel time first.</p>\n",
        a.kernels.len().min(top),
        a.analysed
    );
    out.push_str(&table.html());
    if !a.throttled.is_empty() {
        out.push_str("<h3>Throttled kernels</h3>\n");
        let mut t = Table::new(
            "throttle-table",
            &[
                ("kernel", false),
                ("pid", true),
                ("sampled", true),
                ("throttled", true),
                ("lowest MHz", true),
                ("peak MHz", true),
                ("reasons", false),
            ],
        );
        for k in a.throttled.iter().take(top) {
            t.row(
                Some(&k.kernel_name),
                vec![
                    Cell::Text(k.kernel_name.clone()),
                    count(u64::from(k.pid)),
                    count(k.sampled),
                    count(k.throttled),
                    count(u64::from(k.lowest_mhz)),
                    count(u64::from(k.peak_mhz)),
                    Cell::Text(k.reasons.join(", ")),
                ],
            );
        }
        out.push_str(&t.html());
    }
    notes(&mut out, &a.notes);
    out
}

/// The first line of evidence, and the rest behind a disclosure: a table of many kernels
/// stays readable.
fn evidence(lines: &[String]) -> String {
    let Some((first, rest)) = lines.split_first() else { return "-".into() };
    if rest.is_empty() {
        return format!("<span class=\"evidence\">{}</span>", escape(first));
    }
    let more: String = rest.iter().map(|e| format!("<li>{}</li>", escape(e))).collect();
    format!(
        "<details class=\"evidence\"><summary>{}</summary><ul class=\"evidence\">{more}</ul></details>",
        escape(first)
    )
}

/// The best recommendation with its expected gain; why, and the others, behind a disclosure.
fn recommendations(all: &[crate::analyze::bottleneck::Recommendation]) -> String {
    let Some(best) = all.first() else { return "-".into() };
    let line = |r: &crate::analyze::bottleneck::Recommendation| {
        format!(
            "<b>{}</b> <span class=\"gain\">up to {:.0}% of its time</span>",
            escape(&r.action),
            r.expected_gain * 100.0
        )
    };
    let mut more = format!("<li class=\"why\">{}</li>", escape(&best.why));
    for r in &all[1..] {
        more.push_str(&format!("<li>{}<br><span class=\"why\">{}</span></li>", line(r), escape(&r.why)));
    }
    let label = match all.len() - 1 {
        0 => "why".to_owned(),
        n => format!("why, and {n} more"),
    };
    format!(
        "<div class=\"recs\">{}<details><summary>{label}</summary><ul class=\"recs\">{more}</ul></details></div>",
        line(best)
    )
}

/// Which counters each kernel collected, and on what share of its dispatches.
pub fn coverage(c: &Coverage) -> String {
    let mut table = Table::new(
        "coverage-table",
        &[
            ("counter", false),
            ("pass", false),
            ("kernels", true),
            ("samples", true),
            ("dispatches", true),
            ("coverage", true),
        ],
    );
    table.attribute("data-counters", &c.all_counters.to_string());
    table.attribute("data-shown", &c.counters.len().to_string());
    for counter in &c.counters {
        let groups: Vec<String> = counter.groups.iter().map(u32::to_string).collect();
        table.row(
            Some(&counter.counter),
            vec![
                Cell::Text(counter.counter.clone()),
                Cell::Text(groups.join(", ")),
                count(counter.kernels as u64),
                count(counter.samples),
                count(counter.dispatches),
                percent(counter.share()),
            ],
        );
    }
    let mut out = format!(
        "<p class=\"caption\">{} counters; {} of {} kernels have at least one (from the <code>{}</code> table). \
         Coverage is the share of those kernels' dispatches that collected the counter.</p>\n",
        grouped(c.all_counters as u64),
        c.kernels_with_counters,
        c.kernels,
        c.source
    );
    out.push_str(&table.html());
    if c.all_counters > c.counters.len() {
        let _ = writeln!(
            out,
            "<p class=\"note\">The first {} counters by name are listed; {} more are not.</p>",
            c.counters.len(),
            grouped((c.all_counters - c.counters.len()) as u64)
        );
    }
    out
}

/// The comparison with the baseline, regressions first.
pub fn diff(d: &Diff, top: usize) -> String {
    let r = &d.report;
    let regressions = r.regressions();
    let mut table = Table::new(
        "diff-table",
        &[
            ("kernel", false),
            ("verdict", false),
            ("calls before", true),
            ("calls now", true),
            ("median before", true),
            ("median now", true),
            ("change", true),
            ("confidence", true),
        ],
    );
    table.attribute("data-regressions", &regressions.to_string());
    table.attribute("data-kernels", &r.kernels.len().to_string());
    // The sort's runs were readable when the report was built; a read that fails now shows
    // no rows rather than no page.
    let shown = r.kernels.first(top).unwrap_or_default();
    for k in &shown {
        let verdict = match k.verdict {
            Verdict::Regressed => "regressed",
            Verdict::Improved => "improved",
            Verdict::Unchanged => "unchanged",
            Verdict::New => "new",
            Verdict::Missing => "missing",
        };
        table.row(
            Some(&k.name),
            vec![
                name_cell(&k.name),
                Cell::Html(format!(
                    "<span class=\"verdict verdict-{verdict}\" data-verdict=\"{verdict}\">{verdict}</span>"
                )),
                count(k.calls_a),
                count(k.calls_b),
                time(k.median_a_ns as f64),
                time(k.median_b_ns as f64),
                k.change.map_or(Cell::Number("-".into(), f64::NAN), |c| {
                    Cell::Number(format!("{:+.1}%", c * 100.0), c * 100.0)
                }),
                k.confidence.map_or(Cell::Number("-".into(), f64::NAN), |c| Cell::Number(format!("{:.3}", c), c)),
            ],
        );
    }
    let change = if r.total_a_ns > 0 { r.total_b_ns as f64 / r.total_a_ns as f64 - 1.0 } else { 0.0 };
    let mut out = format!(
        "<p class=\"caption\">Against <code>{}</code>: {} regressed (median change beyond {:.0}% at {:.0}% confidence, \
         a rank test) of {} kernels, the first {} shown; kernel time {} → {} ({:+.1}%).</p>\n",
        escape(&d.baseline),
        regressions,
        r.threshold * 100.0,
        r.confidence * 100.0,
        r.kernels.len(),
        r.kernels.len().min(top),
        human_ns(r.total_a_ns as f64),
        human_ns(r.total_b_ns as f64),
        change * 100.0
    );
    out.push_str(&table.html());
    out
}
