//! `print!`, `println!`, `eprint!` and `eprintln!` for the whole command line, escaping what
//! they print for the terminal ([`rocprof_rs_analysis::terminal`]): names from a dataset reach
//! tables, notes, warnings and errors, and no call site may forget to escape them. They shadow
//! the standard macros in every module declared after this one. Output that must keep its exact
//! text (JSON, CSV) is printed with `std::println!`, whose encoders escape what they must.

use std::io::Write;

/// Writes `args`, escaped, to standard output or error; a failed write (a closed pipe) is let
/// go, as there is nowhere left to say it.
pub(crate) fn escaped(to_stderr: bool, args: std::fmt::Arguments<'_>) {
    let text = std::fmt::format(args);
    let text = rocprof_rs_analysis::terminal::escape(&text);
    let _ = if to_stderr {
        std::io::stderr().lock().write_all(text.as_bytes())
    } else {
        std::io::stdout().lock().write_all(text.as_bytes())
    };
}

macro_rules! print {
    ($($arg:tt)*) => { $crate::say::escaped(false, format_args!($($arg)*)) };
}

macro_rules! println {
    () => { $crate::say::escaped(false, format_args!("\n")) };
    ($($arg:tt)*) => { $crate::say::escaped(false, format_args!("{}\n", format_args!($($arg)*))) };
}

#[allow(unused_macros, reason = "unused today: it shadows std's, so that a future eprint! is escaped too")]
macro_rules! eprint {
    ($($arg:tt)*) => { $crate::say::escaped(true, format_args!($($arg)*)) };
}

macro_rules! eprintln {
    () => { $crate::say::escaped(true, format_args!("\n")) };
    ($($arg:tt)*) => { $crate::say::escaped(true, format_args!("{}\n", format_args!($($arg)*))) };
}
