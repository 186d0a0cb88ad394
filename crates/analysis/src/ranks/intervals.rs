//! A rank's busy, compute and communication time: unions of kernel intervals, each computed in
//! one pass over the kernels in order of their starts, in constant memory.
//!
//! The kernels come sorted (by the external sort, O(n log n)), so a union is one open interval
//! and a running total. The overlap of computation and communication needs no fourth pass:
//! the union of all kernels is the union of the two kinds, so |A ∩ B| = |A| + |B| − |A ∪ B|.

use serde::Serialize;

/// The length of a union of intervals `[start, end)` added in order of their starts. An
/// interval whose end is before its start is empty.
#[derive(Debug, Default, Clone, Copy)]
pub struct Union {
    /// The interval being extended: every later start is at or after its start.
    open: Option<(i64, i64)>,
    /// The length of the intervals closed before it.
    closed: i64,
}

impl Union {
    /// Adds `[start, end)`; `start` must be at or after every start added before.
    #[inline]
    pub fn add(&mut self, start: i64, end: i64) {
        let end = end.max(start);
        self.open = match self.open {
            Some((from, to)) if start <= to => Some((from, to.max(end))),
            Some((from, to)) => {
                self.closed = self.closed.saturating_add(to.saturating_sub(from));
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }

    /// The union's length so far.
    pub fn length(&self) -> i64 {
        self.closed.saturating_add(self.open.map_or(0, |(from, to)| to.saturating_sub(from)))
    }
}

/// One rank's kernels, fed in order of their starts.
#[derive(Debug, Default, Clone)]
pub struct Busy {
    all: Union,
    communication: Union,
    compute: Union,
    first_start: Option<i64>,
    last_end: Option<i64>,
    kernels: u64,
    collectives: u64,
}

impl Busy {
    /// Adds a kernel; `collective` where its name makes it one.
    #[inline]
    pub fn add(&mut self, start: i64, end: i64, collective: bool) {
        // An end before the start is the start, in the span as in the unions.
        let end = end.max(start);
        self.first_start.get_or_insert(start);
        self.last_end = Some(self.last_end.map_or(end, |e| e.max(end)));
        self.kernels += 1;
        self.all.add(start, end);
        if collective {
            self.collectives += 1;
            self.communication.add(start, end);
        } else {
            self.compute.add(start, end);
        }
    }

    /// The rank's figures.
    pub fn figures(&self) -> BusyFigures {
        let span = match (self.first_start, self.last_end) {
            (Some(first), Some(last)) => last.saturating_sub(first),
            _ => 0,
        };
        let busy = self.all.length();
        let communication = self.communication.length();
        let compute = self.compute.length();
        let overlap = communication.saturating_add(compute).saturating_sub(busy);
        BusyFigures {
            kernels: self.kernels,
            collectives: self.collectives,
            span_ns: span,
            busy_ns: busy,
            idle_ns: span.saturating_sub(busy),
            compute_ns: compute,
            communication_ns: communication,
            overlap_ns: overlap,
            overlap_share: (communication > 0).then(|| overlap as f64 / communication as f64),
        }
    }
}

/// A rank's kernel time, as the module's definitions give it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BusyFigures {
    pub kernels: u64,
    /// Its collective kernels.
    pub collectives: u64,
    /// Last kernel end − first kernel start.
    pub span_ns: i64,
    /// The union of every kernel.
    pub busy_ns: i64,
    /// Span − busy.
    pub idle_ns: i64,
    /// The union of the kernels that are not collectives.
    pub compute_ns: i64,
    /// The union of the collective kernels.
    pub communication_ns: i64,
    /// The time both unions cover.
    pub overlap_ns: i64,
    /// Overlap / communication; `None` without communication.
    pub overlap_share: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same lengths by brute force: every nanosecond of a small range, covered or not.
    fn brute(intervals: &[(i64, i64, bool)]) -> (i64, i64, i64, i64) {
        let covered = |ns: i64, which: Option<bool>| {
            intervals.iter().any(|&(s, e, c)| s <= ns && ns < e && which.is_none_or(|w| w == c))
        };
        let (mut all, mut comm, mut compute, mut both) = (0, 0, 0, 0);
        for ns in 0..200 {
            all += i64::from(covered(ns, None));
            comm += i64::from(covered(ns, Some(true)));
            compute += i64::from(covered(ns, Some(false)));
            both += i64::from(covered(ns, Some(true)) && covered(ns, Some(false)));
        }
        (all, comm, compute, both)
    }

    #[test]
    fn unions_and_overlap_equal_counting_every_nanosecond() {
        // Seeded: nested, touching, disjoint and empty intervals of both kinds.
        let mut state = 7u64;
        let mut next = |n: u64| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % n) as i64
        };
        for _ in 0..200 {
            let mut intervals: Vec<(i64, i64, bool)> = (0..next(12) + 1)
                .map(|_| {
                    let start = next(150);
                    (start, start + next(40) - 3, next(3) == 0)
                })
                .collect();
            intervals.sort();
            let mut busy = Busy::default();
            intervals.iter().for_each(|&(s, e, c)| busy.add(s, e, c));
            let f = busy.figures();
            let (all, comm, compute, both) = brute(&intervals);
            assert_eq!((f.busy_ns, f.communication_ns, f.compute_ns, f.overlap_ns), (all, comm, compute, both));
            assert_eq!(f.idle_ns, f.span_ns - all, "{intervals:?}");
        }
    }

    #[test]
    fn two_streams_overlapping() {
        // Stream 1 computes over [0, 100); stream 2 runs an all-reduce over [60, 140): 40 ns of
        // its 80 hide behind the computation.
        let mut busy = Busy::default();
        busy.add(0, 50, false);
        busy.add(50, 100, false);
        busy.add(60, 140, true);
        busy.add(200, 210, false);
        let f = busy.figures();
        assert_eq!((f.span_ns, f.busy_ns, f.idle_ns), (210, 150, 60));
        assert_eq!((f.compute_ns, f.communication_ns, f.overlap_ns), (110, 80, 40));
        assert_eq!(f.overlap_share, Some(0.5));
        assert_eq!(Busy::default().figures().overlap_share, None);
    }
}
