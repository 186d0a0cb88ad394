//! The hand-off from callback threads to the writer: batches of records through one bounded
//! channel, with spent batches returned through a bounded pool so steady state allocates
//! nothing.
//!
//! A batch holds at most [`BATCH_RECORDS`] records, so the channel is touched once per thousand
//! records rather than once per record, and memory is bounded whatever the library's buffer size:
//! at most `capacity` batches wait in the channel, under 128 KiB each ([`BATCH_BYTES`]), and spent
//! ones are kept in the pool for reuse rather than freed.
//!
//! - [`Policy::Lossless`]: `send` blocks while the channel is full. On the library's callback
//!   thread that stalls a lossless library buffer, which in turn stalls the application: backpressure
//!   all the way, and nothing is lost.
//! - [`Policy::Drop`]: a batch that does not fit loses its activity records, counted, and
//!   keeps the few that name things ([`Record::must_keep`]), which are sent whatever it
//!   takes: so `send` blocks only for those (sent when code is loaded), as long as the writer
//!   takes to make room for one batch.
//!
//! The libraries' own drop counts (cumulative per buffer, or deltas, as each library reports
//! deltas) are noted here, in atomics, rather than sent as records: a count must reach the
//! summary even when the batch it came with does not, and must never make a callback wait.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crossbeam_channel::{Receiver, Sender, TrySendError};
use crossbeam_queue::ArrayQueue;

use super::records::Record;
use crate::config::Policy;

/// A batch of records.
pub type Batch = Vec<Record>;

use crate::config::BATCH_RECORDS;

/// The sending side, shared by every callback thread.
#[derive(Debug)]
pub struct Queue {
    sender: Sender<Batch>,
    pool: ArrayQueue<Batch>,
    policy: Policy,
    dropped: AtomicU64,
    /// A library's cumulative drop count per buffer: `(buffer id + 1, count)`, 0 for a free
    /// slot.
    cumulative_drops: [(AtomicU64, AtomicU64); DROP_BUFFERS],
    /// Cumulative drops of buffers beyond the slots (none in practice: the tool makes a few
    /// buffers).
    cumulative_drops_unslotted: AtomicU64,
    /// Drops a library reports as deltas.
    library_drops: AtomicU64,
    /// Batches allocated so far: every batch that ever existed at once, since spent ones are
    /// pooled rather than freed.
    allocated: AtomicUsize,
    /// The most batches seen waiting in the channel.
    waiting_peak: AtomicUsize,
    /// The tracing library's record buffers the tool held at once, at most (activity
    /// buffers), and their size: what a writer that falls behind costs there.
    library_buffers_peak: AtomicUsize,
    library_buffer_bytes: AtomicUsize,
}

/// What the hand-off held at its fullest, for the run's metadata: the tool's memory beyond its
/// fixed part is these batches and the library's buffers, so a run that used more than usual
/// says where.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Holding {
    /// Batches allocated (each [`BATCH_BYTES`] at most).
    pub batches: usize,
    /// The most batches waiting for the writer at once.
    pub waiting_peak: usize,
    /// The most library record buffers held at once (where the tool lends them), and the
    /// bytes of each.
    pub library_buffers_peak: usize,
    pub library_buffer_bytes: usize,
}

impl Holding {
    /// As a JSON object.
    pub fn json(&self) -> String {
        format!(
            "{{\"batches\":{},\"batch_bytes\":{},\"batches_waiting_peak\":{},\"library_buffers_peak\":{},\"library_buffer_bytes\":{}}}",
            self.batches, BATCH_BYTES, self.waiting_peak, self.library_buffers_peak, self.library_buffer_bytes
        )
    }
}

