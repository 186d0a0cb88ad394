//! `strings.buffer_records`: the name of each buffer-tracing kind and of its operations, by the
//! numbers records carry (`kind`, `operation`).
//!
//! Kinds are SDK 1.0's `rocprofiler_buffer_tracing_kind_t` values, so a record's `kind` means
//! what it means in rocprofv3's files. So are the operations of the kinds whose operations are
//! a short fixed enum (copies, dispatches, scratch, allocations, ROCTx). The API kinds' enums
//! (HIP's has some 480 functions, and it changes between releases) are not known here: their
//! operations are the names the dataset has, numbered in name order. Readers resolve both
//! through this table, as rocprofv3's own tests do.

use std::collections::{BTreeSet, HashMap};

use rocprof_rs_format::Table;

/// SDK 1.0's buffer-tracing kinds, by value.
const KINDS: [&str; 33] = [
    "NONE",
    "HSA_CORE_API",
    "HSA_AMD_EXT_API",
    "HSA_IMAGE_EXT_API",
    "HSA_FINALIZE_EXT_API",
    "HIP_RUNTIME_API",
    "HIP_COMPILER_API",
    "MARKER_CORE_API",
    "MARKER_CONTROL_API",
    "MARKER_NAME_API",
    "MEMORY_COPY",
    "KERNEL_DISPATCH",
    "SCRATCH_MEMORY",
    "CORRELATION_ID_RETIREMENT",
    "RCCL_API",
    "OMPT",
    "MEMORY_ALLOCATION",
    "RUNTIME_INITIALIZATION",
    "ROCDECODE_API",
    "ROCJPEG_API",
    "HIP_STREAM",
    "HIP_RUNTIME_API_EXT",
    "HIP_COMPILER_API_EXT",
    "ROCDECODE_API_EXT",
    "KFD_EVENT_PAGE_MIGRATE",
    "KFD_EVENT_PAGE_FAULT",
    "KFD_EVENT_QUEUE",
    "KFD_EVENT_UNMAP_FROM_GPU",
    "KFD_EVENT_DROPPED_EVENTS",
    "KFD_PAGE_MIGRATE",
    "KFD_PAGE_FAULT",
    "KFD_QUEUE",
    "MARKER_CORE_RANGE_API",
];

pub(super) const MEMORY_COPY: usize = 10;
pub(super) const KERNEL_DISPATCH: usize = 11;
pub(super) const SCRATCH_MEMORY: usize = 12;
pub(super) const MEMORY_ALLOCATION: usize = 16;
const RCCL_API: usize = 14;
const MARKER_CORE_API: usize = 7;
const MARKER_CONTROL_API: usize = 8;
const MARKER_NAME_API: usize = 9;
const MARKER_CORE_RANGE_API: usize = 32;

/// The operation that completes a dispatch, the one buffer records carry.
pub(super) const KERNEL_DISPATCH_COMPLETE: usize = 2;

/// The operations of the kinds whose enums are short and fixed, by value (SDK 1.0).
fn fixed(kind: usize) -> &'static [&'static str] {
    match kind {
        MARKER_CORE_API => &[
            "roctxMarkA",
            "roctxRangePushA",
            "roctxRangePop",
            "roctxRangeStartA",
            "roctxRangeStop",
            "roctxGetThreadId",
        ],
        MARKER_CONTROL_API => &["roctxProfilerPause", "roctxProfilerResume"],
        MARKER_NAME_API => &["roctxNameOsThread", "roctxNameHsaAgent", "roctxNameHipDevice", "roctxNameHipStream"],
        MEMORY_COPY => &[
            "MEMORY_COPY_NONE",
            "MEMORY_COPY_HOST_TO_HOST",
            "MEMORY_COPY_HOST_TO_DEVICE",
            "MEMORY_COPY_DEVICE_TO_HOST",
            "MEMORY_COPY_DEVICE_TO_DEVICE",
        ],
        KERNEL_DISPATCH => &["KERNEL_DISPATCH_NONE", "KERNEL_DISPATCH_ENQUEUE", "KERNEL_DISPATCH_COMPLETE"],
        SCRATCH_MEMORY => {
            &["SCRATCH_MEMORY_NONE", "SCRATCH_MEMORY_ALLOC", "SCRATCH_MEMORY_FREE", "SCRATCH_MEMORY_ASYNC_RECLAIM"]
        }
        MEMORY_ALLOCATION => &[
            "MEMORY_ALLOCATION_NONE",
            "MEMORY_ALLOCATION_ALLOCATE",
            "MEMORY_ALLOCATION_VMEM_ALLOCATE",
            "MEMORY_ALLOCATION_FREE",
            "MEMORY_ALLOCATION_VMEM_FREE",
        ],
        MARKER_CORE_RANGE_API => &["roctxMarkA", "roctxThreadRangeA", "roctxProcessRangeA", "roctxGetThreadId"],
        _ => &[],
    }
}

/// The tables whose rows are buffer records named through this table.
pub(super) const NAMED_TABLES: [Table; 7] = [
    Table::HipApi,
    Table::HsaApi,
    Table::RcclApi,
    Table::Marker,
    Table::MemoryCopy,
    Table::MemoryAllocation,
    Table::ScratchMemory,
];

