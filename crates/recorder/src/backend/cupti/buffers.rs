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
use std::sync::atomic::{AtomicUsize, Ordering};

use crossbeam_queue::ArrayQueue;
use parking_lot::Mutex;

use super::CUDA;
use super::api::activity;
use super::api::load::cupti;
use super::decode::{self, Activity, Names};
use crate::lifecycle::{running, trampoline};
use crate::pipeline::records::{Record, Symbol};

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
    for (i, &at) in offsets.iter().enumerate() {
        let end = offsets.get(i + 1).copied().unwrap_or(bytes.len());
        match decode::decode(&bytes[at..end], &mut *names) {
            Activity::Record(record, name) => {
                if let Record::CudaKernel(k) = &record
                    && names.announce(k.kernel_id)
                {
                    let mangled = name.unwrap_or_else(|| format!("<kernel at {:#x}>", k.kernel_id).into());
                    let symbol = Symbol {
                        kernel_id: k.kernel_id,
                        code_object_id: 0,
                        mangled,
                        kernarg_size: 0,
                        group_segment_size: k.static_shared.max(0) as u32,
                        private_segment_size: k.local_per_thread,
                        sgpr: 0,
                        arch_vgpr: u32::from(k.registers),
                        accum_vgpr: 0,
                    };
                    queue.push(&mut batch, Record::Symbol(Box::new(symbol)));
                }
                queue.push(&mut batch, record);
            }
            Activity::BadTimestamps => {
                cuda.bad_timestamps.fetch_add(1, Ordering::Relaxed);
            }
            Activity::Skipped(_) => {}
        }
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
}