/// Writes `record` to `at` without reading the cache lines there first (non-temporal stores,
/// which the fence in [`Queue::send`] orders before the batch's hand-over), or plainly where
/// `at` is not aligned for them or the target has none.
///
/// # Safety
/// `at` must be valid for a write of a `Record` and aligned for one.
#[inline(always)]
unsafe fn stream(at: *mut Record, record: Record) {
    #[cfg(target_arch = "x86_64")]
    if at.cast::<[u64; 2]>().is_aligned() {
        // The bytes are copied out of `record`, which now belongs to the batch. The copy
        // is in assembly because a record's padding is uninitialised: Rust may not read it as
        // an integer, but the processor may move it.
        let record = std::mem::ManuallyDrop::new(record);
        let from = (&raw const *record).cast::<u8>();
        // SAFETY: `from` and `at` span 128 bytes (one Record each, RECORD_BYTES), `at` is
        // aligned to 16 as `movntdq` requires, and `movdqu` reads unaligned.
        unsafe {
            std::arch::asm!(
                "movdqu {a}, xmmword ptr [{from}]",
                "movdqu {b}, xmmword ptr [{from} + 16]",
                "movdqu {c}, xmmword ptr [{from} + 32]",
                "movdqu {d}, xmmword ptr [{from} + 48]",
                "movntdq xmmword ptr [{to}], {a}",
                "movntdq xmmword ptr [{to} + 16], {b}",
                "movntdq xmmword ptr [{to} + 32], {c}",
                "movntdq xmmword ptr [{to} + 48], {d}",
                "movdqu {a}, xmmword ptr [{from} + 64]",
                "movdqu {b}, xmmword ptr [{from} + 80]",
                "movdqu {c}, xmmword ptr [{from} + 96]",
                "movdqu {d}, xmmword ptr [{from} + 112]",
                "movntdq xmmword ptr [{to} + 64], {a}",
                "movntdq xmmword ptr [{to} + 80], {b}",
                "movntdq xmmword ptr [{to} + 96], {c}",
                "movntdq xmmword ptr [{to} + 112], {d}",
                from = in(reg) from,
                to = in(reg) at.cast::<u8>(),
                a = out(xmm_reg) _,
                b = out(xmm_reg) _,
                c = out(xmm_reg) _,
                d = out(xmm_reg) _,
                options(nostack, preserves_flags),
            )
        };
        return;
    }
    // SAFETY: per the contract.
    unsafe { at.write(record) };
}

/// Makes room for one more record in a batch of unusual capacity (never, for the queue's own).
#[cold]
#[inline(never)]
fn grow(batch: &mut Batch) {
    batch.reserve(1);
}

/// The bytes of a record: kept to 128 (a kernel launch's, [`super::records::Kernel`]), as
/// every byte is written on the library's callback thread, and [`stream`] copies this many.
const RECORD_BYTES: usize = 128;
const _: () = assert!(std::mem::size_of::<Record>() == RECORD_BYTES);

/// The bytes of a full batch: its records, held inline.
pub const BATCH_BYTES: usize = BATCH_RECORDS * std::mem::size_of::<Record>();
const _: () = assert!(BATCH_BYTES < 128 << 10, "glibc would map each batch apart (see BATCH_RECORDS)");

/// Buffers whose drop counts are kept apart (the tool creates one per record family).
const DROP_BUFFERS: usize = 16;

impl Queue {
    /// A queue of `capacity` batches and its receiving end.
    pub fn new(capacity: usize, policy: Policy) -> (Queue, Receiver<Batch>) {
        let (sender, receiver) = crossbeam_channel::bounded(capacity);
        // Room for every batch that can exist at once (in the channel, in the writer's hands,
        // in the callbacks' hands), so a batch is never freed once allocated: freeing on the
        // writer's thread what callbacks allocate on theirs makes glibc's heap creep.
        let pool = ArrayQueue::new(capacity * 2 + 8);
        let queue = Queue {
            sender,
            pool,
            policy,
            dropped: AtomicU64::new(0),
            cumulative_drops: std::array::from_fn(|_| (AtomicU64::new(0), AtomicU64::new(0))),
            cumulative_drops_unslotted: AtomicU64::new(0),
            library_drops: AtomicU64::new(0),
            allocated: AtomicUsize::new(0),
            waiting_peak: AtomicUsize::new(0),
            library_buffers_peak: AtomicUsize::new(0),
            library_buffer_bytes: AtomicUsize::new(0),
        };
        (queue, receiver)
    }

