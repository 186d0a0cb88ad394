//! The parts of rocprofv3's `results.json` that become rows, as its serializer writes them
//! (rocprofiler-sdk's cereal `save` functions and `generateJSON.cpp`, ROCm 7.0).
//!
//! Only what a table holds is declared; every other key is skipped, so the fields a later
//! rocprofv3 adds, and the ones 7.0 and develop spell differently (`dims`/`dimensions`,
//! `uuid`), pass through. Checks that need a whole record (an end before its start, say) run in
//! `TryFrom`, inside the parser, so their errors carry the record's place in the file.

use serde::Deserialize;

/// The whole file: one element per profiled process (rocprofv3 writes one).
#[derive(Debug, Deserialize)]
pub struct File {
    #[serde(rename = "rocprofiler-sdk-tool")]
    pub processes: Vec<Process>,
}

#[derive(Debug, Deserialize)]
pub struct Process {
    pub metadata: Metadata,
    /// `rocprofiler_agent_v0_t` objects, kept whole: the agent table reads them as rocpd's
    /// `extdata` (the same object).
    #[serde(default)]
    pub agents: Vec<serde_json::Value>,
    /// One entry per (GPU agent, counter): every counter of the GPU in 7.0, the requested ones
    /// in later releases.
    #[serde(default)]
    pub counters: Vec<CounterInfo>,
    pub strings: Strings,
    /// Indexed by kernel id, with an empty entry at 0 and in gaps.
    #[serde(default)]
    pub kernel_symbols: Vec<KernelSymbol>,
    #[serde(default)]
    pub callback_records: CallbackRecords,
    #[serde(default)]
    pub buffer_records: BufferRecords,
}

