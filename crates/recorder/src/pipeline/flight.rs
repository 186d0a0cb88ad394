//! The flight recorder's memory: the last seconds of records, in the writer thread, bounded in
//! time and in bytes, and the triggers that turn them into a dump ([`super::dump`]).
//!
//! Records are moved out of the queue's batches into chunks of their own (a batch keeps its
//! full capacity whatever it holds, and a callback may send one record in it), and the batch
//! goes back to the pool at once. Names and counts ([`Record::must_keep`]) are kept apart, for
//! as long as the run, since every dump needs them; they are few.
//!
//! Triggers: the dump signal ([`signalled`]), a request file in the output directory (one
//! write reaches every process that shares the directory), an API call ([`request`]), a slow
//! step, a hang, and the end of the run where asked.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use crossbeam_channel::Sender;
use parking_lot::Mutex;

use super::hang::HangWatch;
pub use super::hang::Pending;
use super::queue::{Batch, Queue};
use super::records::Record;
use crate::config::BATCH_RECORDS;
use crate::config::flight::FlightRecorder;

/// Why a dump is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Trigger {
    /// The dump signal.
    Signal,
    /// The request file changed; `id` names the request (its modification time), the same in
    /// every process that saw it, so their dumps share a folder.
    Request { id: String },
    /// An API call (`rocprof_rs.dump()`), with the caller's reason.
    Api { reason: String },
    /// The run ended.
    Exit,
    /// A step took `factor` times the running median.
    SlowStep { message: String, duration_ns: u64, median_ns: u64 },
    /// No kernel finished for `quiet_ns` while `pending` launches were outstanding. `request`
    /// is the request this process made of every process sharing the output directory (a
    /// hang on one rank stalls the others: their dumps, in the same folder, show where).
    Hang { quiet_ns: u64, pending: Vec<Pending>, request: Option<String> },
}

impl Trigger {
    /// A short name for folders and messages.
    pub fn name(&self) -> &'static str {
        match self {
            Trigger::Signal => "signal",
            Trigger::Request { .. } => "request",
            Trigger::Api { .. } => "api",
            Trigger::Exit => "exit",
            Trigger::SlowStep { .. } => "slow-step",
            Trigger::Hang { .. } => "hang",
        }
    }
}

/// Set by the dump signal's handler; taken by the writer.
static SIGNALLED: AtomicBool = AtomicBool::new(false);

/// The dump signal's handler body: async-signal-safe.
pub fn signalled() {
    SIGNALLED.store(true, Ordering::Release);
    FLUSH_WANTED.store(true, Ordering::Release);
}

/// A dump is near: the backend's flush thread should move everything its library holds to
/// the queue now, partly filled buffers included, rather than at its next period.
static FLUSH_WANTED: AtomicBool = AtomicBool::new(false);
/// When the last such flush began (CLOCK_BOOTTIME ns): a dump waits for one begun after its
/// trigger, so it holds what happened up to the trigger.
static FLUSHED_AT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Asks the backend for a flush of everything it holds (async-signal-safe).
pub fn want_flush() {
    FLUSH_WANTED.store(true, Ordering::Release);
}

/// For the backend's flush thread: whether a dump wants a flush now (and the wish is taken).
pub fn take_flush_wanted() -> bool {
    FLUSH_WANTED.swap(false, Ordering::AcqRel)
}

/// For the backend's flush thread: a flush begun at `started_ns` has moved everything to the
/// queue.
pub fn flushed(started_ns: u64) {
    FLUSHED_AT.fetch_max(started_ns, Ordering::AcqRel);
}

/// Whether a flush begun at or after `ns` has completed.
fn flushed_since(ns: u64) -> bool {
    FLUSHED_AT.load(Ordering::Acquire) >= ns
}

/// How long a trigger waits for the backend's flush before the dump is written regardless.
const FLUSH_WAIT: Duration = Duration::from_secs(2);

/// Dumps asked for through the API, each with where to say the dump's folder.
type ApiRequest = (String, Option<DumpReply>);

/// Where an API request hears its dump's folder, or why the dump failed.
pub type DumpReply = Sender<crate::Result<PathBuf>>;
static API_REQUESTS: Mutex<Vec<ApiRequest>> = Mutex::new(Vec::new());

/// Asks the writer for a dump with `reason`; `reply` hears the dump's folder when it is written.
pub fn request(reason: String, reply: Option<DumpReply>) {
    API_REQUESTS.lock().push((reason, reply));
    want_flush();
}

/// The file whose every change asks every process for a dump.
pub const REQUEST_FILE: &str = "dump-request";

