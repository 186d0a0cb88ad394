//! NVIDIA CUPTI: the Activity and Callback API subset the CUDA backend uses, declared by hand and
//! resolved at run time, so nothing here needs CUDA to build or test.
//!
//! - **Declarations** ([`records`]) are written from the layouts of CUPTI 13.0's headers (API
//!   130001) and 12.9's (API 28), pinned field by field by `tests/cupti_layout.rs`. The headers
//!   themselves are never committed.
//! - **Versions.** Activity records carry no version or size: the libcupti loaded at run time
//!   decides every layout. Each release appends fields to the structs it replaces, so a reader
//!   that takes only the prefix common to all supported releases (Kernel8 to Kernel13) and gates
//!   later fields on [`Cupti::version`] stays right; iterate with `cuptiActivityGetNextRecord`,
//!   which knows the true strides.
//! - **Functions** ([`load`]) come from the libcupti already in the process (torch links one)
//!   or one opened by SONAME or path: a second copy breaks NVTX injection, which binds to the
//!   first.
//! - **Range profiler** (`profiler/`): the per-kernel metrics API of CUPTI 12.6.80 and later,
//!   a second function table ([`Cupti::profiler`]) that is `None` where the library lacks it.
//! - **PC sampling** ([`pc_sampling`]): warp PCs and stall reasons, a third table
//!   ([`Cupti::pc_sampling`]), likewise optional.

mod load;
mod pc_sampling;
mod profiler;
mod records;

pub use load::*;
pub use pc_sampling::*;
pub use profiler::*;
pub use records::*;