#[derive(Debug, Deserialize)]
pub struct Metadata {
    pub pid: u32,
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct Handle {
    pub handle: u64,
}

#[derive(Debug, Deserialize)]
pub struct CounterInfo {
    #[serde(default)]
    pub agent_id: Handle,
    pub id: Handle,
    pub name: String,
}

/// Name tables: entry `kind` of `buffer_records` names buffer-tracing kind `kind` and its
/// operations, by enum value.
#[derive(Debug, Deserialize)]
pub struct Strings {
    #[serde(default)]
    pub buffer_records: Vec<KindNames>,
    /// ROCTx messages by the marker record's internal correlation id.
    #[serde(default)]
    pub marker_api: Vec<Entry<u64, String>>,
    #[serde(default)]
    pub correlation_id: ExternalNames,
}

#[derive(Debug, Deserialize)]
pub struct KindNames {
    #[serde(default)]
    pub operations: Vec<String>,
}

/// A map entry: cereal writes maps as arrays of these.
#[derive(Debug, Deserialize)]
pub struct Entry<K, V> {
    pub key: K,
    pub value: V,
}

/// `--kernel-rename`'s region names, by the id kernel records carry as their external
/// correlation id.
#[derive(Debug, Default, Deserialize)]
pub struct ExternalNames {
    #[serde(default)]
    pub external: Vec<Entry<u64, String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct KernelSymbol {
    pub kernel_id: u64,
    pub code_object_id: u64,
    /// The mangled symbol, `.kd` suffix and all.
    pub kernel_name: String,
    pub kernarg_segment_size: u32,
    pub group_segment_size: u32,
    pub private_segment_size: u32,
    pub sgpr_count: u32,
    pub arch_vgpr_count: u32,
    pub accum_vgpr_count: u32,
    /// The name rocprofv3's CSV and tests show: demangled, `.kd` cut, per the run's options.
    pub formatted_kernel_name: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct CallbackRecords {
    pub counter_collection: Vec<CounterRecord>,
}

/// Every record array rocprofv3 writes; the ones no table holds are counted, not kept.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct BufferRecords {
    pub kernel_dispatch: Vec<KernelDispatch>,
    pub hip_api: Vec<Api>,
    pub hsa_api: Vec<Api>,
    pub marker_api: Vec<Api>,
    pub rccl_api: Vec<Api>,
    pub memory_copy: Vec<MemoryCopy>,
    pub memory_allocation: Vec<MemoryAllocation>,
    pub scratch_memory: Vec<ScratchMemory>,
    pub rocdecode_api: Vec<serde::de::IgnoredAny>,
    pub rocjpeg_api: Vec<serde::de::IgnoredAny>,
    pub pc_sample_host_trap: Vec<serde::de::IgnoredAny>,
    pub pc_sample_stochastic: Vec<serde::de::IgnoredAny>,
}

/// A correlation id; asynchronous records (dispatches, copies) have no ancestor.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Correlation {
    pub internal: u64,
    #[serde(default)]
    pub external: u64,
    #[serde(default)]
    pub ancestor: u64,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub struct DispatchInfo {
    pub agent_id: Handle,
    pub queue_id: Handle,
    pub kernel_id: u64,
    pub dispatch_id: u64,
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub workgroup_size: Dim3,
    /// In work-items.
    pub grid_size: Dim3,
}

/// A record's bounds, checked: not reversed, and within the dataset's signed nanoseconds.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    pub start: i64,
    pub end: i64,
}

/// Timestamps that make no span.
#[derive(Debug, thiserror::Error)]
pub enum SpanError {
    /// The end before the start.
    #[error("end_timestamp {end} is before start_timestamp {start}")]
    Reversed { start: u64, end: u64 },
    /// Beyond what the dataset's signed nanoseconds hold.
    #[error("end_timestamp {0} is beyond 2^63 ns")]
    TooLate(u64),
}

impl Span {
    fn new(start: u64, end: u64) -> Result<Span, SpanError> {
        if end < start {
            return Err(SpanError::Reversed { start, end });
        }
        let end = i64::try_from(end).map_err(|_| SpanError::TooLate(end))?;
        Ok(Span { start: start as i64, end })
    }
}

/// Declares a record whose timestamps become a checked [`Span`]: `$raw` (named again as a
/// string for serde) is the record as written, `$name` the record with `span` in place of the
/// two timestamps.
macro_rules! spanned {
    ($(#[$meta:meta])* $name:ident, $raw_str:literal, $raw:ident { $($(#[$fmeta:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Deserialize)]
        #[serde(try_from = $raw_str)]
        pub struct $name {
            pub span: Span,
            $($(#[$fmeta])* pub $field: $ty),*
        }

        #[derive(Debug, Deserialize)]
        struct $raw {
            start_timestamp: u64,
            end_timestamp: u64,
            $($(#[$fmeta])* $field: $ty),*
        }

        impl TryFrom<$raw> for $name {
            type Error = SpanError;

            fn try_from(raw: $raw) -> Result<$name, SpanError> {
                Ok($name { span: Span::new(raw.start_timestamp, raw.end_timestamp)?, $($field: raw.$field),* })
            }
        }
    };
}

spanned! {
    /// `buffer_records.kernel_dispatch[]`: the GPU's begin and end of one dispatch.
    KernelDispatch, "RawKernelDispatch", RawKernelDispatch {
        thread_id: u64,
        correlation_id: Correlation,
        dispatch_info: DispatchInfo,
        #[serde(default)]
        stream_id: Option<Handle>,
    }
}

spanned! {
    /// An API call (`hip_api`, `hsa_api`, `rccl_api`) or a ROCTx record (`marker_api`): its
    /// name is `strings.buffer_records[kind].operations[operation]`.
    Api, "RawApi", RawApi {
        kind: usize,
        operation: usize,
        correlation_id: Correlation,
        thread_id: u64,
    }
}

spanned! {
    /// `buffer_records.memory_copy[]`; the addresses are not written.
    MemoryCopy, "RawMemoryCopy", RawMemoryCopy {
        kind: usize,
        operation: usize,
        thread_id: u64,
        correlation_id: Correlation,
        dst_agent_id: Handle,
        src_agent_id: Handle,
        bytes: u64,
    }
}

spanned! {
    /// `buffer_records.memory_allocation[]`; frees have agent 0 and size 0.
    MemoryAllocation, "RawMemoryAllocation", RawMemoryAllocation {
        kind: usize,
        operation: usize,
        thread_id: u64,
        correlation_id: Correlation,
        agent_id: Handle,
        address: Address,
        allocation_size: u64,
    }
}

spanned! {
    /// `buffer_records.scratch_memory[]`; `allocation_size` arrived after 7.0.
    ScratchMemory, "RawScratchMemory", RawScratchMemory {
        kind: usize,
        operation: usize,
        agent_id: Handle,
        queue_id: Handle,
        thread_id: u64,
        correlation_id: Correlation,
        flags: u32,
        #[serde(default)]
        allocation_size: u64,
    }
}

spanned! {
    /// `callback_records.counter_collection[].dispatch_data`: the dispatch the values are of.
    DispatchData, "RawDispatchData", RawDispatchData {
        correlation_id: Correlation,
        dispatch_info: DispatchInfo,
    }
}

/// `callback_records.counter_collection[]`: one entry in `records` per counter instance, in
/// the SDK's order, without the instance's index.
#[derive(Debug, Deserialize)]
pub struct CounterRecord {
    pub thread_id: u64,
    pub dispatch_data: DispatchData,
    pub records: Vec<CounterValue>,
    #[serde(default)]
    pub stream_id: Option<Handle>,
}

#[derive(Debug, Deserialize)]
pub struct CounterValue {
    pub counter_id: Handle,
    pub value: f64,
}

/// An address: `"0x00007f3a40000000"` as rocprofv3 writes it, or a plain number.
#[derive(Debug, Clone, Copy)]
pub struct Address(pub u64);

impl<'de> Deserialize<'de> for Address {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Address, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Number(u64),
            Text(String),
        }
        match Written::deserialize(deserializer)? {
            Written::Number(n) => Ok(Address(n)),
            Written::Text(text) => {
                let hex = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"));
                let parsed = match hex {
                    Some(hex) => u64::from_str_radix(hex, 16).ok(),
                    None => text.parse().ok(),
                };
                parsed.map(Address).ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not an address")))
            }
        }
    }
}