/// A request's ID: its file's modification time, the same for every process that reads it.
fn request_id(modified: SystemTime) -> String {
    let since = modified.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    format!("{}-{:09}", since.as_secs(), since.subsec_nanos())
}

/// The kept records and the triggers' state.
#[derive(Debug)]
pub struct Flight {
    pub settings: FlightRecorder,
    chunks: VecDeque<(Instant, Batch)>,
    bytes: usize,
    /// Names and counts, kept for the whole run.
    pub catalog: Batch,
    /// Activity records let go for age or room.
    pub evicted: u64,
    /// Activity records taken in, and the most bytes kept at once: with `evicted`, what tells
    /// a recorder that stopped receiving from one that kept up.
    received: u64,
    peak_bytes: usize,
    request_file: PathBuf,
    request_seen: Option<SystemTime>,
    /// The requests this process dumped for, the last few.
    requests_dumped: VecDeque<String>,
    next_request_check: Instant,
    steps: VecDeque<u64>,
    /// When the last slow step dumped: another within the span kept would repeat it.
    last_slow_step: Option<Instant>,
    /// Slow steps that did not dump for that reason.
    pub slow_steps_within_a_dump: u64,
    /// Where hangs are watched.
    hang: Option<HangWatch>,
    hang_reported: bool,
    /// Replies owed to API requests, in the order of the triggers handed out.
    pub replies: Vec<DumpReply>,
    /// Triggers waiting for the backend's flush: since when (ns), and until when at most.
    waiting: VecDeque<(Trigger, u64, Instant)>,
    /// When the hang condition was first seen, and whether a flush begun after it has
    /// completed: it stands once the records of that flush have been read.
    hang_seen_ns: Option<(u64, bool)>,
}

/// The bytes a chunk holds, whatever it holds: its records' room.
const CHUNK_BYTES: usize = BATCH_RECORDS * std::mem::size_of::<Record>();

impl Flight {
    /// A recorder with `settings`, polling `output_dir`'s request file.
    pub fn new(settings: FlightRecorder, output_dir: &std::path::Path) -> Flight {
        let request_file = output_dir.join(REQUEST_FILE);
        // A request older than the run is not for it.
        let request_seen = std::fs::metadata(&request_file).and_then(|m| m.modified()).ok();
        let hang = settings.hang.map(|_| HangWatch::new(super::clock::now_ns()));
        Flight {
            settings,
            chunks: VecDeque::new(),
            bytes: 0,
            catalog: Vec::new(),
            evicted: 0,
            received: 0,
            peak_bytes: 0,
            request_file,
            request_seen,
            requests_dumped: VecDeque::new(),
            next_request_check: Instant::now(),
            steps: VecDeque::new(),
            last_slow_step: None,
            slow_steps_within_a_dump: 0,
            hang,
            hang_reported: false,
            replies: Vec::new(),
            waiting: VecDeque::new(),
            hang_seen_ns: None,
        }
    }

    /// Moves `batch`'s records into the recorder (the batch goes back to `queue`'s pool), and
    /// returns a trigger they fire (a slow step).
    pub fn keep(&mut self, mut batch: Batch, queue: &Queue) -> Option<Trigger> {
        let now = Instant::now();
        let mut fired = None;
        for record in batch.drain(..) {
            if let Some(t) = self.watch(&record) {
                fired.get_or_insert(t);
            }
            // For the hang watch alone: never a row, so never worth the memory kept.
            if matches!(record, Record::MarkerOpen(_) | Record::LaunchName(_)) {
                continue;
            }
            if record.must_keep() {
                self.catalog.push(record);
                continue;
            }
            if self.chunks.back().is_none_or(|(_, c)| c.len() == BATCH_RECORDS) {
                self.chunks.push_back((now, Vec::with_capacity(BATCH_RECORDS)));
                self.bytes += CHUNK_BYTES;
            }
            let (at, chunk) = self.chunks.back_mut().expect("a chunk was just made");
            *at = now;
            chunk.push(record);
            self.received += 1;
        }
        self.peak_bytes = self.peak_bytes.max(self.bytes);
        queue.recycle(batch);
        self.evict(now);
        fired
    }

    /// Lets go of chunks older than the span kept, and of the oldest beyond the memory bound.
    fn evict(&mut self, now: Instant) {
        while let Some((at, chunk)) = self.chunks.front() {
            let old = now.duration_since(*at) > self.settings.keep;
            let over = self.bytes > self.settings.memory_bytes;
            // The chunk being filled stays unless it is old: a bound smaller than one chunk
            // still keeps the newest records.
            if !old && (!over || self.chunks.len() == 1) {
                break;
            }
            self.evicted += chunk.len() as u64;
            self.bytes -= CHUNK_BYTES;
            self.chunks.pop_front();
        }
    }

