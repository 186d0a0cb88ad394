//! CUPTI's activity buffers: handed out on request, decoded on completion, reused.
//!
//! CUPTI asks for a buffer on the thread that needs one (buffers are per thread), so a request
//! only pops a spent buffer or allocates; completion runs on CUPTI's worker thread or inside
//! our flush, where the records are decoded and queued while the buffer is still ours, and the
//! buffer goes back to the pool.

use std::alloc::Layout;
use std::collections::HashMap;
use std::ffi::{CStr, c_void};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crossbeam_queue::ArrayQueue;
use parking_lot::Mutex;

use super::CUDA;
use super::api::activity;
use super::api::load::cupti;
use super::decode::{self, Activity, CudaKernel, Decoded, Names};
use crate::lifecycle::{running, trampoline};
use crate::pipeline::queue::{Batch, Queue};
use crate::pipeline::records::{Record, Symbol, Tally};

/// The run metadata's count of the range profiler's own kernels left out.
const RANGE_PROFILER_KERNELS: &str = "counter_profiler_kernels_left_out";
/// The run metadata's count of NVTX ranges never closed.
pub(super) const UNCLOSED_RANGES: &str = "unclosed_nvtx_ranges";

/// Bytes of buffers out at once before requests are refused: with per-thread buffers, a process
/// whose threads all launch work needs one each (and about as many again completed and waiting
/// for CUPTI's worker), and the writer falls behind only past this. Counted in bytes, so that
/// smaller buffers (1 MiB by default) leave room for as many launching threads as 64 buffers of
/// 8 MiB did.
const MAX_OUTSTANDING_BYTES: usize = 512 << 20;

/// Buffers out at once before requests are refused, at least.
const MIN_OUTSTANDING: usize = 64;

/// From this `CUPTI_API_VERSION` on, a refused buffer request is safe: CUPTI drops the records
/// and counts them. Before it, refusing can crash CUPTI (Kineto's rule).
const REFUSAL_SAFE_FROM: u32 = 27;

/// Spent buffers for reuse, and the count handed out.
pub(super) struct Pool {
    free: ArrayQueue<usize>,
    layout: Layout,
    outstanding: AtomicUsize,
    /// Buffers out at once before requests are refused.
    max_outstanding: usize,
    refusal_safe: bool,
    names: Mutex<NameCache>,
    /// NVTX ranges waiting for their other end, across completions.
    pub(super) nvtx: Mutex<super::nvtx::Pairing>,
    /// The range profiler's own kernels left out (see [`CudaKernel::is_range_profilers`]).
    range_profiler_kernels: AtomicU64,
    dump: Option<super::flush::Dump>,
}

impl Pool {
    pub(super) fn new(bytes: usize, version: u32, dump: Option<super::flush::Dump>) -> Pool {
        let layout = Layout::from_size_align(bytes.max(64 << 10), 8).expect("a valid buffer size");
        let max_outstanding = (MAX_OUTSTANDING_BYTES / layout.size()).max(MIN_OUTSTANDING);
        Pool {
            free: ArrayQueue::new(max_outstanding),
            layout,
            outstanding: AtomicUsize::new(0),
            max_outstanding,
            refusal_safe: version >= REFUSAL_SAFE_FROM,
            names: Mutex::new(NameCache::default()),
            nvtx: Mutex::new(Default::default()),
            range_profiler_kernels: AtomicU64::new(0),
            dump,
        }
    }

    fn take(&self) -> *mut u8 {
        if let Some(buffer) = self.free.pop() {
            return buffer as *mut u8;
        }
        // SAFETY: a non-zero size; the result is checked for null.
        unsafe { std::alloc::alloc(self.layout) }
    }

    fn give_back(&self, buffer: *mut u8) {
        if let Err(buffer) = self.free.push(buffer as usize) {
            // SAFETY: allocated by `take` with this layout and no longer used by CUPTI.
            unsafe { std::alloc::dealloc(buffer as *mut u8, self.layout) };
        }
    }
}