    /// An empty batch with room for [`BATCH_RECORDS`], reused from the pool when one is there.
    pub fn batch(&self) -> Batch {
        self.pool.pop().unwrap_or_else(|| {
            self.allocated.fetch_add(1, Ordering::Relaxed);
            Vec::with_capacity(BATCH_RECORDS)
        })
    }

    /// Adds `record` to `batch`, handing the batch over first if it is full. The common case,
    /// a batch with room, is inlined into the callbacks' loops (a call per record otherwise);
    /// the hand-over, once per thousand records, stays out of them.
    ///
    /// The record is streamed into the batch ([`stream`]): a batch is written once here and
    /// read once by the writer, and usually long after, so reading its cache lines in before
    /// writing them, as a plain store must, only cost (about 4 ns a kernel record, a tenth of
    /// the callback's time on one, on the development VM).
    #[inline(always)]
    pub fn push(&self, batch: &mut Batch, record: Record) {
        if batch.len() == BATCH_RECORDS {
            self.hand_over(batch);
        }
        if batch.len() == batch.capacity() {
            grow(batch);
        }
        let len = batch.len();
        // SAFETY: the length is below the capacity (just checked): element `len` is allocated.
        let slot = unsafe { batch.as_mut_ptr().add(len) };
        // SAFETY: an allocated, unused element, aligned as every element of the batch is.
        unsafe { stream(slot, record) };
        // SAFETY: element `len` is now initialised, and within the capacity.
        unsafe { batch.set_len(len + 1) };
    }

    /// Sends the full `batch` and puts an empty one in its place.
    #[cold]
    #[inline(never)]
    fn hand_over(&self, batch: &mut Batch) {
        let full = std::mem::replace(batch, self.batch());
        self.send(full);
    }

    /// Hands `batch` to the writer. Returns false if it was dropped (counted) because the queue
    /// was full under the drop policy or the writer is gone.
    pub fn send(&self, batch: Batch) -> bool {
        // Streamed stores are weakly ordered: they must be visible before the batch is.
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a fence has no preconditions.
        unsafe {
            std::arch::x86_64::_mm_sfence()
        };
        if batch.is_empty() {
            self.recycle(batch);
            return true;
        }
        // What waits before this batch, plus this one: a relaxed maximum, read once per batch.
        self.waiting_peak.fetch_max(self.sender.len() + 1, Ordering::Relaxed);
        let result = match self.policy {
            Policy::Lossless => self.sender.send(batch).map_err(|e| e.into_inner()),
            Policy::Drop => match self.sender.try_send(batch) {
                Ok(()) => Ok(()),
                Err(TrySendError::Full(batch)) => return self.send_what_must_be_kept(batch),
                Err(TrySendError::Disconnected(batch)) => Err(batch),
            },
        };
        match result {
            Ok(()) => true,
            Err(batch) => {
                let lost = batch.iter().filter(|r| r.is_activity()).count();
                self.dropped.fetch_add(lost as u64, Ordering::Relaxed);
                self.recycle(batch);
                false
            }
        }
    }

    /// A batch that found the channel full under the drop policy: its activity is dropped,
    /// counted, and the records it must keep wait for room. Returns false: the batch was not
    /// delivered whole.
    #[cold]
    fn send_what_must_be_kept(&self, mut batch: Batch) -> bool {
        let before = batch.len();
        batch.retain(Record::must_keep);
        self.dropped.fetch_add((before - batch.len()) as u64, Ordering::Relaxed);
        if batch.is_empty() {
            self.recycle(batch);
        } else if let Err(unsent) = self.sender.send(batch) {
            // The writer is gone: nothing will be written, and nothing of this is activity.
            self.recycle(unsent.into_inner());
        }
        false
    }