    /// The kept records, oldest first, names and counts before them all.
    pub fn records(&self) -> impl Iterator<Item = &Batch> {
        std::iter::once(&self.catalog).chain(self.chunks.iter().map(|(_, c)| c))
    }

    /// Activity records kept now.
    pub fn kept(&self) -> usize {
        self.chunks.iter().map(|(_, c)| c.len()).sum()
    }

    /// The recorder's figures, as the metadata's `flight_recorder` object: its settings, what
    /// it keeps now, and what it took in and let go over the run.
    pub fn stats_json(&self) -> String {
        format!(
            "{{\"keep_s\":{},\"memory_bytes\":{},\"kept_records\":{},\"kept_bytes\":{},\"received_records\":{},\"evicted_records\":{},\"peak_bytes\":{},\"slow_steps_within_a_dump\":{}}}",
            self.settings.keep.as_secs_f64(),
            self.settings.memory_bytes,
            self.kept(),
            self.bytes,
            self.received,
            self.evicted,
            self.peak_bytes,
            self.slow_steps_within_a_dump
        )
    }

    /// The bytes the kept records take.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// A trigger whose dump is due: one that fired (the signal, the request file, the API, a
    /// slow step, a hang) once the backend has flushed after it, or waited long enough.
    pub fn due(&mut self) -> Option<Trigger> {
        while let Some(fired) = self.fired() {
            self.arm(fired);
        }
        let &(_, since, deadline) = self.waiting.front()?;
        if flushed_since(since) || Instant::now() >= deadline {
            return self.waiting.pop_front().map(|(trigger, _, _)| trigger);
        }
        None
    }

    /// A trigger still waiting, at the end of the run (everything is flushed then).
    pub fn take_waiting(&mut self) -> Option<Trigger> {
        while let Some(fired) = self.fired() {
            self.waiting.push_back((fired, 0, Instant::now()));
        }
        self.waiting.pop_front().map(|(trigger, _, _)| trigger)
    }

    /// Holds `trigger` until the backend has flushed.
    pub fn arm(&mut self, trigger: Trigger) {
        want_flush();
        self.waiting.push_back((trigger, super::clock::now_ns(), Instant::now() + FLUSH_WAIT));
    }

    /// A trigger that fired since the last look.
    fn fired(&mut self) -> Option<Trigger> {
        if SIGNALLED.swap(false, Ordering::AcqRel) {
            return Some(Trigger::Signal);
        }
        if let Some((reason, reply)) = {
            let mut requests = API_REQUESTS.lock();
            (!requests.is_empty()).then(|| requests.remove(0))
        } {
            self.replies.extend(reply);
            return Some(Trigger::Api { reason });
        }
        if let Some(trigger) = self.requested() {
            return Some(trigger);
        }
        self.hung()
    }

    /// The request file, read at most every 250 ms.
    fn requested(&mut self) -> Option<Trigger> {
        let now = Instant::now();
        if now < self.next_request_check {
            return None;
        }
        self.next_request_check = now + Duration::from_millis(250);
        let modified = std::fs::metadata(&self.request_file).and_then(|m| m.modified()).ok()?;
        if self.request_seen == Some(modified) {
            return None;
        }
        self.request_seen = Some(modified);
        let id = request_id(modified);
        if self.requests_dumped.len() == 16 {
            self.requests_dumped.pop_front();
        }
        self.requests_dumped.push_back(id.clone());
        Some(Trigger::Request { id })
    }

    /// Follows steps, and where hangs are watched, launches and what finished.
    fn watch(&mut self, record: &Record) -> Option<Trigger> {
        if let Some(hang) = &mut self.hang
            && hang.watch(record)
        {
            self.hang_reported = false;
        }
        match record {
            Record::Marker(m) => self.step(m),
            _ => None,
        }
    }

    /// The launches outstanding now, with their threads' open ranges, where hangs are watched.
    pub fn outstanding(&self) -> Option<(u64, Vec<Pending>)> {
        let hang = self.hang.as_ref()?;
        let now = super::clock::now_ns();
        Some((hang.quiet_ns(now).unwrap_or(0), hang.outstanding()))
    }

