//! Buffers as SDK 1.0 implements them (`buffer.hpp`, `record_header_buffer.hpp`): records are
//! copied into a byte arena as payloads with a header each; when the used bytes reach the
//! watermark the arena is handed to the buffer's callback thread, which calls the tool with an
//! array of header pointers and then clears the arena.
//!
//! - LOSSLESS allocates two arenas and, like 1.0, one `syncer` flag: a producer holds it while it
//!   picks the current arena and copies its record in, and a flush holds it from the arena swap
//!   until the tool's callback has returned. So producers wait while the tool processes a
//!   buffer (the tool's callback cost lands on the application), and no record can land in an
//!   arena after it was swapped out. A producer that finds its arena full flushes synchronously
//!   and retries, so nothing is lost.
//! - DISCARD allocates one: a record that does not fit, or arrives while the arena is being
//!   flushed, is dropped and counted in the cumulative `drop_count` every callback receives.
//!   (Real 1.0 also swaps DISCARD buffers to an arena it never allocated after a flush and then
//!   loses records without counting them; `ROCPROFILER_SIM_QUIRKS=discard-unallocated` reproduces
//!   that.)
//!
//! Once the callback returns, the arena and the header array are overwritten with [`POISON`], so
//! a tool that keeps a pointer past its callback reads garbage rather than plausible data.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use rocprofiler_sdk_sys::*;

use crate::ffi::log;
use crate::{registration, threads};

/// The byte SDK-owned memory is filled with after each callback.
pub const POISON: u8 = 0xFA;

/// One record to place: its category, kind and payload bytes.
pub struct Item<'a> {
    pub category: u32,
    pub kind: u32,
    pub payload: &'a [u8],
}