    /// Returns a spent batch to the pool; beyond the pool's bound it is freed.
    pub fn recycle(&self, mut batch: Batch) {
        batch.clear();
        // Only batches of the usual size are kept; the pool stays bounded in bytes.
        if batch.capacity() <= BATCH_RECORDS {
            let _ = self.pool.push(batch);
        }
    }

    /// Records dropped so far by this queue (the libraries' own drops are counted apart).
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Notes a library's cumulative drop count for `buffer`, as a buffer callback reported it.
    pub fn note_cumulative_drops(&self, buffer: u64, cumulative: u64) {
        let Some(key) = buffer.checked_add(1) else {
            self.cumulative_drops_unslotted.fetch_max(cumulative, Ordering::Relaxed);
            return;
        };
        for (id, count) in &self.cumulative_drops {
            let held = match id.compare_exchange(0, key, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => key,
                Err(current) => current,
            };
            if held == key {
                count.fetch_max(cumulative, Ordering::Relaxed);
                return;
            }
        }
        self.cumulative_drops_unslotted.fetch_max(cumulative, Ordering::Relaxed);
    }

    /// Adds records the tracing library reports having dropped since its last report.
    pub fn add_library_drops(&self, records: u64) {
        self.library_drops.fetch_add(records, Ordering::Relaxed);
    }

    /// Notes that the tool holds `held` of the tracing library's record buffers of `bytes` each
    /// (activity buffers the tool lent the library and got no answer for yet).
    pub fn note_library_buffers(&self, held: usize, bytes: usize) {
        self.library_buffers_peak.fetch_max(held, Ordering::Relaxed);
        self.library_buffer_bytes.store(bytes, Ordering::Relaxed);
    }

    /// What the hand-off and the library's buffers held at their fullest so far.
    pub fn holding(&self) -> Holding {
        Holding {
            batches: self.allocated.load(Ordering::Relaxed),
            waiting_peak: self.waiting_peak.load(Ordering::Relaxed),
            library_buffers_peak: self.library_buffers_peak.load(Ordering::Relaxed),
            library_buffer_bytes: self.library_buffer_bytes.load(Ordering::Relaxed),
        }
    }

