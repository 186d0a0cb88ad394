//! Statistics as a terminal table, as rocprofv3's CSV, or as JSON.

use std::io::Write;

use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};

use super::{Row, SectionStats};
use crate::csv_field::quoted;
use crate::terminal::TABLE_ROWS;
use crate::units::{c_exp, human_ns};

/// rocprofv3's stats header, column for column.
pub const CSV_HEADER: &str =
    "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"";

/// AverageNs and StdDev as rocprofv3 1.0 prints them: six decimals above 0.01, else `%.8e`.
pub fn stat_text(value: f64) -> String {
    if value > 0.01 { format!("{value:.6}") } else { c_exp(value, 8) }
}

/// Percentage as rocprofv3 1.0 prints it: two decimals from 1, four above 0.01, else `%.3e`.
pub fn percent_text(value: f64) -> String {
    if value >= 1.0 {
        format!("{value:.2}")
    } else if value > 0.01 {
        format!("{value:.4}")
    } else {
        c_exp(value, 3)
    }
}

/// One section as rocprofv3's stats CSV (header and rows), written to `out` row by row.
pub fn csv(section: &SectionStats, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "{CSV_HEADER}")?;
    section.rows.for_each(|r| {
        writeln!(
            out,
            "{},{},{},{},{},{},{},{}",
            quoted(&r.name),
            r.calls,
            r.total_ns,
            stat_text(r.mean_ns),
            percent_text(r.percent),
            r.min_ns,
            r.max_ns,
            stat_text(r.stddev_ns)
        )
    })
}

/// One section as a terminal table, names cut to `width` characters.
pub fn table(section: &SectionStats, width: usize, out: &mut impl Write) -> std::io::Result<()> {
    match section.rank {
        Some(rank) => writeln!(out, "{} of rank {rank}", title(section))?,
        None => writeln!(out, "{}", title(section))?,
    }
    for note in &section.notes {
        writeln!(out, "note: {note}")?;
    }
    let mut chunk: Vec<Vec<Cell>> = Vec::new();
    section.rows.for_each(|r| {
        let mut cells = row_cells(&r, width);
        if let Some(scaled) = &section.scaled {
            cells.push(Cell::new(scaled.estimates.get(&r.name).map_or_else(String::new, run_calls)));
        }
        chunk.push(cells);
        if chunk.len() == TABLE_ROWS { print_table(std::mem::take(&mut chunk), section, out) } else { Ok(()) }
    })?;
    if !chunk.is_empty() || section.rows.is_empty() {
        print_table(chunk, section, out)?;
    }
    if section.omitted > 0 {
        writeln!(out, "({} more not shown; --top shows more)", section.omitted)?;
    }
    writeln!(out)
}

/// A windowed name's calls in the whole run: the estimate and its 95% interval.
fn run_calls(e: &crate::windows::Estimate) -> String {
    if e.calls_high.is_finite() {
        format!("{:.0} [{:.0}–{:.0}]", e.calls, e.calls_low, e.calls_high)
    } else {
        format!("{:.0} [one window: no interval]", e.calls)
    }
}

fn print_table(rows: Vec<Vec<Cell>>, section: &SectionStats, out: &mut impl Write) -> std::io::Result<()> {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    let mut header = vec!["name", "calls", "total", "%", "mean", "min", "p50", "p95", "p99", "max", "stddev"];
    if section.scaled.is_some() {
        header.push("calls in the run (95%)");
    }
    let columns = header.len();
    table.set_header(header);
    for row in rows {
        table.add_row(row);
    }
    for column in 1..columns {
        if let Some(c) = table.column_mut(column) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(out, "{table}")
}

fn title(section: &SectionStats) -> &'static str {
    match section.section {
        super::Section::Kernel => "Kernels",
        super::Section::HipApi => "HIP API calls",
        super::Section::MemoryCopy => "Memory copies",
        super::Section::Marker => "Markers",
    }
}

fn row_cells(r: &Row, width: usize) -> Vec<Cell> {
    let name = crate::terminal::cell(&r.name, width);
    vec![
        Cell::new(name),
        Cell::new(r.calls),
        Cell::new(human_ns(r.total_ns as f64)),
        Cell::new(format!("{:.2}", r.percent)),
        Cell::new(human_ns(r.mean_ns)),
        Cell::new(human_ns(r.min_ns as f64)),
        Cell::new(human_ns(r.p50_ns as f64)),
        Cell::new(human_ns(r.p95_ns as f64)),
        Cell::new(human_ns(r.p99_ns as f64)),
        Cell::new(human_ns(r.max_ns as f64)),
        Cell::new(human_ns(r.stddev_ns)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rocprofv3's own hip_api_stats.csv (its documentation's sample), read back into rows and
    /// written again: every byte must come back.
    #[test]
    fn rocprofv3_stats_rows_come_back_byte_for_byte() {
        let fixture = include_str!("../../../../tests/fixtures/rocprofv3/hip_api_stats.csv");
        let rows: Vec<Row> = fixture
            .lines()
            .skip(1)
            .map(|line| {
                let (name, rest) = line[1..].split_once("\",").expect("a quoted name");
                let f: Vec<&str> = rest.split(',').collect();
                Row {
                    name: name.to_owned(),
                    calls: f[0].parse().unwrap(),
                    total_ns: f[1].parse().unwrap(),
                    mean_ns: f[1].parse::<f64>().unwrap() / f[0].parse::<f64>().unwrap(),
                    percent: f[3].parse().unwrap(),
                    min_ns: f[4].parse().unwrap(),
                    max_ns: f[5].parse().unwrap(),
                    stddev_ns: f[6].parse().unwrap(),
                    p50_ns: 0,
                    p95_ns: 0,
                    p99_ns: 0,
                }
            })
            .collect();
        let mut builder = super::super::RowsBuilder::default();
        rows.iter().for_each(|r| builder.push(r).unwrap());
        let section = builder.finish(super::super::Section::HipApi, None).unwrap();
        let mut written = Vec::new();
        csv(&section, &mut written).unwrap();
        assert_eq!(String::from_utf8(written).unwrap().trim_end(), fixture.trim_end());
    }

    #[test]
    fn numbers_print_as_rocprofv3_prints_them() {
        assert_eq!(stat_text(65_624_351.5), "65624351.500000");
        assert_eq!(stat_text(0.0), "0.00000000e+00");
        assert_eq!(stat_text(0.005), "5.00000000e-03");
        assert_eq!(percent_text(85.149), "85.15");
        assert_eq!(percent_text(1.0), "1.00");
        assert_eq!(percent_text(0.5), "0.5000");
        assert_eq!(percent_text(0.00292), "2.920e-03");
        assert_eq!(percent_text(0.01), "1.000e-02");
        assert_eq!(c_exp(1.5e-12, 2), "1.50e-12");
        assert_eq!(c_exp(12345.0, 3), "1.234e+04");
    }
}
