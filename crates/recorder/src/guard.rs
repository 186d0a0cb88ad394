//! The panic guard of every `extern "C"` entry: a panic must never unwind into the SDK, CUPTI
//! or the application. It sits below everything that calls in from C, and each caller says what
//! a panic means for it: the tool disables itself, a query for `avail` fails.

use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `body`. If it panics, `on_panic` is told `internal error in <entry>: <message>` and
/// `fallback` is returned in place of the body's value.
pub fn catch_panic<R>(entry: &str, fallback: R, on_panic: impl FnOnce(&str), body: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(payload) => {
            on_panic(&rocprof_rs_format::panic::internal_error(Some(entry), &*payload));
            fallback
        }
    }
}

/// What a visitor the SDK calls back gathers, and what a panic inside it means to whoever
/// asked: the tool turns itself off (`lifecycle::disable`), a query for `avail` reports it
/// ([`report_panic`]). The visitor's data pointer points to one.
#[derive(Debug)]
pub struct Visit<T> {
    /// What the visitor collected.
    pub items: Vec<T>,
    /// Told `internal error in <entry>: <message>` on a panic.
    pub on_panic: fn(&str),
}

impl<T> Visit<T> {
    /// An empty collection whose panics go to `on_panic`.
    pub fn new(on_panic: fn(&str)) -> Visit<T> {
        Visit { items: Vec::new(), on_panic }
    }
}

/// What a query that is not part of a profiling run does on a panic: say so on one line, and
/// let the query fail.
pub fn report_panic(message: &str) {
    crate::say!("rocprof-rs: {message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_fallback_and_one_message() {
        let mut told = Vec::new();
        let value = catch_panic("the test", 7, |m| told.push(m.to_owned()), || -> i32 { panic!("boom") });
        assert_eq!((value, told), (7, vec!["internal error in the test: boom".to_owned()]));
        let value = catch_panic("the test", 7, |_| unreachable!("no panic, no message"), || 3);
        assert_eq!(value, 3);
    }
}
