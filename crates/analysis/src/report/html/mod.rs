//! The report as one HTML file: styles and scripts inline, charts as inline SVG drawn here or
//! on a canvas from the timeline's bins, and no request to anything outside the file.
//!
//! Every section is written as plain HTML first (tables, SVG), so the page reads without
//! scripts; the script adds sorting, the zoomable timeline and hover read-outs. Each section
//! carries `data-state` ("shown" or "empty") and the tables carry their figures in `data-v`
//! attributes, unformatted, which is what sorting and the browser test read.

mod charts;
mod hotspots;
mod ranks;
mod table;
mod tables;

use std::fmt::Write as _;

use super::{Part, Report};
use table::escape;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// The sections in page order: id, heading.
pub const SECTIONS: [(&str, &str); 10] = [
    ("summary", "Summary"),
    ("kernels", "Top kernels"),
    ("timeline", "Timeline"),
    ("roofline", "Roofline"),
    ("bottlenecks", "Bottlenecks"),
    ("hotspots", "Hotspots"),
    ("coverage", "Counter coverage"),
    ("device", "Device telemetry"),
    ("ranks", "Ranks"),
    ("diff", "Diff against the baseline"),
];

/// JSON made safe inside a `<script>` element: no `</script>` or `<!--` can end it early.
fn script_json(json: &str) -> String {
    json.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

/// The whole page.
pub fn render(report: &Report) -> String {
    let mut page = String::with_capacity(64 * 1024);
    let title = format!("rocprof-rs report: {}", report.title);
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"rocprof-rs {}\">\n<title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
        env!("CARGO_PKG_VERSION"),
        escape(&title)
    );
    let sections = sections(report);
    header(&mut page, report, &title, &sections);
    page.push_str("<main>\n");
    for ((id, heading), body) in SECTIONS.iter().zip(sections) {
        let (state, body) = match body {
            Part::Shown(html) => ("shown", html),
            Part::Empty(why) => ("empty", format!("<p class=\"empty\">{}</p>\n", escape(&why))),
        };
        let _ = write!(page, "<section id=\"{id}\" data-state=\"{state}\">\n<h2>{heading}</h2>\n{body}</section>\n");
    }
    page.push_str("</main>\n<footer>Written by rocprof-rs ");
    page.push_str(env!("CARGO_PKG_VERSION"));
    page.push_str(" as one file: no network, no external scripts or fonts.</footer>\n");
    if let Some(timeline) = report.timeline.shown() {
        let json = serde_json::to_string(timeline).unwrap_or_else(|_| "null".into());
        let _ =
            writeln!(page, "<script type=\"application/json\" id=\"timeline-data\">{}</script>", script_json(&json));
    }
    let _ = write!(page, "<script>\n{SCRIPT}</script>\n</body>\n</html>\n");
    page
}

/// Each section's HTML, or why it is empty, in [`SECTIONS`]' order.
fn sections(report: &Report) -> Vec<Part<String>> {
    SECTIONS
        .iter()
        .map(|(id, _)| match *id {
            "summary" => Part::Shown(tables::summary(report)),
            "kernels" => report.kernels.map(tables::kernels),
            "timeline" => report.timeline.map(charts::timeline),
            "roofline" => report.roofline.map(|r| charts::rooflines(r)),
            "bottlenecks" => report.bottlenecks.map(|a| tables::bottlenecks(a, &report.summary, report.top)),
            "hotspots" => report.hotspots.map(|h| hotspots::hotspots(h)),
            "coverage" => report.coverage.map(tables::coverage),
            "device" => report.device.map(charts::device),
            "ranks" => report.ranks.map(ranks::ranks),
            "diff" => report.diff.map(|d| tables::diff(d, report.top)),
            _ => unreachable!("every section is listed"),
        })
        .collect()
}

fn header(page: &mut String, report: &Report, title: &str, sections: &[Part<String>]) {
    let _ = write!(
        page,
        "<header>\n<h1>{}</h1>\n<p class=\"meta\">Dataset <code>{}</code></p>\n",
        escape(title),
        escape(&report.dataset)
    );
    if report.simulated {
        page.push_str(
            "<p class=\"banner\" id=\"simulated\">SIMULATED: these records come from rocprof-rs's simulated \
             rocprofiler-sdk and application, not a GPU. Every number is the model's.</p>\n",
        );
    }
    for warning in &report.warnings {
        let _ = writeln!(page, "<p class=\"warning\">{}</p>", escape(warning));
    }
    page.push_str("<nav>\n");
    for ((id, heading), body) in SECTIONS.iter().zip(sections) {
        let state = body.shown().is_some();
        let class = if state { "" } else { " class=\"none\"" };
        let _ = writeln!(page, "<a href=\"#{id}\"{class}>{heading}</a>");
    }
    page.push_str("</nav>\n</header>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_json_cannot_break_out() {
        assert_eq!(escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
        assert_eq!(script_json(r#"{"n":"</script><!--"}"#), r#"{"n":"\u003c/script\u003e\u003c!--"}"#);
    }
}