    /// A step marker: slower than the factor times the running median of the last 64 steps
    /// (once there are 5) fires.
    fn step(&mut self, marker: &super::records::Marker) -> Option<Trigger> {
        let pattern = self.settings.step_marker.as_ref()?;
        if !pattern.is_match(&marker.message) {
            return None;
        }
        let duration_ns = marker.end_ns.saturating_sub(marker.start_ns);
        let fired = (self.steps.len() >= 5)
            .then(|| {
                let mut sorted: Vec<u64> = self.steps.iter().copied().collect();
                sorted.sort_unstable();
                sorted[sorted.len() / 2]
            })
            .filter(|&median| duration_ns as f64 > self.settings.slow_factor * median as f64)
            .map(|median_ns| Trigger::SlowStep { message: marker.message.to_string(), duration_ns, median_ns });
        if self.steps.len() == 64 {
            self.steps.pop_front();
        }
        self.steps.push_back(duration_ns);
        let fired = fired?;
        let now = Instant::now();
        if self.last_slow_step.is_some_and(|at| now.duration_since(at) < self.settings.keep) {
            self.slow_steps_within_a_dump += 1;
            return None;
        }
        self.last_slow_step = Some(now);
        Some(fired)
    }

    /// A hang: launches outstanding, and no kernel finished for the span asked.
    fn hung(&mut self) -> Option<Trigger> {
        let limit = self.settings.hang?;
        let hang = self.hang.as_ref()?;
        if self.hang_reported {
            return None;
        }
        let now = super::clock::now_ns();
        let quiet_ns = hang.quiet_ns(now)?;
        if quiet_ns < limit.as_nanos() as u64 {
            self.hang_seen_ns = None;
            return None;
        }
        // Records of finished kernels may still sit in the library's buffers: a hang stands
        // only if it outlasts a flush begun after it was seen.
        // The writer reads what is queued before each look, so the flush's records are read
        // by the look after the one that sees it complete.
        match self.hang_seen_ns {
            Some((_, true)) => {}
            Some((seen, false)) => {
                if flushed_since(seen) {
                    self.hang_seen_ns = Some((seen, true));
                }
                return None;
            }
            None => {
                self.hang_seen_ns = Some((now, false));
                want_flush();
                return None;
            }
        }
        self.hang_seen_ns = None;
        self.hang_reported = true;
        let pending = hang.outstanding();
        let began = SystemTime::now().checked_sub(Duration::from_nanos(quiet_ns)).unwrap_or(SystemTime::UNIX_EPOCH);
        let request = match self.join_or_request(began) {
            // Another process saw this hang first and this one has dumped for its request:
            // that dump's `in_flight` is this hang's report already.
            Some(id) if self.requests_dumped.contains(&id) => {
                crate::say!("rocprof-rs: flight recorder: a hang, already in the dump of request {id}");
                return None;
            }
            request => request,
        };
        Some(Trigger::Hang { quiet_ns, pending, request })
    }