/// The kind of a row of `table` whose operation is `op`.
pub(super) fn kind_of(table: Table, op: &str) -> usize {
    let by_name = |name: &str| KINDS.iter().position(|k| *k == name).unwrap_or(0);
    match table {
        Table::HipApi | Table::HsaApi => by_name(super::super::rocprofv3::domain(table, op)),
        Table::RcclApi => RCCL_API,
        Table::MemoryCopy => MEMORY_COPY,
        Table::MemoryAllocation => MEMORY_ALLOCATION,
        Table::ScratchMemory => SCRATCH_MEMORY,
        Table::Marker => marker_kind(op),
        _ => 0,
    }
}

/// A ROCTx operation's kind. rocprofv3's CSV gives only the domain, so an imported marker's
/// operation may be the kind's own name.
fn marker_kind(op: &str) -> usize {
    if let Some(kind) = [MARKER_CORE_API, MARKER_CONTROL_API, MARKER_NAME_API, MARKER_CORE_RANGE_API]
        .into_iter()
        .find(|&k| KINDS[k] == op)
    {
        return kind;
    }
    [MARKER_CORE_RANGE_API, MARKER_CORE_API, MARKER_CONTROL_API, MARKER_NAME_API]
        .into_iter()
        .find(|&k| fixed(k).contains(&op))
        .unwrap_or(MARKER_CORE_RANGE_API)
}

/// The operation names of every kind, as they are numbered in the export.
#[derive(Debug, Default)]
pub(super) struct Names {
    /// What the dataset has beyond the fixed enums, per kind, until [`Names::number`].
    extra: HashMap<usize, BTreeSet<String>>,
    operations: Vec<Vec<String>>,
    /// Per kind, each operation's number.
    numbers: Vec<HashMap<String, usize>>,
}

/// One entry of `strings.buffer_records`.
#[derive(Debug, serde::Serialize)]
pub(super) struct KindNames<'a> {
    kind: &'a str,
    operations: &'a [String],
}

impl Names {
    /// Notes that the dataset has operation `op` of `kind`.
    pub fn saw(&mut self, kind: usize, op: &str) {
        if fixed(kind).contains(&op) || self.extra.get(&kind).is_some_and(|s| s.contains(op)) {
            return;
        }
        self.extra.entry(kind).or_default().insert(op.to_owned());
    }

    /// Numbers every operation seen: the fixed enums' values, then the rest in name order.
    pub fn number(&mut self) {
        self.operations = (0..KINDS.len())
            .map(|kind| {
                let mut ops: Vec<String> = fixed(kind).iter().map(|s| (*s).to_owned()).collect();
                ops.extend(self.extra.remove(&kind).unwrap_or_default());
                ops
            })
            .collect();
        self.numbers = self
            .operations
            .iter()
            .map(|ops| ops.iter().enumerate().rev().map(|(number, op)| (op.clone(), number)).collect())
            .collect();
    }

    /// The number of operation `op` of `kind` (0, the kind's `NONE`, if it was never seen).
    pub fn operation(&self, kind: usize, op: &str) -> usize {
        self.numbers.get(kind).and_then(|n| n.get(op)).copied().unwrap_or(0)
    }

    /// `strings.buffer_records`, one entry per kind by value.
    pub fn entries(&self) -> Vec<KindNames<'_>> {
        KINDS.iter().zip(&self.operations).map(|(kind, operations)| KindNames { kind, operations }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_operations_keep_their_sdk_numbers_and_the_rest_follow_by_name() {
        let mut names = Names::default();
        for (table, op) in [
            (Table::HipApi, "hipMalloc"),
            (Table::HipApi, "hipLaunchKernel"),
            (Table::HipApi, "__hipPushCallConfiguration"),
            (Table::MemoryCopy, "MEMORY_COPY_DEVICE_TO_HOST"),
            (Table::MemoryCopy, "MEMORY_SET"),
            (Table::Marker, "roctxThreadRangeA"),
            (Table::Marker, "MARKER_CORE_API"),
        ] {
            names.saw(kind_of(table, op), op);
        }
        names.number();
        assert_eq!(names.operation(21, "hipLaunchKernel"), 0);
        assert_eq!(names.operation(21, "hipMalloc"), 1);
        assert_eq!(names.operation(22, "__hipPushCallConfiguration"), 0);
        assert_eq!(names.operation(MEMORY_COPY, "MEMORY_COPY_DEVICE_TO_HOST"), 3);
        assert_eq!(names.operation(MEMORY_COPY, "MEMORY_SET"), 5, "after the enum");
        assert_eq!(kind_of(Table::Marker, "roctxThreadRangeA"), MARKER_CORE_RANGE_API);
        assert_eq!(names.operation(MARKER_CORE_RANGE_API, "roctxThreadRangeA"), 1);
        assert_eq!(kind_of(Table::Marker, "MARKER_CORE_API"), MARKER_CORE_API);
        assert_eq!(kind_of(Table::Marker, "roctxRangePushA"), MARKER_CORE_API);
        let entries = names.entries();
        assert_eq!(entries.len(), 33);
        assert_eq!(entries[MARKER_CORE_API].operations.last().map(String::as_str), Some("MARKER_CORE_API"));
        assert_eq!(
            serde_json::to_string(&entries[KERNEL_DISPATCH]).unwrap(),
            "{\"kind\":\"KERNEL_DISPATCH\",\"operations\":[\"KERNEL_DISPATCH_NONE\",\"KERNEL_DISPATCH_ENQUEUE\",\"KERNEL_DISPATCH_COMPLETE\"]}"
        );
    }
}