/// `CUpti_BuffersCallbackRequestFunc`.
pub(super) unsafe extern "C" fn requested(buffer: *mut *mut u8, size: *mut usize, max_records: *mut usize) {
    trampoline("the CUPTI buffer request", (), || {
        if buffer.is_null() || size.is_null() {
            return;
        }
        let Some(pool) = CUDA.get().map(|c| &c.buffers) else { return };
        let refuse = pool.refusal_safe && pool.outstanding.load(Ordering::Relaxed) >= pool.max_outstanding;
        let given = if refuse { std::ptr::null_mut() } else { pool.take() };
        if !given.is_null() {
            let held = pool.outstanding.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(tool) = running() {
                tool.queue().note_library_buffers(held, pool.layout.size());
            }
        }
        // SAFETY: CUPTI's out-pointer, checked for null above.
        unsafe { *buffer = given };
        // SAFETY: as above.
        unsafe { *size = if given.is_null() { 0 } else { pool.layout.size() } };
        if !max_records.is_null() {
            // SAFETY: as above.
            unsafe { *max_records = pool.dump.as_ref().map_or(0, |d| d.records_per_buffer) };
        }
    })
}

/// `CUpti_BuffersCallbackCompleteFunc`.
pub(super) unsafe extern "C" fn completed(
    _context: *mut c_void,
    _stream: u32,
    buffer: *mut u8,
    _size: usize,
    valid: usize,
) {
    trampoline("the CUPTI buffer completion", (), || {
        let Some(pool) = CUDA.get().map(|c| &c.buffers) else { return };
        if buffer.is_null() {
            return;
        }
        // Given back however decoding ends, a panic included.
        struct Return<'a>(&'a Pool, *mut u8);
        impl Drop for Return<'_> {
            fn drop(&mut self) {
                self.0.outstanding.fetch_sub(1, Ordering::Relaxed);
                self.0.give_back(self.1);
            }
        }
        let _return = Return(pool, buffer);
        // A claim of more valid bytes than the buffer holds is cut to the buffer: what lies past
        // it is not ours to read.
        let valid = valid.min(pool.layout.size());
        // SAFETY: CUPTI hands us the buffer we gave it, `pool.layout.size()` bytes, with `valid`
        // bytes of records.
        let bytes = unsafe { std::slice::from_raw_parts(buffer, valid) };
        ingest(pool, buffer, bytes);
    })
}

fn ingest(pool: &Pool, buffer: *mut u8, bytes: &[u8]) {
    let (Some(tool), Some(cupti), Some(cuda)) = (running(), cupti(), CUDA.get()) else { return };
    tool.fault_point();
    // SAFETY: the buffer CUPTI completed, still ours, whose first `bytes.len()` bytes are records.
    let offsets = unsafe { activity::record_offsets(cupti, buffer, bytes.len()) };
    let mut names = pool.names.lock();
    names.recording = pool.dump.is_some();
    names.seen.clear();
    let queue = tool.queue();
    let mut batch = queue.batch();
    let counting = super::counting::enabled();
    let untimed = if super::windowed() { untimed_launches(bytes, &offsets) } else { Vec::new() };
    let mut dropped_untimed = 0u64;
    for (i, &at) in offsets.iter().enumerate() {
        let end = offsets.get(i + 1).copied().unwrap_or(bytes.len());
        match decode::decode(&bytes[at..end], &mut *names) {
            Activity::Record(Decoded::Kernel(k), _) if untimed.binary_search(&k.correlation_id).is_ok() => {
                dropped_untimed += 1;
            }
            Activity::Record(Decoded::Kernel(k), name) => {
                let new = names.announce(k.kernel_id);
                let left_out = counting.then_some(&pool.range_profiler_kernels);
                kernel_records(&k, name, new, left_out, |record| queue.push(&mut batch, record));
            }
            Activity::Record(Decoded::Copy(copy), _) => queue.push(&mut batch, Record::Copy(copy)),
            Activity::Record(Decoded::Device(device), _) => {
                queue.push(&mut batch, Record::Device(Box::new(device.device())));
            }
            Activity::Record(Decoded::NvtxEdge(edge), _) => pair(pool, queue, &mut batch, &edge),
            Activity::Record(Decoded::Graph(launch), _) => queue.push(&mut batch, Record::row(launch)),
            Activity::BadTimestamps => {
                cuda.bad_timestamps.fetch_add(1, Ordering::Relaxed);
            }
            Activity::Skipped(_) => {}
        }
    }
    if dropped_untimed > 0 {
        let total = super::switching::OVERLAPPING.fetch_add(dropped_untimed, Ordering::Relaxed) + dropped_untimed;
        queue.push(&mut batch, Record::Tally(Tally { key: UNTIMED_AT_A_CLOSE, count: total }));
    }
    if let Some(dump) = &pool.dump {
        dump.write(bytes, &offsets, &names.seen);
    }
    drop(names);
    if let Ok(dropped) = activity::dropped_records(cupti)
        && dropped > 0
    {
        queue.add_library_drops(dropped as u64);
    }
    queue.send(batch);
}