    /// The request every process sharing the output directory dumps for: one another process
    /// made since `began` (the hang stalls them all, so the first to see it asks for everyone),
    /// else a new one made here. Taken as seen either way. None if the file cannot be written.
    fn join_or_request(&mut self, began: SystemTime) -> Option<String> {
        let current = std::fs::metadata(&self.request_file).and_then(|m| m.modified()).ok();
        if let Some(modified) = current.filter(|&m| m >= began) {
            self.request_seen = Some(modified);
            return Some(request_id(modified));
        }
        // Written aside and renamed over, so a poller never sees a half-made request (a
        // truncation and a write would show it two modification times).
        let aside = self.request_file.with_extension(format!("{}.tmp", std::process::id()));
        std::fs::write(&aside, format!("a hang in process {}\n", std::process::id())).ok()?;
        if std::fs::rename(&aside, &self.request_file).is_err() {
            let _ = std::fs::remove_file(&aside);
            return None;
        }
        let modified = std::fs::metadata(&self.request_file).and_then(|m| m.modified()).ok()?;
        self.request_seen = Some(modified);
        Some(request_id(modified))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Policy;
    use crate::pipeline::records::{Api, Kernel, Marker, Symbol};

    fn settings() -> FlightRecorder {
        FlightRecorder {
            keep: Duration::from_secs(60),
            memory_bytes: 3 * CHUNK_BYTES,
            signal: None,
            on_exit: false,
            step_marker: Some(regex_lite::Regex::new("^step").unwrap()),
            slow_factor: 3.0,
            hang: Some(Duration::from_nanos(1)),
        }
    }

    fn kernel(i: u64) -> Record {
        Record::Kernel(Kernel { start_ns: i, end_ns: i + 1, dispatch_id: i, ..Kernel::default() })
    }

    #[test]
    fn the_oldest_records_go_beyond_the_memory_bound_and_names_stay() {
        let (queue, _rx) = Queue::new(8, Policy::Lossless);
        let mut flight = Flight::new(settings(), std::path::Path::new("/nonexistent"));
        let symbol = Symbol::named(7, "k".into());
        let mut batch = queue.batch();
        batch.push(Record::Symbol(Box::new(symbol)));
        flight.keep(batch, &queue);
        for round in 0..10u64 {
            let mut batch = queue.batch();
            batch.extend((0..BATCH_RECORDS as u64).map(|i| kernel(round * 10_000 + i)));
            flight.keep(batch, &queue);
        }
        assert!(flight.bytes() <= 3 * CHUNK_BYTES, "{}", flight.bytes());
        assert_eq!(flight.kept(), 3 * BATCH_RECORDS);
        assert_eq!(flight.evicted, 7 * BATCH_RECORDS as u64);
        assert_eq!(flight.catalog.len(), 1, "names are never evicted");
        let first = flight.records().nth(1).unwrap().first().and_then(Record::start_ns);
        assert_eq!(first, Some(70_000), "the newest records are the ones kept");
    }

    fn step(ms: u64) -> Record {
        Record::Marker(Box::new(Marker {
            kind: 0,
            operation: 0,
            thread_id: 1,
            correlation_id: 0,
            start_ns: 0,
            end_ns: ms * 1_000_000,
            depth: Some(0),
            message: "step".into(),
            domain: None,
        }))
    }

    #[test]
    fn a_slow_step_fires_once_per_span_kept_and_a_hang_names_what_is_outstanding() {
        let (queue, _rx) = Queue::new(8, Policy::Lossless);
        let mut flight = Flight::new(settings(), std::path::Path::new("/nonexistent"));
        let mut fired = Vec::new();
        for ms in [10, 11, 9, 10, 12, 50, 10, 60] {
            let mut batch = queue.batch();
            batch.push(step(ms));
            fired.extend(flight.keep(batch, &queue));
        }
        assert_eq!(fired.len(), 1, "{fired:?}");
        assert!(matches!(&fired[0], Trigger::SlowStep { duration_ns: 50_000_000, median_ns: 10_000_000, .. }));
        assert_eq!(flight.slow_steps_within_a_dump, 1);

        let launch = |correlation_id: u64, start_ns: u64| {
            Record::Api(Api {
                kind: 1,
                operation: 2,
                thread_id: 3,
                correlation_id,
                ancestor_id: 0,
                start_ns,
                end_ns: start_ns + 1,
            })
        };
        let now = crate::pipeline::clock::now_ns();
        let mut batch = queue.batch();
        batch.extend([launch(1, now - 10), launch(2, now - 5)]);
        batch.push(Record::LaunchName(Box::new(crate::pipeline::records::LaunchName {
            correlation_id: 2,
            name: "spin_forever".into(),
        })));
        batch.push(Record::Kernel(Kernel { start_ns: now - 8, end_ns: now - 7, ..Kernel::default() }));
        flight.keep(batch, &queue);
        std::thread::sleep(Duration::from_millis(2));
        // The hang stands once a flush after it was seen finds nothing new, and its dump waits
        // for one more.
        let mut due = None;
        for _ in 0..6 {
            due = due.or_else(|| flight.due());
            std::thread::sleep(Duration::from_millis(1));
            flushed(crate::pipeline::clock::now_ns());
        }
        match due {
            Some(Trigger::Hang { pending, .. }) => {
                assert_eq!(
                    pending.iter().map(|p| p.correlation_id).collect::<Vec<_>>(),
                    [2],
                    "launch 1 ran before a finished kernel"
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(flight.due(), None, "one report per hang");
    }

    /// Three processes share an output directory. The first to see a hang writes the request;
    /// another whose hang began before it joins it (one folder, no second request, and its
    /// poll does not fire for it again); one whose hang began after it makes a new one.
    #[test]
    fn a_hang_joins_a_request_made_during_it_or_makes_one() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-flight-join-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut first = Flight::new(settings(), &dir);
        let mut second = Flight::new(settings(), &dir);
        let began = SystemTime::now() - Duration::from_secs(5);
        let made = first.join_or_request(began).expect("the request is written");
        assert!(dir.join(REQUEST_FILE).is_file());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "nothing left aside");
        assert_eq!(second.join_or_request(began).as_deref(), Some(made.as_str()));
        second.next_request_check = Instant::now();
        assert_eq!(second.requested(), None, "the joined request is not dumped again");
        std::thread::sleep(Duration::from_millis(20));
        let mut third = Flight::new(settings(), &dir);
        let later = third.join_or_request(SystemTime::now()).unwrap();
        assert_ne!(later, made);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
