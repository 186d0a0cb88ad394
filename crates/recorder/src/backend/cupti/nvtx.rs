//! NVTX ranges from CUPTI's MARKER records, which report a range's two ends separately.
//!
//! Starts and ends are paired here, across completion callbacks, so the pipeline gets whole
//! ranges: the two ends of a range opened on one thread and closed on another sit in
//! different per-thread buffers, which CUPTI may complete in either order. An end that arrives
//! first waits for its start.

use std::collections::HashMap;
use std::sync::Arc;

use super::decode::NvtxEdge;
use super::operations::{NVTX_KIND, NVTX_MARK, NVTX_RANGE};
use crate::pipeline::records::{Marker, MarkerOpen};

/// `CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS`.
const INSTANT: u32 = 1;
/// `CUPTI_ACTIVITY_FLAG_MARKER_START`.
const START: u32 = 2;
/// `CUPTI_ACTIVITY_FLAG_MARKER_END`.
const END: u32 = 4;

/// Ranges waiting for their other end.
#[derive(Debug, Default)]
pub struct Pairing {
    open: HashMap<u32, Open>,
    /// Ends whose start has not arrived yet: their time, by id.
    early_ends: HashMap<u32, u64>,
    /// Ranges open per thread, for the depth of the next one.
    depth: HashMap<u64, i32>,
}

#[derive(Debug)]
struct Open {
    name: Box<str>,
    domain: Option<Arc<str>>,
    start_ns: u64,
    thread_id: u64,
    depth: i32,
}

/// A complete range or mark, ready for the `marker` table.
#[derive(Debug)]
pub struct Range {
    pub marker: Marker,
    pub domain: Option<Arc<str>>,
    pub instant: bool,
}

impl Range {
    /// The range as the pipeline takes it: a mark or a range, in its domain.
    pub fn into_marker(self) -> Marker {
        let operation = if self.instant { NVTX_MARK } else { NVTX_RANGE };
        Marker { operation, domain: self.domain, ..self.marker }
    }
}

impl Pairing {
    /// Takes one edge; returns the range or mark it completes, if any.
    pub fn add(&mut self, edge: &NvtxEdge) -> Option<Range> {
        let name = || edge.name.clone().unwrap_or_default();
        if edge.flags & INSTANT != 0 {
            return Some(Range {
                marker: marker(name(), edge.timestamp_ns, edge.timestamp_ns, edge.thread_id, None, edge.id),
                domain: edge.domain.clone(),
                instant: true,
            });
        }
        if edge.flags & START != 0 {
            let depth = self.depth.entry(edge.thread_id).or_default();
            let open = Open {
                name: name(),
                domain: edge.domain.clone(),
                start_ns: edge.timestamp_ns,
                thread_id: edge.thread_id,
                depth: *depth,
            };
            *depth += 1;
            if let Some(end_ns) = self.early_ends.remove(&edge.id) {
                return Some(self.close(edge.id, open, end_ns));
            }
            self.open.insert(edge.id, open);
            return None;
        }
        if edge.flags & END != 0 {
            match self.open.remove(&edge.id) {
                Some(open) => return Some(self.close(edge.id, open, edge.timestamp_ns)),
                None => {
                    self.early_ends.insert(edge.id, edge.timestamp_ns);
                }
            }
        }
        None
    }

    /// The thread range `edge` left open, if it opened one.
    pub fn opened(&self, edge: &NvtxEdge) -> Option<MarkerOpen> {
        if edge.flags & START == 0 {
            return None;
        }
        let open = self.open.get(&edge.id)?;
        Some(MarkerOpen {
            id: u64::from(edge.id),
            thread_id: open.thread_id,
            start_ns: open.start_ns,
            message: Arc::from(&*open.name),
        })
    }

    fn close(&mut self, id: u32, open: Open, end_ns: u64) -> Range {
        if let Some(depth) = self.depth.get_mut(&open.thread_id) {
            *depth = (*depth - 1).max(0);
        }
        Range {
            marker: marker(open.name, open.start_ns, end_ns, open.thread_id, Some(open.depth), id),
            domain: open.domain,
            instant: false,
        }
    }

    /// Ranges never closed, or closed with no start seen: reported, not guessed.
    pub fn unclosed(&self) -> usize {
        self.open.len() + self.early_ends.len()
    }
}

fn marker(message: Box<str>, start_ns: u64, end_ns: u64, thread_id: u64, depth: Option<i32>, id: u32) -> Marker {
    Marker {
        kind: NVTX_KIND,
        operation: NVTX_RANGE,
        thread_id,
        correlation_id: u64::from(id),
        start_ns,
        end_ns,
        depth,
        message,
        domain: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(flags: u32, id: u32, t: u64, name: Option<&str>) -> NvtxEdge {
        NvtxEdge { flags, id, timestamp_ns: t, thread_id: 7, name: name.map(Into::into), domain: None }
    }

    #[test]
    fn nested_ranges_get_depths_and_marks_are_instants() {
        let mut p = Pairing::default();
        let outer = edge(START, 1, 10, Some("outer"));
        assert!(p.add(&outer).is_none());
        let open = p.opened(&outer).unwrap();
        assert_eq!((open.id, open.start_ns, &*open.message), (1, 10, "outer"));
        let mark = p.add(&edge(INSTANT, 2, 11, Some("mark"))).unwrap();
        assert!(mark.instant);
        assert_eq!((mark.marker.start_ns, mark.marker.end_ns), (11, 11));
        assert!(p.add(&edge(START, 3, 12, Some("inner"))).is_none());
        let inner = p.add(&edge(END, 3, 20, None)).unwrap();
        assert_eq!((&*inner.marker.message, inner.marker.depth), ("inner", Some(1)));
        let outer = p.add(&edge(END, 1, 30, None)).unwrap();
        assert_eq!((&*outer.marker.message, outer.marker.depth, outer.marker.end_ns), ("outer", Some(0), 30));
        assert_eq!(p.unclosed(), 0);
    }

    #[test]
    fn an_end_before_its_start_waits_and_a_lone_start_is_counted() {
        let mut p = Pairing::default();
        assert!(p.add(&edge(END, 5, 50, None)).is_none());
        let range = p.add(&edge(START, 5, 40, Some("late"))).unwrap();
        assert_eq!((range.marker.start_ns, range.marker.end_ns), (40, 50));
        assert!(p.add(&edge(START, 6, 60, Some("open"))).is_none());
        assert_eq!(p.unclosed(), 1);
    }
}
