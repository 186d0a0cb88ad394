//! The flight recorder's hang watch: the launches no finished work has followed yet, and each
//! thread's open marker ranges, so a hang's report says what each stuck thread was doing (the
//! collective it launched, inside which step) and `ranks` can put the ranks side by side.
//!
//! Launch calls and kernels are not matched by correlation id (a library's call and kernel ids
//! may differ): work that started after a launch was made means the launch reached the GPU.

use std::collections::HashMap;
use std::sync::Arc;

use super::records::{Marker, MarkerOpen, OwnRecord, Record};

/// A launch no finished work has followed, for a hang's report.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    pub correlation_id: u64,
    pub thread_id: u64,
    pub launched_ns: u64,
    /// The launch call.
    pub operation: i32,
    pub api_kind: u32,
    /// The kernel it launched, where the library named it.
    pub kernel: Option<Arc<str>>,
    /// Its thread's marker ranges open when the report was made, outermost first.
    pub open_markers: Vec<OpenRange>,
}

/// A marker range opened and not closed yet.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenRange {
    pub start_ns: u64,
    pub message: Arc<str>,
    /// The range's id, by which its close is matched (ranges started and ended by hand need
    /// not close in the order they opened).
    pub id: u64,
}

/// Launches a report keeps at most: a GPU that finishes nothing while launches pour in keeps
/// the newest.
const PENDING_KEPT: usize = 4096;
/// Threads whose open ranges are followed, and ranges per thread: beyond them, the deepest and
/// the threads met last are not, so memory stays bounded whatever the application does.
const THREADS_KEPT: usize = 4096;
const DEPTH_KEPT: usize = 64;

/// What the hang watch knows.
#[derive(Debug)]
pub struct HangWatch {
    pending: HashMap<u64, Pending>,
    /// Kernel names of launches whose call record has not come yet.
    names: HashMap<u64, Arc<str>>,
    /// Per thread, its open ranges, outermost first.
    open: HashMap<u64, Vec<OpenRange>>,
    /// When work last finished (CLOCK_BOOTTIME ns).
    pub last_finish_ns: u64,
}

impl HangWatch {
    pub fn new(now_ns: u64) -> HangWatch {
        HangWatch { pending: HashMap::new(), names: HashMap::new(), open: HashMap::new(), last_finish_ns: now_ns }
    }

    /// Follows launches, finished work and marker ranges through `record`. Returns whether it
    /// was finished work later than any before.
    pub fn watch(&mut self, record: &Record) -> bool {
        match record {
            Record::Api(a) => {
                if self.pending.len() >= PENDING_KEPT
                    && let Some(oldest) = self.pending.values().min_by_key(|p| p.launched_ns).map(|p| p.correlation_id)
                {
                    self.pending.remove(&oldest);
                }
                self.pending.insert(
                    a.correlation_id,
                    Pending {
                        correlation_id: a.correlation_id,
                        thread_id: a.thread_id,
                        launched_ns: a.start_ns,
                        operation: a.operation,
                        api_kind: a.kind,
                        kernel: self.names.remove(&a.correlation_id),
                        open_markers: Vec::new(),
                    },
                );
                false
            }
            Record::LaunchName(n) => {
                match self.pending.get_mut(&n.correlation_id) {
                    Some(pending) => pending.kernel = Some(n.name.clone()),
                    // The name can come first: kept until its launch's record, a few at most.
                    None if self.names.len() < PENDING_KEPT => {
                        self.names.insert(n.correlation_id, n.name.clone());
                    }
                    None => {}
                }
                false
            }
            Record::MarkerOpen(m) => {
                self.opened(m);
                false
            }
            Record::Marker(m) => {
                self.closed(m);
                false
            }
            Record::Kernel(k) => self.finished(k.start_ns, k.end_ns),
            Record::Row(OwnRecord::GraphLaunch(g)) => self.finished(g.start_ns, g.end_ns),
            _ => false,
        }
    }

    fn opened(&mut self, m: &MarkerOpen) {
        if !self.open.contains_key(&m.thread_id) && self.open.len() >= THREADS_KEPT {
            // Threads that ended with ranges open would fill the map: the one whose newest
            // range is oldest goes.
            let stalest = self.open.iter().min_by_key(|(_, s)| s.last().map_or(0, |r| r.start_ns)).map(|(t, _)| *t);
            if let Some(thread) = stalest {
                self.open.remove(&thread);
            }
        }
        let stack = self.open.entry(m.thread_id).or_default();
        if stack.len() < DEPTH_KEPT {
            stack.push(OpenRange { start_ns: m.start_ns, message: m.message.clone(), id: m.id });
        }
    }

    fn closed(&mut self, m: &Marker) {
        let Some(stack) = self.open.get_mut(&m.thread_id) else { return };
        if let Some(at) = stack.iter().rposition(|r| r.id == m.correlation_id) {
            stack.remove(at);
        }
        if stack.is_empty() {
            self.open.remove(&m.thread_id);
        }
    }

