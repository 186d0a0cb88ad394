//! Operation names, from the SDK's own iteration and name queries: an SDK newer than this
//! build names its new operations correctly, and no operation id is hard-coded here.

use std::sync::Arc;

use rocprofiler_sdk_sys as sys;
use sys::sdk::SdkApi;

use super::sdk::calls::{self, Tracing};
use crate::pipeline::records::MARKER_RANGE_KIND;
use crate::pipeline::rows::OperationNames;

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