/// What a kernel record becomes: its symbol first where the kernel is `new`, then its
/// launch; or, where counting (`left_out` is its count), for the range profiler's own kernel,
/// the count of those left out.
/// The metadata key of the kernel records dropped in windowed runs for ends that cannot be the
/// GPU's (`switching`).
const UNTIMED_AT_A_CLOSE: &str = "kernels_untimed_at_a_window_close";

/// The launches of one buffer whose kernels' ends cannot be the GPU's (`switching`).
fn untimed_launches(bytes: &[u8], offsets: &[usize]) -> Vec<u64> {
    struct Unnamed;
    impl Names for Unnamed {
        fn name(&mut self, _: u64) -> Option<Arc<str>> {
            None
        }
    }
    let mut kernels = Vec::new();
    for (i, &at) in offsets.iter().enumerate() {
        let end = offsets.get(i + 1).copied().unwrap_or(bytes.len());
        if decode::kind(&bytes[at..end]) != Some(rocprofiler_sdk_sys::cupti::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            continue;
        }
        if let Activity::Record(Decoded::Kernel(k), _) = decode::decode(&bytes[at..end], &mut Unnamed) {
            kernels.push((k.stream_id, k.start_ns, k.end_ns, k.correlation_id));
        }
    }
    super::switching::overlapping_launches(&mut kernels)
}

fn kernel_records(
    k: &CudaKernel,
    name: Option<Arc<str>>,
    new: bool,
    left_out: Option<&AtomicU64>,
    mut push: impl FnMut(Record),
) {
    let range_profilers = left_out.filter(|_| k.is_range_profilers(name.as_deref()));
    if new {
        let symbol = symbol(k, name);
        super::pc_sampling::kernel_named(&symbol.mangled, k.kernel_id);
        push(Record::Symbol(Box::new(symbol)));
    }
    match range_profilers {
        Some(count) => {
            let count = count.fetch_add(1, Ordering::Relaxed) + 1;
            push(Record::Tally(Tally { key: RANGE_PROFILER_KERNELS, count }));
        }
        None => push(Record::Kernel(k.launch())),
    }
}

/// A kernel's symbol, from its first record: CUPTI has no code-object callback that would
/// give it apart.
fn symbol(k: &CudaKernel, name: Option<Arc<str>>) -> Symbol {
    let mangled = name.unwrap_or_else(|| format!("<kernel at {:#x}>", k.kernel_id).into());
    Symbol {
        kernel_id: k.kernel_id,
        code_object_id: 0,
        mangled,
        kernarg_size: 0,
        group_segment_size: k.static_shared.max(0) as u32,
        private_segment_size: k.local_per_thread,
        sgpr: 0,
        arch_vgpr: u32::from(k.registers),
        accum_vgpr: 0,
    }
}

