//! The device sampler: a thread of its own that reads the GPUs' management library (NVML on
//! NVIDIA, AMD SMI on AMD) every interval and hands what it read to the writer as
//! `device_sample` rows, on the tables' clock.
//!
//! It is off unless asked for (`ROCPROF_RS_DEVICE_SAMPLE_MS`). The application never waits for
//! it: it shares nothing with the callbacks but the queue, which it feeds in batches of a
//! tenth of a second. A library that cannot be opened, or fails, turns the sampler off with one
//! line; tracing goes on. A sample is late when the library was slow or the thread got no core
//! in time: the next one is taken at the next multiple of the interval, never in a burst to
//! catch up, and the count of skipped ticks is said at the end where it is more than one in 20.
//!
//! Readings cost microseconds each, but for the energy counter: NVML takes 3 ms (7 ms at p90)
//! for it on an H100 (`bench/gpu/telemetry/nvml_costs.py`), which read on every tick would
//! make 1 ms ticks impossible and miss one 10 ms tick in ten. It is read every
//! [`ENERGY_EVERY`] and at the first and last samples, and is null between.

mod amdsmi;
mod nvml;

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use crate::config::BATCH_RECORDS;
use crate::pipeline::clock;
use crate::pipeline::queue::Batch;
use crate::pipeline::records::{DeviceSample, Record, SampledDevice};

/// How often the sampler hands its rows to the writer.
const SEND_EVERY: Duration = Duration::from_millis(100);

/// How often the energy counter is read.
pub const ENERGY_EVERY: Duration = Duration::from_millis(100);

/// Why a management library could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// The library or one of its functions is missing.
    #[error(transparent)]
    Load(#[from] rocprofiler_sdk_sys::LoadError),
    /// A call failed.
    #[error("{library}: {call} failed: {text}")]
    Call { library: &'static str, call: &'static str, text: String },
    /// The library found no GPU.
    #[error("{0} found no GPU")]
    NoDevice(&'static str),
    /// A count the library returned is beyond any machine's: a broken or hostile library, whose
    /// count must not size an allocation.
    #[error(
        "{library}: {call} reported {value} {what}, more than the {limit} it may report; the library is not trusted"
    )]
    Count { library: &'static str, call: &'static str, what: &'static str, value: u64, limit: u64 },
    /// A fill call claimed to have written more entries than the array it was given holds.
    #[error("{library}: {call} claimed {value} {what} in an array of {room}; the library is not trusted")]
    Overfilled { library: &'static str, call: &'static str, what: &'static str, value: u64, room: u64 },
}

/// The most sockets, processors or devices a management library may report: more than any
/// machine has by far, few enough that their handles cost nothing to hold.
pub(crate) const MAX_LIBRARY_COUNT: u32 = 1024;

/// `value`, where it is at most [`MAX_LIBRARY_COUNT`]: a count to size an array with.
pub(crate) fn bounded_count(
    library: &'static str,
    call: &'static str,
    what: &'static str,
    value: u32,
) -> Result<usize, TelemetryError> {
    if value > MAX_LIBRARY_COUNT {
        return Err(TelemetryError::Count {
            library,
            call,
            what,
            value: u64::from(value),
            limit: u64::from(MAX_LIBRARY_COUNT),
        });
    }
    Ok(value as usize)
}

/// The entries a fill call says it wrote into an array of `room`, where that is no more than
/// the room: past it the library wrote memory that is not the array's.
pub(crate) fn filled(
    library: &'static str,
    call: &'static str,
    what: &'static str,
    value: u32,
    room: usize,
) -> Result<usize, TelemetryError> {
    let value = value as usize;
    if value > room {
        return Err(TelemetryError::Overfilled { library, call, what, value: value as u64, room: room as u64 });
    }
    Ok(value)
}

/// A management library, opened, with its GPUs enumerated.
pub(crate) trait Source: Send {
    /// The GPUs, in the order `read` takes them.
    fn devices(&self) -> &[SampledDevice];
    /// Reads GPU `position` (in [`Source::devices`]' order) into `sample`; the energy counter
    /// too where `energy` is set.
    fn read(&mut self, position: usize, sample: &mut DeviceSample, energy: bool);
}

/// Which library to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Vendor {
    /// NVML; its GPUs are named by CUDA's ordinals, asked of the driver.
    Nvidia,
    /// AMD SMI, with each GPU agent's PCI location (as `amdsmi_bdf_t` packs it) and agent id.
    Amd(Vec<(u64, u64)>),
}

/// Opens the library for `vendor`: `path` overrides where it is looked for.
fn open(vendor: Vendor, path: Option<&str>) -> Result<Box<dyn Source>, TelemetryError> {
    Ok(match vendor {
        Vendor::Nvidia => Box::new(nvml::NvmlSource::open(path)?),
        Vendor::Amd(agents) => Box::new(amdsmi::AmdSmiSource::open(path, &agents)?),
    })
}

/// How long the end of a run waits for the sampler's last sample: a library stuck in a call (a
/// hung driver) must not hold the application's exit.
pub const STOP_WAIT: Duration = Duration::from_secs(2);

