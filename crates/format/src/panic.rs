//! What a caught panic said, for the one line that reports it: the same words from the
//! recorder's entries from C, the Python module and the Parquet decoder's guard.

use std::any::Any;

/// The text a panic carried: `panic!` with a message gives a `&str` or a `String`; anything
/// else (`panic_any`) carries none.
pub fn text(payload: &(dyn Any + Send)) -> Option<&str> {
    payload.downcast_ref::<&str>().copied().or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

/// `internal error in <entry>: <message>`, or `internal error: <message>` where no entry is
/// named: a panic is this project's bug, reported as one, whoever caught it.
pub fn internal_error(entry: Option<&str>, payload: &(dyn Any + Send)) -> String {
    let what = text(payload).unwrap_or("a panic");
    match entry {
        Some(entry) => format!("internal error in {entry}: {what}"),
        None => format!("internal error: {what}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panics_text_is_its_message_whichever_string_it_was() {
        let caught = |f: fn()| std::panic::catch_unwind(f).unwrap_err();
        let (borrowed, owned) = (caught(|| panic!("boom")), caught(|| panic!("{}", String::from("bang"))));
        assert_eq!((text(&*borrowed), text(&*owned)), (Some("boom"), Some("bang")));
        let other = caught(|| std::panic::panic_any(7));
        assert_eq!(internal_error(None, &*other), "internal error: a panic");
        assert_eq!(internal_error(Some("f"), &*borrowed), "internal error in f: boom");
    }
}
