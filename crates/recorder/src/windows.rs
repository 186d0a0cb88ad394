//! Tracing windows (`ROCPROF_RS_WINDOW`): one thread turns the backend's collection on for
//! `on` out of every `every`, and sends each window's bounds to the writer as a row of the
//! `window` table.
//!
//! A window's `start_ns` is read before collection is switched on and its `end_ns` after it
//! is switched off, so the bounds enclose every launch the backend can have recorded in it
//! (a row of another table belongs to the last window that opened at or before its own
//! start); `opened_ns` and `closing_ns`, read after the switch on and before the switch off,
//! enclose the launches it surely recorded.
//! The schedule keeps to the clock of the first opening (a late switch shortens nothing after
//! it), and a window still open when the run ends is closed by the end and recorded.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use crate::config::window::Window;
use crate::lifecycle::{Backend, Tool};
use crate::pipeline::clock;
use crate::pipeline::records::{Record, WindowBounds};

/// How long [`WindowsGuard::stop`] waits for the thread: a backend stuck in its library
/// must not hold the application's exit.
const STOP_WAIT: Duration = Duration::from_secs(5);

/// The window thread, stopped and joined when dropped or [`stop`](WindowsGuard::stop)ped.
#[must_use = "the windows stop when the guard is dropped"]
pub(crate) struct WindowsGuard {
    stop: Option<Sender<()>>,
    ended: Receiver<()>,
    handle: Option<JoinHandle<()>>,
}

impl WindowsGuard {
    /// Starts the thread; the first window opens at once.
    pub(crate) fn start(tool: &'static Tool, backend: &'static dyn Backend, window: Window) -> std::io::Result<Self> {
        let (stop, stopped) = crossbeam_channel::bounded::<()>(1);
        let (ending, ended) = crossbeam_channel::bounded::<()>(0);
        let handle = std::thread::Builder::new().name("rocprof-rs-window".into()).spawn(move || {
            let _ending = ending;
            crate::threads::block_signals_of_tool_threads();
            let quit = |why: &str| crate::say!("rocprof-rs: {why}; no more windows, the run goes on");
            crate::guard::catch_panic("the window thread", (), quit, || {
                run(window, &stopped, backend, &|bounds| {
                    let queue = tool.queue();
                    let mut batch = queue.batch();
                    queue.push(&mut batch, Record::row(bounds));
                    queue.send(batch);
                });
            });
        })?;
        Ok(WindowsGuard { stop: Some(stop), ended, handle: Some(handle) })
    }

    /// Closes an open window, records it and ends the thread.
    pub(crate) fn stop(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        drop(self.stop.take());
        let Some(handle) = self.handle.take() else { return };
        match self.ended.recv_timeout(STOP_WAIT) {
            Err(RecvTimeoutError::Timeout) => {
                crate::say!("rocprof-rs: the window thread is stuck in the tracing library; its last window is lost")
            }
            Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                let _ = handle.join();
            }
        }
    }
}

impl Drop for WindowsGuard {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// Opens and closes windows on `window`'s schedule until `stopped` disconnects, handing each
/// closed window to `record`. A backend that refuses to switch ends the windows, said once.
fn run(window: Window, stopped: &Receiver<()>, backend: &dyn Backend, record: &dyn Fn(WindowBounds)) {
    let first = Instant::now();
    for index in 0u32.. {
        let opens = first + window.every * index;
        if wait_until(stopped, opens) {
            return;
        }
        let start_ns = clock::now_ns();
        if let Err(e) = backend.set_collecting(true) {
            crate::say!("rocprof-rs: cannot open tracing window {index}: {e}; no more windows, the run goes on");
            return;
        }
        let opened_ns = clock::now_ns();
        // A slow switch shortens no window.
        let stop_now = wait_until(stopped, (opens + window.on).max(Instant::now() + window.on / 2));
        let closing_ns = clock::now_ns();
        let switched_off = backend.set_collecting(false);
        record(WindowBounds { window: index, start_ns, end_ns: clock::now_ns(), opened_ns, closing_ns });
        if let Err(e) = switched_off {
            crate::say!("rocprof-rs: cannot close tracing window {index}: {e}; no more windows, the run goes on");
            return;
        }
        if stop_now {
            return;
        }
    }
}

/// Sleeps until `deadline`; true if told to stop first.
fn wait_until(stopped: &Receiver<()>, deadline: Instant) -> bool {
    match stopped.recv_deadline(deadline) {
        Err(RecvTimeoutError::Timeout) => false,
        Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::error::Result;

    /// A backend that notes when it was switched.
    #[derive(Default)]
    struct Switches(Mutex<Vec<(bool, u64)>>);

    impl Backend for Switches {
        fn start(&self) -> Result<()> {
            Ok(())
        }
        fn set_collecting(&self, on: bool) -> Result<()> {
            self.0.lock().unwrap().push((on, clock::now_ns()));
            Ok(())
        }
        fn flush(&self) {}
        fn finish(&self) {}
        fn telemetry(&self) -> crate::telemetry::Vendor {
            crate::telemetry::Vendor::Nvidia
        }
        fn start_in_process(_: crate::config::Config, _: bool, _: Option<&std::path::Path>) -> Result<()> {
            Ok(())
        }
    }

    #[test]
    fn windows_alternate_enclose_their_switches_and_count_from_zero() {
        let switches = Switches::default();
        let windows = Mutex::new(Vec::new());
        let (stop, stopped) = crossbeam_channel::bounded::<()>(1);
        let window = Window { on: Duration::from_millis(5), every: Duration::from_millis(15) };
        std::thread::scope(|s| {
            s.spawn(|| run(window, &stopped, &switches, &|b| windows.lock().unwrap().push(b)));
            while windows.lock().unwrap().len() < 3 {
                std::thread::sleep(Duration::from_millis(1));
            }
            drop(stop);
        });
        let windows = windows.into_inner().unwrap();
        let switches = switches.0.into_inner().unwrap();
        assert!(windows.len() >= 3, "{windows:?}");
        assert_eq!(switches.len(), 2 * windows.len(), "every window opened once and closed once: {switches:?}");
        for (i, (w, pair)) in windows.iter().zip(switches.chunks(2)).enumerate() {
            assert_eq!(w.window, i as u32);
            assert!(pair[0].0 && !pair[1].0, "on, then off: {pair:?}");
            assert!(w.start_ns <= pair[0].1 && pair[1].1 <= w.end_ns, "{w:?} {pair:?}");
            assert!(
                pair[0].1 <= w.opened_ns && w.opened_ns <= w.closing_ns && w.closing_ns <= pair[1].1,
                "{w:?} {pair:?}"
            );
        }
        assert!(windows.windows(2).all(|p| p[0].end_ns < p[1].start_ns), "windows overlap: {windows:?}");
    }

    #[test]
    fn a_stop_while_closed_records_no_empty_window() {
        let switches = Switches::default();
        let windows = Mutex::new(Vec::new());
        let (stop, stopped) = crossbeam_channel::bounded::<()>(1);
        let window = Window { on: Duration::from_millis(5), every: Duration::from_secs(10) };
        std::thread::scope(|s| {
            s.spawn(|| run(window, &stopped, &switches, &|b| windows.lock().unwrap().push(b)));
            std::thread::sleep(Duration::from_millis(50));
            drop(stop);
        });
        assert_eq!(windows.into_inner().unwrap().len(), 1);
        assert_eq!(switches.0.into_inner().unwrap().len(), 2);
    }
}