/// An NVTX edge to the pairing; the range or mark it completes to the queue, and where hangs
/// are watched, the range it opens.
fn pair(pool: &Pool, queue: &Queue, batch: &mut Batch, edge: &decode::NvtxEdge) {
    let mut nvtx = pool.nvtx.lock();
    if let Some(range) = nvtx.add(edge) {
        queue.push(batch, Record::Marker(Box::new(range.into_marker())));
    } else if super::callbacks::watches_hangs()
        && let Some(open) = nvtx.opened(edge)
    {
        queue.push(batch, Record::MarkerOpen(Box::new(open)));
    }
}

/// The NVTX ranges still open, for the run metadata at its end.
pub(super) fn unclosed_ranges(pool: &Pool) -> Tally {
    Tally { key: UNCLOSED_RANGES, count: pool.nvtx.lock().unclosed() as u64 }
}

/// Names read from CUPTI's strings, kept by pointer: kernel and domain names repeat on every
/// record. Bounded, since marker messages can all differ.
#[derive(Default)]
pub(super) struct NameCache {
    by_pointer: HashMap<u64, Arc<str>>,
    announced: std::collections::HashSet<u64>,
    /// Every pointer read for the current buffer, for the fixture dump's sidecar.
    pub(super) seen: Vec<(u64, Arc<str>)>,
    pub(super) recording: bool,
}

const NAME_CACHE_LIMIT: usize = 1 << 16;

impl NameCache {
    /// Whether the kernel is new, so its symbol must be sent first.
    fn announce(&mut self, kernel_id: u64) -> bool {
        self.announced.insert(kernel_id)
    }
}

