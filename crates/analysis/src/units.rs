//! Figures for people, in their units: durations, byte counts, counts with thousands
//! separators, and C's `%e` that rocprofv3's files print. Every output (the terminal tables of
//! `stats`, `ranks`, `analyze` and `diff`, the report's page, the exported CSV) writes a figure
//! of one kind the same way.

/// A duration for people: ns, µs, ms or s with three significant decimals.
pub fn human_ns(ns: f64) -> String {
    match ns {
        n if n < 1e3 => format!("{n:.0} ns"),
        n if n < 1e6 => format!("{:.2} µs", n / 1e3),
        n if n < 1e9 => format!("{:.2} ms", n / 1e6),
        n => format!("{:.3} s", n / 1e9),
    }
}

/// A duration in microseconds with one decimal, as `analyze`'s evidence quotes it: `16.2 µs`.
pub fn micros(ns: f64) -> String {
    format!("{:.1} µs", ns / 1000.0)
}

/// A share (1 is the whole) as a whole percentage: `42%`.
pub fn whole_percent(share: f64) -> String {
    format!("{:.0}%", 100.0 * share)
}

/// A byte count for people.
pub fn bytes(n: f64) -> String {
    match n {
        n if n < 1024.0 => format!("{n:.0} B"),
        n if n < 1024.0 * 1024.0 => format!("{:.1} KiB", n / 1024.0),
        n if n < 1024.0 * 1024.0 * 1024.0 => format!("{:.1} MiB", n / 1024.0 / 1024.0),
        n => format!("{:.2} GiB", n / 1024.0 / 1024.0 / 1024.0),
    }
}

/// A number with thousands separators.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// C's `%.Ne`: Rust's digits, with C's exponent (a sign and at least two digits).
pub fn c_exp(value: f64, digits: usize) -> String {
    let text = format!("{value:.digits$e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) => {
            let (sign, digits) = match exponent.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exponent),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }
}
