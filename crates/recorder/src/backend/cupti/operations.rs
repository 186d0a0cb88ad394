//! The names CUDA rows get: copy kinds as the SDK spells its own (`MEMORY_COPY_HOST_TO_DEVICE`),
//! so AMD and NVIDIA copies group together in stats, and launch calls as CUDA spells them.

use std::sync::Arc;

use rocprofiler_sdk_sys::cupti as sys;

use super::decode::{COPY_OPERATION_BASE, MEMSET_OPERATION};
use crate::pipeline::rows::{CUDA_DRIVER_API, CUDA_RUNTIME_API, OperationNames};

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

/// Every operation name a CUDA run's tables use: copies, memsets and launch calls.
pub fn operations() -> OperationNames {
    let copy = rocprofiler_sdk_sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
    let mut names = OperationNames::new();
    for (kind, name) in COPY_KINDS.iter().enumerate() {
        names.insert((copy, COPY_OPERATION_BASE + kind as i32), Arc::from(*name));
    }
    names.insert((copy, MEMSET_OPERATION), Arc::from("MEMORY_SET"));
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
        let copy = rocprofiler_sdk_sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
        assert_eq!(&*names[&(copy, 0x101)], "MEMORY_COPY_HOST_TO_DEVICE");
        assert_eq!(&*names[&(copy, 0x108)], "MEMORY_COPY_DEVICE_TO_DEVICE");
        assert_eq!(&*names[&(copy, 0x200)], "MEMORY_SET");
        assert_eq!(&*names[&(super::CUDA_RUNTIME_API, 211)], "cudaLaunchKernel");
        assert_eq!(&*names[&(super::CUDA_DRIVER_API, 307)], "cuLaunchKernel");
    }
}
