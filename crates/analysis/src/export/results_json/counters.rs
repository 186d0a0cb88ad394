//! `callback_records.counter_collection`: one record per counted dispatch, the dispatch's data
//! and a value per counter (`tool_counter_record_t`).
//!
//! Counter rows are joined to their dispatches through an external sort on (process, dispatch
//! id), as the CSV export joins them, so memory stays bounded however many dispatches there
//! are. rocprofv3 writes a value per hardware instance; the dataset keeps sums (or instances
//! without their place), so each counter row is one value. A counter row whose dispatch is not
//! in `kernel_dispatch` takes what the row knows (correlation, agent, kernel) and zeros.

use rocprof_rs_format::Table;
use serde::Serialize;

use super::catalog::Catalog;
use super::out::Outputs;
use super::records::{AsyncCorrelation, Dim3, DispatchColumns, DispatchInfo, Handle};
use crate::error::{Error, Result};
use crate::read::Batch;
use crate::spill::{Key, Sorter};

/// In the join, a dispatch sorts before its counter rows.
const DISPATCH: u64 = 0;
const COUNTED: u64 = 1;

#[derive(Debug, Serialize)]
struct DispatchData {
    size: u64,
    correlation_id: AsyncCorrelation,
    start_timestamp: u64,
    end_timestamp: u64,
    dispatch_info: DispatchInfo,
}

#[derive(Debug, Serialize)]
struct CounterValue {
    counter_id: Handle,
    value: f64,
}

#[derive(Debug, Serialize)]
struct CounterRecord<'a> {
    thread_id: u64,
    dispatch_data: DispatchData,
    records: &'a [CounterValue],
    stream_id: Handle,
}

