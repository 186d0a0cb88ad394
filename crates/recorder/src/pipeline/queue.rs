//! The hand-off from callback threads to the writer: batches of records through one bounded
//! channel, with spent batches returned through a bounded pool so steady state allocates
//! nothing.
//!
//! A batch holds at most [`BATCH_RECORDS`] records, so the channel is touched once per thousand
//! records rather than once per record, and memory is bounded whatever the SDK's buffer size:
//! at most `capacity` batches wait in the channel, about 140 KiB each, and spent ones are kept
//! in the pool for reuse rather than freed.
//!
//! - [`Policy::Lossless`]: `send` blocks while the channel is full. On the SDK's callback thread
//!   that stalls the SDK's LOSSLESS buffer, which in turn stalls the application: backpressure
//!   all the way, and nothing is lost.
//! - [`Policy::Drop`]: `send` never blocks; a batch that does not fit is counted and recycled.

use std::sync::atomic::{AtomicU64, Ordering};

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
}

impl Queue {
    /// A queue of `capacity` batches and its receiving end.
    pub fn new(capacity: usize, policy: Policy) -> (Queue, Receiver<Batch>) {
        let (sender, receiver) = crossbeam_channel::bounded(capacity);
        // Room for every batch that can exist at once (in the channel, in the writer's hands,
        // in the callbacks' hands), so a batch is never freed once allocated: freeing on the
        // writer's thread what callbacks allocate on theirs makes glibc's heap creep.
        let pool = ArrayQueue::new(capacity * 2 + 8);
        (Queue { sender, pool, policy, dropped: AtomicU64::new(0) }, receiver)
    }

    /// An empty batch with room for [`BATCH_RECORDS`], reused from the pool when one is there.
    pub fn batch(&self) -> Batch {
        self.pool.pop().unwrap_or_else(|| Vec::with_capacity(BATCH_RECORDS))
    }

    /// Adds `record` to `batch`, handing the batch over first if it is full. The common case,
    /// a batch with room, is inlined into the callbacks' loops (a call per record otherwise);
    /// the hand-over, once per thousand records, stays out of them.
    #[inline(always)]
    pub fn push(&self, batch: &mut Batch, record: Record) {
        if batch.len() == BATCH_RECORDS {
            self.hand_over(batch);
        }
        batch.push(record);
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
        if batch.is_empty() {
            self.recycle(batch);
            return true;
        }
        let result = match self.policy {
            Policy::Lossless => self.sender.send(batch).map_err(|e| e.into_inner()),
            Policy::Drop => self.sender.try_send(batch).map_err(|e| match e {
                TrySendError::Full(b) | TrySendError::Disconnected(b) => b,
            }),
        };
        match result {
            Ok(()) => true,
            Err(batch) => {
                self.dropped.fetch_add(batch.len() as u64, Ordering::Relaxed);
                self.recycle(batch);
                false
            }
        }
    }

    /// Returns a spent batch to the pool; beyond the pool's bound it is freed.
    pub fn recycle(&self, mut batch: Batch) {
        batch.clear();
        // Only batches of the usual size are kept; the pool stays bounded in bytes.
        if batch.capacity() <= BATCH_RECORDS {
            let _ = self.pool.push(batch);
        }
    }

    /// Records dropped so far by this queue (the SDK's own drops are counted separately).
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::records::Record;

    fn record() -> Record {
        Record::SdkDrops { buffer: 1, count: 0 }
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
    fn a_gone_writer_turns_sends_into_counted_drops() {
        let (queue, receiver) = Queue::new(4, Policy::Lossless);
        drop(receiver);
        let mut batch = queue.batch();
        batch.push(record());
        assert!(!queue.send(batch));
        assert_eq!(queue.dropped(), 1);
    }
}