    /// Work that ran from `start_ns` to `end_ns` finished: every launch made before it started
    /// has reached the GPU and is no longer one a hang waits on.
    fn finished(&mut self, start_ns: u64, end_ns: u64) -> bool {
        self.pending.retain(|_, p| p.launched_ns > start_ns);
        self.names.clear();
        if end_ns > self.last_finish_ns {
            self.last_finish_ns = end_ns;
            return true;
        }
        false
    }

    /// How long nothing has finished while launches are outstanding; none while none is.
    pub fn quiet_ns(&self, now_ns: u64) -> Option<u64> {
        let oldest = self.pending.values().map(|p| p.launched_ns).min()?;
        Some(now_ns.saturating_sub(self.last_finish_ns.max(oldest)))
    }

    /// The launches outstanding, oldest first, each with its thread's open ranges.
    pub fn outstanding(&self) -> Vec<Pending> {
        let mut pending: Vec<Pending> = self
            .pending
            .values()
            .map(|p| Pending { open_markers: self.open.get(&p.thread_id).cloned().unwrap_or_default(), ..p.clone() })
            .collect();
        pending.sort_by_key(|p| (p.launched_ns, p.correlation_id));
        pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::records::{Api, Kernel, LaunchName};

    fn launch(correlation_id: u64, thread_id: u64, start_ns: u64) -> Record {
        Record::Api(Api {
            kind: 1,
            operation: 2,
            thread_id,
            correlation_id,
            ancestor_id: 0,
            start_ns,
            end_ns: start_ns + 1,
        })
    }

    fn open(id: u64, thread_id: u64, start_ns: u64, message: &str) -> Record {
        Record::MarkerOpen(Box::new(MarkerOpen { id, thread_id, start_ns, message: message.into() }))
    }

    fn close(id: u64, thread_id: u64, depth: Option<i32>) -> Record {
        Record::Marker(Box::new(Marker {
            kind: 0,
            operation: 0,
            thread_id,
            correlation_id: id,
            start_ns: 0,
            end_ns: 0,
            depth,
            message: "".into(),
            domain: None,
        }))
    }

    /// Two ranks' threads: one stuck in its all-reduce inside step 7, the other between steps.
    #[test]
    fn an_outstanding_launch_carries_its_threads_open_ranges() {
        let mut watch = HangWatch::new(0);
        for record in [
            open(1, 1, 10, "step 6"),
            open(2, 1, 11, "forward"),
            close(2, 1, Some(1)),
            close(1, 1, Some(0)),
            open(3, 1, 20, "step 7"),
            open(4, 1, 21, "all_reduce"),
            launch(5, 1, 22),
            Record::LaunchName(Box::new(LaunchName { correlation_id: 5, name: "allreduce_kernel".into() })),
            open(5, 2, 23, "step 7"),
            close(5, 2, Some(0)),
            launch(6, 2, 24),
        ] {
            watch.watch(&record);
        }
        let out = watch.outstanding();
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].kernel.as_deref(), Some("allreduce_kernel"));
        let messages: Vec<&str> = out[0].open_markers.iter().map(|r| &*r.message).collect();
        assert_eq!(messages, ["step 7", "all_reduce"]);
        assert!(out[1].open_markers.is_empty(), "thread 2 closed its range");
        assert_eq!(watch.quiet_ns(100), Some(78));

        // A kernel that started after launch 5 but before 6 lets 5 go.
        assert!(watch.watch(&Record::Kernel(Kernel { start_ns: 23, end_ns: 30, ..Kernel::default() })));
        assert_eq!(watch.outstanding().iter().map(|p| p.correlation_id).collect::<Vec<_>>(), [6]);
        assert_eq!(watch.quiet_ns(100), Some(70));
    }

    /// Ranges started and ended by hand close out of order: each close takes its own range.
    #[test]
    fn a_range_closed_out_of_order_takes_only_itself() {
        let mut watch = HangWatch::new(0);
        for record in [open(1, 9, 1, "a"), open(2, 9, 2, "b"), close(1, 9, None), open(3, 9, 3, "c")] {
            watch.watch(&record);
        }
        let messages: Vec<&str> = watch.open[&9].iter().map(|r| &*r.message).collect();
        assert_eq!(messages, ["b", "c"]);
    }

    /// Ranges never closed and threads that never come back keep memory
    /// bounded, and a new thread is still followed once the map is full.
    #[test]
    fn open_ranges_stay_bounded() {
        let mut watch = HangWatch::new(0);
        for i in 0..10_000u64 {
            watch.watch(&open(i, 1, i, "r"));
            watch.watch(&open(i, i + 10, i, "x"));
        }
        assert!(watch.open.values().all(|s| s.len() <= DEPTH_KEPT));
        assert!(watch.open.len() <= THREADS_KEPT);
        watch.watch(&open(99_999, 123_456, 20_000, "new"));
        assert_eq!(watch.open[&123_456].len(), 1, "a new thread is followed");
    }
}