/// A dispatch as the join carries it: thread, stream, then the record's numbers.
fn encode(thread: u64, stream: u64, d: &DispatchData) -> Vec<u8> {
    let i = &d.dispatch_info;
    let (w, g) = (i.workgroup_size, i.grid_size);
    let words = [
        thread,
        stream,
        d.correlation_id.internal,
        d.correlation_id.external,
        d.start_timestamp,
        d.end_timestamp,
        i.agent_id.handle,
        i.queue_id.handle,
        i.kernel_id,
        u64::from(i.private_segment_size),
        u64::from(i.group_segment_size),
        u64::from(w.x),
        u64::from(w.y),
        u64::from(w.z),
        u64::from(g.x),
        u64::from(g.y),
        u64::from(g.z),
    ];
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn decode(dispatch_id: u64, bytes: &[u8]) -> Option<(u64, u64, DispatchData)> {
    let w = |i: usize| bytes.get(i * 8..i * 8 + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
    let n = |i: usize| w(i).map(|v| v as u32);
    let info = DispatchInfo {
        size: 0,
        agent_id: Handle { handle: w(6)? },
        queue_id: Handle { handle: w(7)? },
        kernel_id: w(8)?,
        dispatch_id,
        private_segment_size: n(9)?,
        group_segment_size: n(10)?,
        workgroup_size: Dim3 { x: n(11)?, y: n(12)?, z: n(13)? },
        grid_size: Dim3 { x: n(14)?, y: n(15)?, z: n(16)? },
    };
    let data = DispatchData {
        size: 0,
        correlation_id: AsyncCorrelation { internal: w(2)?, external: w(3)? },
        start_timestamp: w(4)?,
        end_timestamp: w(5)?,
        dispatch_info: info,
    };
    Some((w(0)?, w(1)?, data))
}

/// The join of counter rows to their dispatches.
#[derive(Debug, Default)]
pub(super) struct Join {
    sorter: Sorter,
    seq: u64,
}

impl Join {
    /// Every dispatch of a `kernel_dispatch` batch.
    pub fn dispatches(&mut self, b: &Batch<'_>) -> Result<()> {
        let c = |n| b.col(n);
        let (pid, thread, correlation, external, start, end) =
            (c("pid")?, c("thread_id")?, c("correlation_id")?, c("external_id")?, c("start_ns")?, c("end_ns")?);
        let columns = DispatchColumns::of(b)?;
        for i in 0..b.rows() {
            let info = columns.info(i)?;
            let key = Key::new().u64(pid.u64(i)).u64(info.dispatch_id).u64(DISPATCH).0;
            let data = DispatchData {
                size: 0,
                correlation_id: AsyncCorrelation { internal: correlation.u64(i), external: external.u64(i) },
                start_timestamp: start.u64(i),
                end_timestamp: end.u64(i),
                dispatch_info: info,
            };
            self.sorter.push(&key, &encode(thread.u64(i), columns.stream(i).handle, &data))?;
        }
        Ok(())
    }

    /// Every row of a `counter` batch, noting its counter in `catalog`.
    pub fn counters(&mut self, b: &Batch<'_>, catalog: &mut Catalog) -> Result<()> {
        let c = |n| b.col(n);
        let (pid, dispatch, counter, value) = (c("pid")?, c("dispatch_id")?, c("counter")?, c("value")?);
        let (correlation, agent, kernel) = (c("correlation_id")?, c("agent_id")?, c("kernel_id")?);
        for i in 0..b.rows() {
            let (p, name) = (pid.u64(i) as u32, counter.text(i));
            catalog.counter(p, agent.u64(i), name);
            let key = Key::new().u64(u64::from(p)).u64(dispatch.u64(i)).u64(COUNTED).u64(self.seq).0;
            self.seq += 1;
            let mut bytes = Vec::with_capacity(32 + name.len());
            for w in [value.f64(i).to_bits(), correlation.u64(i), agent.u64(i), kernel.u64(i)] {
                bytes.extend_from_slice(&w.to_le_bytes());
            }
            bytes.extend_from_slice(name.as_bytes());
            self.sorter.push(&key, &bytes)?;
        }
        Ok(())
    }

    /// `callback_records.counter_collection`, in dispatch order.
    pub fn write(self, catalog: &Catalog, out: &mut Outputs) -> Result<()> {
        out.begin_array("counter_collection")?;
        let sorted = self.sorter.finish()?;
        let mut reader = sorted.reader()?;
        let mut group = Group::default();
        while let Some((key, value)) = reader.next()? {
            let word = |i: usize| key.get(i * 8..i * 8 + 8).map(|b| u64::from_be_bytes(b.try_into().expect("8 bytes")));
            let (pid, dispatch_id, what) = match (word(0), word(1), word(2)) {
                (Some(p), Some(d), Some(w)) => (p as u32, d, w),
                _ => return Err(broken()),
            };
            if group.at != Some((pid, dispatch_id)) {
                group.write(out)?;
                group = Group { at: Some((pid, dispatch_id)), ..Group::default() };
            }
            if what == DISPATCH {
                group.dispatch = Some(decode(dispatch_id, value).ok_or_else(broken)?);
                continue;
            }
            let w = |i: usize| value.get(i * 8..i * 8 + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
            let (bits, correlation, agent, kernel) = (w(0), w(1), w(2), w(3));
            let (Some(bits), Some(correlation), Some(agent), Some(kernel)) = (bits, correlation, agent, kernel) else {
                return Err(broken());
            };
            let name = value.get(32..).and_then(|n| std::str::from_utf8(n).ok()).ok_or_else(broken)?;
            group.dispatch.get_or_insert_with(|| (0, 0, stand_in(dispatch_id, correlation, agent, kernel)));
            group.values.push(CounterValue {
                counter_id: Handle { handle: catalog.counter_id(pid, name) },
                value: f64::from_bits(bits),
            });
        }
        group.write(out)?;
        out.end_array()
    }
}

/// One dispatch of the join and its values.
#[derive(Debug, Default)]
struct Group {
    at: Option<(u32, u64)>,
    /// Thread, stream and dispatch data.
    dispatch: Option<(u64, u64, DispatchData)>,
    values: Vec<CounterValue>,
}

impl Group {
    /// Its record, if any counter counted it.
    fn write(self, out: &mut Outputs) -> Result<()> {
        let (Some((pid, _)), Some((thread, stream, data))) = (self.at, self.dispatch) else { return Ok(()) };
        if self.values.is_empty() {
            return Ok(());
        }
        let record = CounterRecord {
            thread_id: thread,
            dispatch_data: data,
            records: &self.values,
            stream_id: Handle { handle: stream },
        };
        out.item(pid, &record, true)
    }
}

/// The dispatch data of a counter row whose dispatch is not in the dataset.
fn stand_in(dispatch_id: u64, correlation: u64, agent: u64, kernel_id: u64) -> DispatchData {
    DispatchData {
        size: 0,
        correlation_id: AsyncCorrelation { internal: correlation, external: 0 },
        start_timestamp: 0,
        end_timestamp: 0,
        dispatch_info: DispatchInfo {
            size: 0,
            agent_id: Handle { handle: agent },
            queue_id: Handle { handle: 0 },
            kernel_id,
            dispatch_id,
            private_segment_size: 0,
            group_segment_size: 0,
            workgroup_size: Dim3::default(),
            grid_size: Dim3::default(),
        },
    }
}

/// Whether the dataset has counter rows (the join is needed only then).
pub(super) fn any(dir: &std::path::Path) -> Result<bool> {
    Ok(!rocprof_rs_format::dataset::table_files(dir, Table::Counter)?.is_empty())
}

fn broken() -> Error {
    Error::Invalid("rocprofv3 JSON export: a counter record did not come back from the external sort".into())
}