impl Names for NameCache {
    fn name(&mut self, pointer: u64) -> Option<Arc<str>> {
        if pointer == 0 {
            return None;
        }
        let name = match self.by_pointer.get(&pointer) {
            Some(name) => name.clone(),
            None => {
                // SAFETY: a name pointer of a record in a buffer CUPTI completed: a NUL-terminated
                // string CUPTI keeps alive at least as long as the buffer.
                let text: Arc<str> =
                    unsafe { CStr::from_ptr(pointer as *const std::ffi::c_char) }.to_string_lossy().into();
                if self.by_pointer.len() < NAME_CACHE_LIMIT {
                    self.by_pointer.insert(pointer, text.clone());
                }
                text
            }
        };
        if self.recording {
            self.seen.push((pointer, name.clone()));
        }
        Some(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smaller_buffers_leave_room_for_as_many_launching_threads() {
        let pool = |bytes| Pool::new(bytes, REFUSAL_SAFE_FROM, None).max_outstanding;
        assert_eq!(pool(8 << 20), 64, "as before: 64 buffers of 8 MiB");
        assert_eq!(pool(crate::config::CUPTI_BUFFER_BYTES), 512, "the same 512 MiB in 1 MiB buffers");
        assert_eq!(pool(64 << 20), 64, "never fewer than 64");
    }

    fn kernel(kernel_id: u64, correlation_id: u64, grid_id: u64) -> CudaKernel {
        CudaKernel {
            start_ns: 1_000 * grid_id,
            end_ns: 1_000 * grid_id + 500,
            correlation_id,
            grid_id,
            graph_node_id: 0,
            kernel_id,
            device_id: 0,
            stream_id: 7,
            graph_id: 0,
            grid: [1, 1, 1],
            block: [32, 1, 1],
            cluster: [0; 3],
            static_shared: 0,
            dynamic_shared: 0,
            local_per_thread: 0,
            registers: 16,
        }
    }

    /// The range profiler's `WaitNs`: one thread.
    fn wait_ns(kernel_id: u64, correlation_id: u64, grid_id: u64) -> CudaKernel {
        CudaKernel { block: [1, 1, 1], ..kernel(kernel_id, correlation_id, grid_id) }
    }

    /// A counted dispatch of one value, joined by the launch's correlation ids.
    fn counted(dispatch_id: u64, correlation: u64, value: f64) -> [Record; 2] {
        crate::pipeline::counter_rows::testing::counted_at(
            dispatch_id,
            [correlation, correlation + 1000],
            value,
            (0, 0),
        )
    }

    /// CUPTI's counter records come before or after the kernel's activity record: either way
    /// the row goes to the kernel with the launch's correlation id, never to the range
    /// profiler's own `WaitNs` kernel of the same launch, which is no row at all.
    #[test]
    fn cupti_counter_rows_join_their_kernel_and_the_profiler_kernel_is_left_out() {
        use crate::pipeline::records::CounterPlan;
        use crate::pipeline::rows::Tables;
        use rocprof_rs_format::Table;
        let dir = std::env::temp_dir().join(format!("rocprof-rs-cupti-join-{}", std::process::id()));
        let vars = [("ROCPROF_RS_OUTPUT_DIR".to_owned(), dir.display().to_string())].into();
        let config =
            crate::config::Config::from_vars(&vars, &crate::config::Placeholders::of_this_process(&vars)).unwrap();
        let seed = crate::pipeline::run::Seed {
            operations: super::super::operations::operations(),
            library: super::super::operations::library(130001, String::new()),
            counters: Some(crate::pipeline::run::CounterNames {
                deferred: true,
                join_launches: true,
                ..Default::default()
            }),
        };
        let mut tables = Tables::new(config, seed, crate::pipeline::rows::no_agents(), 0).unwrap();
        let left_out = AtomicU64::new(0);
        let mut announced = std::collections::HashSet::new();
        let mut records = vec![Record::CounterPlan(Box::new(CounterPlan {
            agent_id: 0,
            label: "GPU 0 (GH100)".into(),
            metrics: vec!["dram__bytes_read.sum".into()],
            groups: vec![vec!["dram__bytes_read.sum".into()]],
        }))];
        let mut kernels = |records: &mut Vec<Record>, ks: &[CudaKernel]| {
            for k in ks {
                let name: Arc<str> = if k.kernel_id == 0xb { "WaitNs".into() } else { "copy".into() };
                let new = announced.insert(k.kernel_id);
                kernel_records(k, Some(name), new, Some(&left_out), |r| records.push(r));
            }
        };
        // Counters first, then the profiler's kernel and the application's.
        records.extend(counted(1 << 62 | 1, 5, 111.0));
        kernels(&mut records, &[wait_ns(0xb, 5, 10), kernel(0xa, 5, 11)]);
        // The application's kernel first, then its counters (joined by the driver correlation).
        kernels(&mut records, &[kernel(0xa, 1006, 12)]);
        records.extend(counted(1 << 62 | 2, 6, 222.0));
        // The profiler's kernel before the launch's counters (a flush inside the session), then
        // the application's kernel.
        kernels(&mut records, &[wait_ns(0xb, 7, 13)]);
        records.extend(counted(1 << 62 | 3, 7, 333.0));
        kernels(&mut records, &[kernel(0xa, 7, 14)]);
        tables.add(&records).unwrap();
        tables.finish(&[], &crate::pipeline::summary::Summary::default()).unwrap();
        tables.write_run_metadata(&crate::pipeline::summary::Summary::default()).unwrap();
        assert_eq!(left_out.load(Ordering::Relaxed), 2);
        let rows: std::collections::HashMap<Table, u64> = tables.rows_written().into_iter().collect();
        assert_eq!(rows[&Table::KernelDispatch], 3, "the three copies, not WaitNs");
        assert_eq!(rows[&Table::Counter], 3);
        let metadata = std::fs::read_to_string(dir.join(rocprof_rs_format::keys::metadata_file_name(tables.stem())));
        let metadata: serde_json::Value = serde_json::from_str(&metadata.unwrap()).unwrap();
        assert_eq!(metadata["counter_profiler_kernels_left_out"], 2);
        assert!(metadata.get("counter_dispatches_unjoined").is_none(), "none unjoined");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Without counters, a `WaitNs` of the application's own is a kernel like any other.
    #[test]
    fn without_counters_nothing_is_left_out() {
        let mut records = Vec::new();
        kernel_records(&wait_ns(0xb, 5, 10), Some("WaitNs".into()), true, None, |r| records.push(r));
        assert!(matches!(records[..], [Record::Symbol(_), Record::Kernel(_)]));
    }
}