/// Views a plain C record as bytes.
pub fn bytes_of<T: Copy>(value: &T) -> &[u8] {
    // SAFETY: T is a `repr(C)` plain-data record; reading its bytes (padding included, which the
    // records zero via `Default`) is what the SDK's placement copy does.
    unsafe { std::slice::from_raw_parts((value as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
}

struct Arena {
    storage: Vec<u64>,
    used: usize,
    records: Vec<(u32, u32, usize)>,
}

impl Arena {
    fn new(size: usize) -> Self {
        Arena { storage: vec![0; size.div_ceil(8)], used: 0, records: Vec::new() }
    }

    fn capacity(&self) -> usize {
        self.storage.len() * 8
    }

    fn push(&mut self, items: &[Item<'_>]) {
        for item in items {
            let offset = self.used;
            // SAFETY: the caller checked that the aligned payloads fit; storage is u64-aligned
            // and `offset` is a multiple of 8.
            let dst = unsafe { self.storage.as_mut_ptr().cast::<u8>().add(offset) };
            // SAFETY: dst has room for the payload (checked by the caller) and the regions are
            // distinct allocations.
            unsafe { std::ptr::copy_nonoverlapping(item.payload.as_ptr(), dst, item.payload.len()) };
            self.records.push((item.category, item.kind, offset));
            self.used += item.payload.len().next_multiple_of(8);
        }
    }
}

/// A buffer created by a tool.
pub struct Buffer {
    pub id: u64,
    context: u64,
    callback: rocprofiler_buffer_tracing_cb_t,
    data: usize,
    policy: rocprofiler_buffer_policy_t,
    watermark: usize,
    size: usize,
    arenas: [Mutex<Option<Arena>>; 2],
    index: AtomicUsize,
    flushing: AtomicBool,
    drops: AtomicU64,
    thread: AtomicU64,
    destroyed: AtomicBool,
}

static BUFFERS: Mutex<Vec<&'static Buffer>> = Mutex::new(Vec::new());

/// Buffer handles start at a random offset, as in 1.0, so a zeroed id is never valid.
fn offset() -> u64 {
    static OFFSET: OnceLock<u64> = OnceLock::new();
    *OFFSET.get_or_init(|| 255 + crate::clock::now_ns() % (65_535 - 255))
}

fn quirk_discard_unallocated() -> bool {
    static QUIRK: OnceLock<bool> = OnceLock::new();
    *QUIRK.get_or_init(|| std::env::var("ROCPROFILER_SIM_QUIRKS").is_ok_and(|q| q.contains("discard-unallocated")))
}

/// `rocprofiler_create_buffer`, after the lifecycle check.
pub fn create(
    context: u64,
    size: usize,
    watermark: usize,
    policy: rocprofiler_buffer_policy_t,
    callback: rocprofiler_buffer_tracing_cb_t,
    data: usize,
) -> Result<u64, rocprofiler_status_t> {
    if callback.is_none() || policy == ROCPROFILER_BUFFER_POLICY_NONE || policy >= ROCPROFILER_BUFFER_POLICY_LAST {
        return Err(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    }
    let mut buffers = BUFFERS.lock().unwrap();
    let id = offset() + buffers.len() as u64;
    let second = policy == ROCPROFILER_BUFFER_POLICY_LOSSLESS;
    let buffer = Box::leak(Box::new(Buffer {
        id,
        context,
        callback,
        data,
        policy,
        watermark,
        size,
        arenas: [Mutex::new(Some(Arena::new(size))), Mutex::new(second.then(|| Arena::new(size)))],
        index: AtomicUsize::new(0),
        flushing: AtomicBool::new(false),
        drops: AtomicU64::new(0),
        thread: AtomicU64::new(0),
        destroyed: AtomicBool::new(false),
    }));
    buffers.push(buffer);
    Ok(id)
}

/// The buffer with handle `id`.
pub fn get(id: u64) -> Option<&'static Buffer> {
    let buffers = BUFFERS.lock().unwrap();
    let index = id.checked_sub(offset())?;
    buffers.get(index as usize).copied().filter(|b| !b.destroyed.load(Ordering::Acquire))
}

impl Buffer {
    /// Places `items` together (one lock, as the SDK does for a counter header and its values).
    /// Returns false if they were dropped.
    pub fn emplace(&'static self, items: &[Item<'_>]) -> bool {
        if self.destroyed.load(Ordering::Acquire) {
            return false;
        }
        let need: usize = items.iter().map(|i| i.payload.len().next_multiple_of(8)).sum();
        if need > self.size {
            log!("buffer {} too small (size={}) to hold a record of {need} bytes", self.id, self.size);
            return false;
        }
        let lossless = self.policy == ROCPROFILER_BUFFER_POLICY_LOSSLESS;
        if lossless {
            let started = crate::clock::now_ns();
            let placed = self.emplace_lossless(items, need);
            crate::stats::EMPLACE_NS.fetch_add(crate::clock::now_ns() - started, Ordering::Relaxed);
            return placed;
        }
        loop {
            if !lossless && !quirk_discard_unallocated() && self.flushing.load(Ordering::Acquire) {
                self.drops.fetch_add(items.len() as u64, Ordering::Relaxed);
                crate::stats::BUFFER_DROPS.fetch_add(items.len() as u64, Ordering::Relaxed);
                return false;
            }
            let index = self.index.load(Ordering::Acquire) % 2;
            let mut slot = self.arenas[index].lock().unwrap();
            let Some(arena) = slot.as_mut() else {
                // 1.0's DISCARD quirk: the second arena was never allocated; the record is lost
                // and not counted.
                return false;
            };
            if arena.used + need <= arena.capacity() {
                arena.push(items);
                let used = arena.used;
                drop(slot);
                if used >= self.watermark {
                    let _ = self.flush(false);
                }
                return true;
            }
            drop(slot);
            if lossless {
                let _ = self.flush(true);
                continue;
            }
            self.drops.fetch_add(items.len() as u64, Ordering::Relaxed);
            crate::stats::BUFFER_DROPS.fetch_add(items.len() as u64, Ordering::Relaxed);
            return false;
        }
    }

    /// 1.0's `instance::emplace` under LOSSLESS: the record goes into the current arena while
    /// the syncer is held.
    fn emplace_lossless(&'static self, items: &[Item<'_>], need: usize) -> bool {
        loop {
            self.acquire_syncer();
            let index = self.index.load(Ordering::Acquire) % 2;
            let mut slot = self.arenas[index].lock().unwrap();
            let Some(arena) = slot.as_mut() else {
                drop(slot);
                self.flushing.store(false, Ordering::Release);
                return false;
            };
            let fits = arena.used + need <= arena.capacity();
            if fits {
                arena.push(items);
            }
            let used = arena.used;
            drop(slot);
            self.flushing.store(false, Ordering::Release);
            if fits {
                if used >= self.watermark {
                    let _ = self.flush(false);
                }
                return true;
            }
            let _ = self.flush(true);
        }
    }

    /// Spins until this thread holds the syncer, as 1.0 does (yield, then 10 µs).
    fn acquire_syncer(&self) {
        while self.flushing.swap(true, Ordering::AcqRel) {
            std::thread::yield_now();
            std::thread::sleep(std::time::Duration::from_micros(10));
        }
    }

    /// `rocprofiler_flush_buffer` (wait) and the watermark flush (no wait).
    pub fn flush(&'static self, mut wait: bool) -> rocprofiler_status_t {
        let fini = registration::fini_status();
        if fini > 0 {
            return ROCPROFILER_STATUS_ERROR_FINALIZED;
        }
        if fini < 0 {
            wait = true;
        }
        let Some(group) = threads::get(self.thread.load(Ordering::Acquire)) else {
            return ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND;
        };
        if wait {
            group.wait();
        }
        while self.flushing.swap(true, Ordering::AcqRel) {
            // A flush from inside this buffer's own callback would wait for itself.
            if !wait || group.is_current() {
                return ROCPROFILER_STATUS_ERROR_BUFFER_BUSY;
            }
            std::thread::yield_now();
            std::thread::sleep(std::time::Duration::from_micros(10));
        }
        let index = if self.policy == ROCPROFILER_BUFFER_POLICY_LOSSLESS || quirk_discard_unallocated() {
            self.index.fetch_add(1, Ordering::AcqRel)
        } else {
            0
        };
        group.exec(Box::new(move || {
            self.deliver(index % 2);
            self.flushing.store(false, Ordering::Release);
        }));
        if wait {
            group.wait();
        }
        ROCPROFILER_STATUS_SUCCESS
    }

    /// Calls the tool with the records of arena `index`, then poisons and clears it.
    fn deliver(&self, index: usize) {
        let mut slot = self.arenas[index].lock().unwrap();
        let Some(arena) = slot.as_mut() else { return };
        if arena.records.is_empty() {
            return;
        }
        let base = arena.storage.as_mut_ptr().cast::<u8>();
        let mut headers: Vec<rocprofiler_record_header_t> = arena
            .records
            .iter()
            .map(|&(category, kind, offset)| {
                let mut header = rocprofiler_record_header_t::default();
                header.__bindgen_anon_1.__bindgen_anon_1 =
                    rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1 { category, kind };
                // SAFETY: offset lies inside the arena's storage.
                header.payload = unsafe { base.add(offset) }.cast();
                header
            })
            .collect();
        let mut pointers: Vec<*mut rocprofiler_record_header_t> = headers.iter_mut().map(|h| h as *mut _).collect();
        if let Some(callback) = self.callback {
            let (started, cpu_started) = (crate::clock::now_ns(), crate::clock::thread_cpu_ns());
            // SAFETY: the callback is the tool's, with the documented signature; the pointers
            // stay valid until it returns.
            unsafe {
                callback(
                    rocprofiler_context_id_t { handle: self.context },
                    rocprofiler_buffer_id_t { handle: self.id },
                    pointers.as_mut_ptr(),
                    pointers.len(),
                    self.data as *mut std::ffi::c_void,
                    self.drops.load(Ordering::Relaxed),
                )
            };
            crate::stats::buffer_callback(
                pointers.len(),
                crate::clock::now_ns() - started,
                crate::clock::thread_cpu_ns() - cpu_started,
            );
        }
        let used = arena.used;
        // SAFETY: `used` bytes of the storage were written; poisoning them is the point.
        unsafe { std::ptr::write_bytes(base, POISON, used) };
        // SAFETY: the header array is ours and about to be dropped; poisoning it catches tools
        // that keep the array itself.
        unsafe { std::ptr::write_bytes(headers.as_mut_ptr(), POISON, headers.len()) };
        // Keep the poisoned header allocation alive a little longer than the callback: freeing
        // it at once would let the allocator reuse it and hide a retained pointer.
        poisoned_headers(headers);
        arena.used = 0;
        arena.records.clear();
    }

    /// Records dropped so far, reported or not.
    pub fn drop_count(&self) -> u64 {
        self.drops.load(Ordering::Relaxed)
    }

    /// `rocprofiler_assign_callback_thread`.
    pub fn assign_thread(&self, thread: u64) {
        self.thread.store(thread, Ordering::Release);
    }

    /// `rocprofiler_destroy_buffer`.
    pub fn destroy(&self) -> rocprofiler_status_t {
        if self.flushing.swap(true, Ordering::AcqRel) {
            return ROCPROFILER_STATUS_ERROR_BUFFER_BUSY;
        }
        self.destroyed.store(true, Ordering::Release);
        for arena in &self.arenas {
            arena.lock().unwrap().take();
        }
        ROCPROFILER_STATUS_SUCCESS
    }
}

/// Holds the last few poisoned header arrays so their memory is not immediately reused.
fn poisoned_headers(headers: Vec<rocprofiler_record_header_t>) {
    struct Poisoned(#[allow(dead_code)] Vec<rocprofiler_record_header_t>);
    // SAFETY: the headers are poison bytes that nothing dereferences.
    unsafe impl Send for Poisoned {}
    static RECENT: Mutex<Vec<Poisoned>> = Mutex::new(Vec::new());
    let mut recent = RECENT.lock().unwrap();
    if recent.len() >= 8 {
        recent.remove(0);
    }
    recent.push(Poisoned(headers));
}
