//! Operation names, from the SDK's own iteration and name queries: an SDK newer than this
//! build names its new operations correctly, and no operation id is hard-coded here.

use std::sync::Arc;

use rocprofiler_sdk_sys as sys;
use sys::sdk::SdkApi;

use super::sdk::calls::{self, Tracing};
use crate::pipeline::run::{Library, OperationNames};
use rocprof_rs_format::Table;

/// The key under which callback-tracing ROCTx range operations are named, apart from the
/// buffer-tracing kinds (whose numbering it cannot collide with).
pub const MARKER_RANGE_KIND: u32 = 0x8000_0000 | sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API;

/// The buffer-tracing kinds of the API tables, each with its table.
pub const API_TABLES: &[(u32, Table)] = &[
    (sys::ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, Table::HipApi),
    (sys::ROCPROFILER_BUFFER_TRACING_HSA_CORE_API, Table::HsaApi),
    (sys::ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API, Table::HsaApi),
    (sys::ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API, Table::HsaApi),
    (sys::ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API, Table::HsaApi),
    (sys::ROCPROFILER_BUFFER_TRACING_RCCL_API, Table::RcclApi),
];

/// The buffer-tracing kinds that fill `table`, in the SDK's order.
pub fn api_kinds(table: Table) -> impl Iterator<Item = u32> {
    API_TABLES.iter().filter(move |(_, t)| *t == table).map(|(kind, _)| *kind)
}

/// The SDK at `version`, as the pipeline describes the run's library.
pub fn library((major, minor, patch): (u32, u32, u32)) -> Library {
    Library {
        backend: "rocprofiler-sdk",
        vendor: rocprof_rs_format::vendor::AMD.clone(),
        versions: vec![(rocprof_rs_format::keys::SDK_VERSION, format!("{major}.{minor}.{patch}"))],
        api_tables: API_TABLES,
    }
}

/// Every operation name of the buffer-tracing `kinds` and of the ROCTx range callbacks.
pub fn operation_names(api: &SdkApi, kinds: &[u32]) -> OperationNames {
    let mut names = OperationNames::new();
    let mut add = |tracing: Tracing, kind: u32, key: u32| {
        for op in calls::operations(api, tracing, kind, crate::lifecycle::disable) {
            if let Ok(name) = calls::operation_name(api, tracing, kind, op) {
                names.insert((key, op), Arc::from(name.to_string_lossy()));
            }
        }
    };
    for &kind in kinds {
        add(Tracing::Buffer, kind, kind);
    }
    let range = sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API;
    add(Tracing::Callback, range, MARKER_RANGE_KIND);
    names
}