/// Owns the sampler thread; dropping it stops the thread and waits [`STOP_WAIT`] at most.
#[derive(Debug)]
#[must_use = "the sampler stops when its guard is dropped"]
pub struct SamplerGuard {
    stop: Option<Sender<()>>,
    /// Closed by the thread when it ends.
    ended: Receiver<()>,
    handle: Option<JoinHandle<()>>,
}

impl SamplerGuard {
    /// Starts the sampler thread, which opens `vendor`'s library (at `path`, where given) and
    /// samples it every `interval`, sending batches to `send`. The library is opened on the
    /// thread, not the caller's: CUPTI starts the tool inside `cuInit`, and matching NVML's
    /// GPUs to CUDA's ordinals takes `cuInit` again.
    pub(crate) fn start(
        vendor: Vendor,
        path: Option<String>,
        interval: Duration,
        send: impl Fn(Batch) + Send + 'static,
        new_batch: impl Fn() -> Batch + Send + 'static,
    ) -> std::io::Result<SamplerGuard> {
        let (stop, stopped) = crossbeam_channel::bounded(1);
        let (ending, ended) = crossbeam_channel::bounded::<()>(0);
        let handle = std::thread::Builder::new().name("rocprof-rs-sampler".into()).spawn(move || {
            let _ending = ending;
            crate::threads::block_signals_of_tool_threads();
            let quit = |why: &str| crate::say!("rocprof-rs: {why}; no device samples from here on, tracing goes on");
            crate::guard::catch_panic("the device sampler", (), quit, || {
                let source = match open(vendor, path.as_deref()) {
                    Ok(source) => source,
                    Err(e) => return quit(&format!("the device sampler: {e}")),
                };
                let (ticks, late) = sample_until_stopped(source, interval, &stopped, &send, &new_batch);
                if late * 20 > ticks {
                    crate::say!(
                        "rocprof-rs: the device sampler skipped {late} ticks of {interval:?}: the library was slower than the interval"
                    );
                }
            });
        })?;
        Ok(SamplerGuard { stop: Some(stop), ended, handle: Some(handle) })
    }

    /// Takes one last sample, sends what is left and ends the thread; a thread that has not
    /// ended within [`STOP_WAIT`] is left behind, said in one line.
    pub fn stop(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        drop(self.stop.take());
        let Some(handle) = self.handle.take() else { return };
        match self.ended.recv_timeout(STOP_WAIT) {
            Err(RecvTimeoutError::Timeout) => crate::say!(
                "rocprof-rs: the device sampler is stuck in its library; its last samples are lost, the run ends without them"
            ),
            Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                let _ = handle.join();
            }
        }
    }
}

impl Drop for SamplerGuard {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// The sampler's loop; returns the samples taken and the ticks skipped because a sample took
/// longer than the interval (or the thread did not get a core in time).
fn sample_until_stopped(
    mut source: Box<dyn Source>,
    interval: Duration,
    stopped: &Receiver<()>,
    send: &dyn Fn(Batch),
    new_batch: &dyn Fn() -> Batch,
) -> (u64, u64) {
    let mut batch = new_batch();
    for device in source.devices() {
        batch.push(Record::SampledDevice(Box::new(device.clone())));
    }
    let (mut next, mut sent_at, mut late, mut ticks) = (Instant::now(), Instant::now(), 0u64, 0u64);
    let mut energy_at: Option<Instant> = None;
    loop {
        let energy = energy_at.is_none_or(|at| at.elapsed() >= ENERGY_EVERY);
        if energy {
            energy_at = Some(Instant::now());
        }
        sample_every_device(source.as_mut(), &mut batch, energy);
        ticks += 1;
        if sent_at.elapsed() >= SEND_EVERY || batch.len() + source.devices().len() > BATCH_RECORDS {
            send(std::mem::replace(&mut batch, new_batch()));
            sent_at = Instant::now();
        }
        next += interval;
        let now = Instant::now();
        if next < now {
            let behind = now.duration_since(next).as_nanos() / interval.as_nanos().max(1) + 1;
            late += behind as u64;
            next += interval * u32::try_from(behind).unwrap_or(u32::MAX);
        }
        match stopped.recv_timeout(next.saturating_duration_since(Instant::now())) {
            Err(RecvTimeoutError::Timeout) => continue,
            Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    // The last sample closes the run, so the kernels that ended since the previous one are
    // covered on both sides.
    sample_every_device(source.as_mut(), &mut batch, true);
    send(batch);
    (ticks + 1, late)
}

fn sample_every_device(source: &mut dyn Source, batch: &mut Batch, energy: bool) {
    for position in 0..source.devices().len() {
        let mut sample = DeviceSample { index: source.devices()[position].index, ..DeviceSample::default() };
        source.read(position, &mut sample, energy);
        batch.push(Record::DeviceSample(Box::new(sample)));
    }
}

/// The time a sample is stamped with: the middle of its power reading, the reading energy is
/// integrated from.
pub(crate) fn stamp(before_ns: u64) -> u64 {
    before_ns + (clock::now_ns().saturating_sub(before_ns)) / 2
}
