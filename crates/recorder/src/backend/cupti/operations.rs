//! What the CUPTI backend tells the pipeline when it starts: its kinds, the names of their
//! operations and the table of each API kind. Copy kinds are named as the SDK spells its own
//! (`MEMORY_COPY_HOST_TO_DEVICE`), so AMD and NVIDIA copies group together in stats, and
//! launch calls as CUDA spells them.

use std::sync::Arc;

use rocprofiler_sdk_sys::cupti as sys;

use super::decode::{COPY_OPERATION_BASE, MEMSET_OPERATION};
use crate::pipeline::run::{Library, OperationNames};
use rocprof_rs_format::Table;

/// The kind of CUDA driver launch calls (operation = CUPTI callback id). The kinds are the
/// backend's own, "CU" in their high bytes.
pub const CUDA_DRIVER_API: u32 = 0x4355_0001;
/// The kind of CUDA runtime launch calls.
pub const CUDA_RUNTIME_API: u32 = 0x4355_0002;
/// The kind of copies and sets.
pub const COPY_KIND: u32 = 0x4355_0003;
/// The kind of NVTX ranges and marks.
pub const NVTX_KIND: u32 = 0x4355_0004;
/// An NVTX range's operation.
pub const NVTX_RANGE: i32 = 0;
/// An NVTX mark's operation.
pub const NVTX_MARK: i32 = 1;

/// The table of each API kind.
pub const API_TABLES: &[(u32, Table)] = &[(CUDA_RUNTIME_API, Table::CudaApi), (CUDA_DRIVER_API, Table::CudaApi)];

/// CUPTI at `api_version` (`CUPTI_API_VERSION`), loaded from `path`, as the pipeline
/// describes the run's library.
pub fn library(api_version: u32, path: String) -> Library {
    Library {
        backend: "cupti",
        vendor: rocprof_rs_format::vendor::NVIDIA.clone(),
        versions: vec![
            (rocprof_rs_format::keys::CUPTI_API_VERSION, api_version.to_string()),
            (rocprof_rs_format::keys::CUPTI_LIBRARY, path),
        ],
        api_tables: API_TABLES,
    }
}

/// `CUpti_ActivityMemcpyKind` by value (cupti_activity.h), as `memory_copy.operation`.
const COPY_KINDS: [&str; 11] = [
    "MEMORY_COPY_UNKNOWN",
    "MEMORY_COPY_HOST_TO_DEVICE",
    "MEMORY_COPY_DEVICE_TO_HOST",
    "MEMORY_COPY_HOST_TO_ARRAY",
    "MEMORY_COPY_ARRAY_TO_HOST",
    "MEMORY_COPY_ARRAY_TO_ARRAY",
    "MEMORY_COPY_ARRAY_TO_DEVICE",
    "MEMORY_COPY_DEVICE_TO_ARRAY",
    "MEMORY_COPY_DEVICE_TO_DEVICE",
    "MEMORY_COPY_HOST_TO_HOST",
    "MEMORY_COPY_PEER_TO_PEER",
];

/// Every operation name a CUDA run's tables use: copies, memsets, NVTX and launch calls.
pub fn operations() -> OperationNames {
    let copy = COPY_KIND;
    let mut names = OperationNames::new();
    for (kind, name) in COPY_KINDS.iter().enumerate() {
        names.insert((copy, COPY_OPERATION_BASE + kind as i32), Arc::from(*name));
    }
    names.insert((copy, MEMSET_OPERATION), Arc::from("MEMORY_SET"));
    names.insert((NVTX_KIND, NVTX_RANGE), Arc::from("nvtx_range"));
    names.insert((NVTX_KIND, NVTX_MARK), Arc::from("nvtx_mark"));
    for (cbid, name) in sys::RUNTIME_LAUNCH_CBIDS {
        names.insert((CUDA_RUNTIME_API, *cbid as i32), Arc::from(*name));
    }
    for (cbid, name) in sys::DRIVER_LAUNCH_CBIDS {
        names.insert((CUDA_DRIVER_API, *cbid as i32), Arc::from(*name));
    }
    names
}

#[cfg(test)]
mod tests {
    #[test]
    fn copy_kinds_use_the_sdk_spelling_and_launches_drop_their_version() {
        let names = super::operations();
        let copy = super::COPY_KIND;
        assert_eq!(&*names[&(copy, 0x101)], "MEMORY_COPY_HOST_TO_DEVICE");
        assert_eq!(&*names[&(copy, 0x108)], "MEMORY_COPY_DEVICE_TO_DEVICE");
        assert_eq!(&*names[&(copy, 0x200)], "MEMORY_SET");
        assert_eq!(&*names[&(super::CUDA_RUNTIME_API, 211)], "cudaLaunchKernel");
        assert_eq!(&*names[&(super::CUDA_DRIVER_API, 307)], "cuLaunchKernel");
    }
}
