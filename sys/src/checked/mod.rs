//! The project's own declarations of rocprofiler-sdk 1.0 (ROCm 7.0), checked against the ABI.
//!
//! Used when no SDK headers or no libclang are present at build time (CI, docs, machines without
//! ROCm). Every item has the name, type and layout that bindgen produces from the real headers,
//! so the rest of the project compiles unchanged against either path:
//! - `tests/abi_layout.rs` and `tests/abi_enums.rs` pin every size, alignment, field offset and
//!   enumerator to the numbers of the SDK 1.0 headers;
//! - `tests/bindgen_matches_checked.rs` compares these declarations with freshly generated
//!   bindings, type by type, wherever the headers exist.
//!
//! Only what the project uses is declared; functions are not declared here at all, because they
//! are resolved at run time (see [`crate::sdk`]).

mod agent;
mod bitfield;
mod callback;
mod counters;
mod enums;
mod pc_sampling;
mod records;
mod types;

pub use agent::*;
pub use bitfield::*;
pub use callback::*;
pub use counters::*;
pub use enums::*;
pub use pc_sampling::*;
pub use records::*;
pub use types::*;

/// `Default` as bindgen writes it for types that cannot derive it (raw pointers, unions): all
/// bytes zero.
macro_rules! zeroed_default {
    ($($ty:ty),* $(,)?) => {
        $(
            impl Default for $ty {
                fn default() -> Self {
                    // SAFETY: the type is plain C data (integers, raw pointers, `Option` of
                    // function pointers and unions of those), for all of which all-zero bytes
                    // is a valid value: 0, null or `None`.
                    unsafe { std::mem::zeroed() }
                }
            }
        )*
    };
}
pub(crate) use zeroed_default;
