//! The one writer thread: it drains the queue, turns records into table rows, and writes a row
//! group whenever a table has `row_group_rows` of them.
//!
//! It is the only thread that touches Parquet, names or kernel facts, so none of that needs a
//! lock. An I/O error does not stop it: it reports the error once, closes what it can and then
//! keeps draining the queue, counting what it discards, so a producer blocked on a full queue in
//! lossless mode is never left hanging.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, select};
use parquet::file::metadata::KeyValue;

use super::queue::{Batch, Queue};
use super::rows::Tables;
use super::summary::Summary;
use crate::error::Result;
use rocprof_rs_format::keys;

/// How often the writer asks whether a file has been open longer than the rotation period:
/// between batches while records arrive, and when none have for this long.
const ROTATION_CHECK: Duration = Duration::from_millis(200);

/// Requests from the tool to its writer.
#[derive(Debug)]
enum Control {
    /// Write everything received so far and complete the open files; reply when done.
    Flush(Sender<()>),
    /// Write everything, complete the files, and end the thread.
    Stop,
}

/// Owns the writer thread; dropping it stops and joins the thread.
#[derive(Debug)]
pub struct WriterGuard {
    control: Sender<Control>,
    handle: Option<JoinHandle<Summary>>,
}

impl WriterGuard {
    /// Starts the writer thread over `receiver`; `on_error` is called once, from the writer
    /// thread, with the first I/O error.
    pub fn start(
        tables: Tables,
        receiver: Receiver<Batch>,
        queue: Arc<Queue>,
        on_error: Box<dyn Fn(&crate::Error) + Send>,
    ) -> std::io::Result<WriterGuard> {
        let (control, control_rx) = crossbeam_channel::bounded(4);
        let flight = tables
            .config()
            .flight_recorder
            .clone()
            .map(|settings| super::flight::Flight::new(settings, &tables.config().output_dir));
        let handle = std::thread::Builder::new().name("rocprof-rs-writer".into()).spawn(move || {
            crate::threads::block_signals_of_tool_threads();
            Writer {
                flight,
                dumps: Vec::new(),
                tables,
                receiver,
                control: control_rx,
                queue,
                on_error,
                failed: None,
                discarded: 0,
                next_rotation_check: Instant::now() + ROTATION_CHECK,
            }
            .run()
        })?;
        Ok(WriterGuard { control, handle: Some(handle) })
    }

    /// Asks the writer to write and complete everything so far; waits at most `timeout`.
    pub fn flush(&self, timeout: Duration) -> bool {
        let (done, wait) = crossbeam_channel::bounded(1);
        self.control.send(Control::Flush(done)).is_ok() && wait.recv_timeout(timeout).is_ok()
    }

    /// Stops the writer after it has written everything, and returns what it did.
    pub fn stop(mut self) -> Summary {
        self.stop_and_join()
    }

    fn stop_and_join(&mut self) -> Summary {
        let _ = self.control.send(Control::Stop);
        self.handle.take().and_then(|h| h.join().ok()).unwrap_or_default()
    }
}

impl Drop for WriterGuard {
    fn drop(&mut self) {
        if self.handle.is_some() {
            self.stop_and_join();
        }
    }
}

struct Writer {
    /// The flight recorder, where asked for: records are kept there, not written.
    flight: Option<super::flight::Flight>,
    /// The dumps written so far.
    dumps: Vec<std::path::PathBuf>,
    tables: Tables,
    receiver: Receiver<Batch>,
    control: Receiver<Control>,
    queue: Arc<Queue>,
    on_error: Box<dyn Fn(&crate::Error) + Send>,
    failed: Option<String>,
    discarded: u64,
    next_rotation_check: Instant,
}

impl Writer {
    fn run(mut self) -> Summary {
        loop {
            select! {
                recv(self.receiver) -> batch => match batch {
                    Ok(batch) => self.take(batch),
                    Err(_) => break,
                },
                recv(self.control) -> request => match request {
                    Ok(Control::Flush(done)) => {
                        self.drain();
                        self.complete_files(false);
                        let _ = done.send(());
                    }
                    Ok(Control::Stop) | Err(_) => break,
                },
                default(ROTATION_CHECK) => self.rotate_due(),
            }
        }
        self.drain();
        // Triggers still waiting for a flush: the backend has flushed everything at the end.
        while let Some(trigger) = self.flight.as_mut().and_then(super::flight::Flight::take_waiting) {
            self.dump(trigger);
        }
        if self.flight.as_ref().is_some_and(|f| f.settings.on_exit) {
            self.dump(super::flight::Trigger::Exit);
        }
        self.complete_files(true);
        self.summary()
    }

