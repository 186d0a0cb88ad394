//! Checks shared by the ABI tests. They compare declarations with numbers written into the tests,
//! so a changed offset, size or value in the declarations fails here.

#![allow(dead_code, unused_macros, unused_imports)]

/// The size of the type a projection closure returns; the closure is never called.
pub fn size_of_projection<S, T>(_project: impl FnOnce(&S) -> &T) -> usize {
    std::mem::size_of::<T>()
}

/// `check_layout!(Type, size = N, align = A, { field.path: (offset, size), ... })`
macro_rules! check_layout {
    ($ty:ty, size = $size:expr, align = $align:expr, { $($($field:ident).+ : ($off:expr, $fsize:expr)),* $(,)? }) => {{
        assert_eq!(std::mem::size_of::<$ty>(), $size, "sizeof({})", stringify!($ty));
        assert_eq!(std::mem::align_of::<$ty>(), $align, "alignof({})", stringify!($ty));
        $(
            assert_eq!(
                std::mem::offset_of!($ty, $($field).+), $off,
                "offsetof({}, {})", stringify!($ty), stringify!($($field).+)
            );
            // Union fields need `unsafe` to name, plain ones do not.
            #[allow(unused_unsafe)]
            // SAFETY: the closure is never called; only the field's type is used.
            let field_size = common::size_of_projection(|s: &$ty| unsafe { &s.$($field).+ });
            assert_eq!(
                field_size,
                $fsize,
                "sizeof({}.{})", stringify!($ty), stringify!($($field).+)
            );
        )*
    }};
}
pub(crate) use check_layout;

/// `check_enum!(type, signed = bool, sequential|sparse, { NAME = value, ... })`
///
/// Checks the type is a 4-byte integer of the right signedness and every value. `sequential`
/// enums (those ending in `*_LAST` with consecutive values) must also list every value below
/// `LAST`, so an enumerator cannot be skipped.
macro_rules! check_enum {
    ($ty:ident, signed = $signed:expr, $mode:ident, { $($name:ident = $value:expr),* $(,)? }) => {{
        assert_eq!(std::mem::size_of::<$ty>(), 4, "sizeof({})", stringify!($ty));
        assert_eq!(<$ty>::MIN != 0, $signed, "signedness of {}", stringify!($ty));
        let listed: &[(&str, i64, i64)] = &[$((stringify!($name), $name as i64, $value)),*];
        for (name, declared, expected) in listed {
            assert_eq!(declared, expected, "{}::{}", stringify!($ty), name);
        }
        common::check_enum!(@coverage $mode, stringify!($ty), listed);
    }};
    (@coverage sparse, $ty:expr, $listed:expr) => {};
    (@coverage sequential, $ty:expr, $listed:expr) => {{
        let last = $listed.iter().find(|(n, _, _)| n.ends_with("_LAST")).expect("a _LAST enumerator").2;
        let first = $listed.iter().map(|(_, _, v)| *v).min().unwrap_or(0);
        for value in first..last {
            assert!(
                $listed.iter().any(|(_, _, v)| *v == value),
                "{} has no listed enumerator for {}", $ty, value
            );
        }
    }};
}
pub(crate) use check_enum;