    /// Records the tracing library dropped, as far as it has reported them.
    pub fn library_dropped(&self) -> u64 {
        let cumulative: u64 = self.cumulative_drops.iter().map(|(_, count)| count.load(Ordering::Relaxed)).sum();
        cumulative
            + self.cumulative_drops_unslotted.load(Ordering::Relaxed)
            + self.library_drops.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::records::{CounterValue, Device, Marker, Record};

    /// An activity record.
    fn record() -> Record {
        Record::CounterValue(CounterValue {
            dispatch_id: 1,
            agent_id: 1,
            counter_id: 1,
            value: 1.0,
            instances: 1,
            group: 0,
            instance: None,
        })
    }

    /// A record that names something.
    fn device() -> Record {
        Record::Device(Box::new(Device {
            agent_id: 0,
            index: 0,
            architecture: "arch".into(),
            product_name: "GPU".into(),
            vendor_name: "vendor",
            model_name: "9.0".into(),
            compute_units: 132,
            lanes_per_wave: 32,
            max_waves_per_compute_unit: 64,
            shared_memory_per_compute_unit_bytes: 233_472,
            max_clock_mhz: 1_980,
            memory_bytes: 80 << 30,
        }))
    }

    #[test]
    fn drop_policy_counts_what_does_not_fit() {
        let (queue, receiver) = Queue::new(2, Policy::Drop);
        for _ in 0..5 {
            let mut batch = queue.batch();
            batch.extend([record(), record(), record()]);
            queue.send(batch);
        }
        assert_eq!(receiver.len(), 2);
        assert_eq!(queue.dropped(), 9);
    }

    #[test]
    fn the_drop_policy_keeps_names_and_counts_only_activity() {
        let (queue, receiver) = Queue::new(1, Policy::Drop);
        let mark = Record::Marker(Box::new(Marker {
            kind: 1,
            operation: 1,
            thread_id: 1,
            correlation_id: 1,
            start_ns: 1,
            end_ns: 1,
            depth: None,
            message: "".into(),
            domain: None,
        }));
        let mut batch = queue.batch();
        batch.extend([record(), record()]);
        assert!(queue.send(batch));
        // The channel (one batch) is full: the next batch keeps only what it must.
        let taker = std::thread::Builder::new()
            .name("taker".into())
            .spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(100));
                let first = receiver.recv().unwrap().len();
                (first, receiver.recv().unwrap().len())
            })
            .unwrap();
        let mut batch = queue.batch();
        batch.extend([record(), device(), mark, record(), device()]);
        assert!(!queue.send(batch), "the batch did not fit whole");
        assert_eq!(queue.dropped(), 3, "the activity (two values, a mark), not the devices");
        assert_eq!(taker.join().unwrap(), (2, 2), "the first batch, then the two devices");
    }

    #[test]
    fn the_libraries_drop_counts_add_up_without_records() {
        let (queue, _receiver) = Queue::new(1, Policy::Drop);
        // Cumulative per buffer: the latest (largest) counts.
        for (buffer, count) in [(7, 10), (9, 4), (7, 25), (7, 20), (u64::MAX, 1)] {
            queue.note_cumulative_drops(buffer, count);
        }
        // Deltas.
        queue.add_library_drops(5);
        queue.add_library_drops(6);
        assert_eq!(queue.library_dropped(), 25 + 4 + 1 + 11);
    }

    #[test]
    fn batches_are_recycled_not_reallocated() {
        let (queue, receiver) = Queue::new(4, Policy::Lossless);
        let mut batch = queue.batch();
        batch.push(record());
        let ptr = batch.as_ptr();
        assert!(queue.send(batch));
        queue.recycle(receiver.recv().unwrap());
        let again = queue.batch();
        assert_eq!(again.as_ptr(), ptr);
        assert!(again.is_empty());
    }

    #[test]
    fn a_long_callback_is_cut_into_bounded_batches() {
        let (queue, receiver) = Queue::new(8, Policy::Lossless);
        let mut batch = queue.batch();
        for _ in 0..BATCH_RECORDS * 2 + 5 {
            queue.push(&mut batch, record());
        }
        queue.send(batch);
        let sizes: Vec<usize> = receiver.try_iter().map(|b| b.len()).collect();
        assert_eq!(sizes, [BATCH_RECORDS, BATCH_RECORDS, 5]);
    }

    #[test]
    fn the_queue_reports_what_it_held_at_most() {
        let (queue, receiver) = Queue::new(8, Policy::Lossless);
        for _ in 0..3 {
            let mut batch = queue.batch();
            batch.push(record());
            queue.send(batch);
        }
        for batch in receiver.try_iter() {
            queue.recycle(batch);
        }
        // Spent batches are reused: no fourth is allocated, and one waits at a time now.
        let mut batch = queue.batch();
        batch.push(record());
        queue.send(batch);
        queue.note_library_buffers(5, 1 << 20);
        queue.note_library_buffers(3, 1 << 20);
        let held = queue.holding();
        assert_eq!(
            held,
            Holding { batches: 3, waiting_peak: 3, library_buffers_peak: 5, library_buffer_bytes: 1 << 20 }
        );
        assert!(held.json().contains("\"batches\":3,\"batch_bytes\":"), "{}", held.json());
        assert!(held.json().contains("\"batches_waiting_peak\":3,\"library_buffers_peak\":5"), "{}", held.json());
    }

    #[test]
    fn a_gone_writer_turns_sends_into_counted_drops() {
        let (queue, receiver) = Queue::new(4, Policy::Lossless);
        drop(receiver);
        let mut batch = queue.batch();
        batch.push(record());
        assert!(!queue.send(batch));
        assert_eq!(queue.dropped(), 1);
    }
}