    fn take(&mut self, batch: Batch) {
        if let Some(flight) = &mut self.flight {
            if let Some(trigger) = flight.keep(batch, &self.queue) {
                flight.arm(trigger);
            }
            if Instant::now() >= self.next_rotation_check {
                self.rotate_due();
            }
            return;
        }
        if self.failed.is_some() {
            self.discarded += batch.iter().filter(|r| r.is_activity()).count() as u64;
        } else {
            let result = self.tables.add(&batch);
            self.check(result);
        }
        self.queue.recycle(batch);
        // A busy run never waits ROTATION_CHECK for a batch: its files are rotated here.
        if Instant::now() >= self.next_rotation_check {
            self.rotate_due();
        }
    }

    fn rotate_due(&mut self) {
        self.next_rotation_check = Instant::now() + ROTATION_CHECK;
        if let Some(flight) = &mut self.flight {
            // What a flush moved to the queue is read before a trigger is judged: a hang stands
            // only if the flush after it brought nothing finished, and its report needs the
            // ranges that flush delivered. As many batches as are queued now, so a busy run
            // cannot keep the writer here.
            for _ in 0..self.receiver.len() {
                let Ok(batch) = self.receiver.try_recv() else { break };
                if let Some(trigger) = flight.keep(batch, &self.queue) {
                    flight.arm(trigger);
                }
            }
            while let Some(trigger) = self.flight.as_mut().and_then(super::flight::Flight::due) {
                self.dump(trigger);
            }
            return;
        }
        if self.failed.is_none() {
            let result = self.tables.rotate_due();
            self.check(result);
        }
    }

    fn drain(&mut self) {
        while let Ok(batch) = self.receiver.try_recv() {
            self.take(batch);
        }
    }

    /// Writes the flight recorder's records as a dump for `trigger`; says where in one line,
    /// or why it could not. The run goes on either way.
    fn dump(&mut self, trigger: super::flight::Trigger) {
        let Some(flight) = &mut self.flight else { return };
        // What the queue holds is the newest part of the dump; triggers it fires come after.
        while let Ok(batch) = self.receiver.try_recv() {
            if let Some(trigger) = flight.keep(batch, &self.queue) {
                flight.arm(trigger);
            }
        }
        let seq = self.dumps.len() as u32;
        let written = super::dump::write(&self.tables, flight, &trigger, seq);
        let reply = matches!(trigger, super::flight::Trigger::Api { .. }).then(|| flight.replies.pop()).flatten();
        match &written {
            Ok(dir) => {
                crate::say!("rocprof-rs: flight recorder: {} dump written to {}", trigger.name(), dir.display());
                self.dumps.push(dir.clone());
                let list: Vec<String> =
                    self.dumps.iter().map(|d| super::rows::json_string(Some(&d.display().to_string()))).collect();
                self.tables.note("dumps", format!("[{}]", list.join(",")));
            }
            Err(e) => {
                crate::say!("rocprof-rs: flight recorder: the {} dump failed: {e}; recording goes on", trigger.name())
            }
        }
        if let Some(reply) = reply {
            let _ = reply.send(written);
        }
    }

    /// Completes the open files; at the end of the run (`last`), with the run's aggregates.
    /// A flight recorder's run writes only its metadata file, which lists the dumps.
    fn complete_files(&mut self, last: bool) {
        if let Some(flight) = &self.flight {
            self.tables.note("flight_recorder", flight.stats_json());
            if last && let Err(e) = self.tables.write_run_metadata(&self.summary()) {
                (self.on_error)(&e);
            }
            return;
        }
        if self.failed.is_none() {
            let closing = self.closing_metadata();
            let result =
                if last { self.tables.finish(&closing, &self.summary()) } else { self.tables.complete(&closing) };
            self.check(result);
        }
        if let Err(e) = self.tables.write_run_metadata(&self.summary())
            && self.failed.is_none()
        {
            (self.on_error)(&e);
        }
    }

    fn check(&mut self, result: Result<()>) {
        if let Err(e) = result
            && self.failed.is_none()
        {
            (self.on_error)(&e);
            self.failed = Some(e.to_string());
            self.discarded += self.tables.abandon();
        }
    }

    fn closing_metadata(&self) -> Vec<KeyValue> {
        let summary = self.summary();
        vec![
            KeyValue::new(keys::END_NS.into(), crate::pipeline::clock::now_ns().to_string()),
            KeyValue::new(keys::RECORDS.into(), summary.rows_json()),
            KeyValue::new(keys::DROPPED.into(), summary.dropped_json()),
        ]
    }

    fn summary(&self) -> Summary {
        Summary {
            rows: self.tables.rows_written(),
            files: self.tables.files_written(),
            library_dropped: self.queue.library_dropped(),
            queue_dropped: self.queue.dropped(),
            discarded: self.discarded,
            filtered: self.tables.filtered(),
            error: self.failed.clone(),
            stem: self.tables.stem().to_owned(),
            holding: self.queue.holding(),
            dumps: self.dumps.len(),
        }
    }
}
