//! `fork(2)`: the child is a process of its own, with one thread and a copy of the parent's
//! memory. The SDK gives the child new callback threads and keeps its contexts running, so the
//! child is traced; what the tool needs is a writer, a queue, signal plumbing and files of the
//! child's own, because the parent's threads did not come along and its files are the parent's.
//!
//! - Before the fork (`prepare`, in the parent): the SDK's buffer is flushed, so records the
//!   parent emitted are written by the parent alone, and the locks the child will need are
//!   taken so no other thread holds them at the moment of the fork.
//! - In the child: the parent's writer, queue and signal thread are forgotten (never joined or
//!   dropped: they do not exist here), new ones start, the file-name stem takes the child's pid,
//!   and the kernel symbols the parent learnt are replayed, since the SDK will not announce
//!   code objects that were loaded before the fork again. A record that started before the fork
//!   and still reaches the child's buffer is the parent's, and is left out.

use std::sync::Once;

use super::{code_objects, session, symbols};
use crate::config::{self, Placeholders};
use crate::lifecycle::{self, disable, trampoline};
use crate::pipeline::clock;
use crate::pipeline::records::Record;
use crate::pipeline::rows::Tables;
use crate::signals;
use rocprof_rs_format::pc_sample::SampleMethod;

/// Registers the handlers, once.
pub(super) fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: three plain `extern "C" fn()` handlers.
        let rc = unsafe { libc::pthread_atfork(Some(prepare), Some(in_parent), Some(in_child)) };
        if rc != 0 {
            crate::say!("rocprof-rs: cannot register fork handlers; a forked child will not be traced");
        }
    });
}

extern "C" fn prepare() {
    trampoline("the fork prepare handler", (), || {
        if let (Some(_), Some(amd)) = (lifecycle::running(), super::amd()) {
            crate::lifecycle::Backend::flush(amd);
        }
    });
    // Held across the fork, released on both sides (`release`).
    symbols::hold_across_fork();
    code_objects::hold_across_fork();
    if let Some(tool) = lifecycle::installed() {
        std::mem::forget(tool.writer.lock());
    }
}

/// Releases what `prepare` took.
fn release() {
    // SAFETY: `prepare` locked each and forgot the guards; this thread (the one that forked, or
    // its image in the child) is the owner.
    unsafe { symbols::release_after_fork() };
    // SAFETY: as above.
    unsafe { code_objects::release_after_fork() };
    if let Some(tool) = lifecycle::installed() {
        // SAFETY: as above.
        unsafe { tool.writer.force_unlock() };
    }
}

extern "C" fn in_parent() {
    release();
}

extern "C" fn in_child() {
    release();
    trampoline("the fork child handler", (), restart);
}

fn restart() {
    let Some(tool) = lifecycle::installed() else { return };
    let born_ns = clock::now_ns();
    // The parent's writer and sampler threads are not in this process: joining them would wait
    // forever.
    std::mem::forget(tool.writer.lock().take());
    lifecycle::forget_sampler_in_forked_child(tool);
    let (Some(seed), true) = (tool.seed.get(), lifecycle::is_running()) else { return };
    // The parent accepted this environment, which the child inherited: it is UTF-8 unless the
    // application changed it since, and then only `%rank%` falls back to 0.
    let vars = config::process_vars().unwrap_or_default();
    let config = tool.config.for_forked_child(&Placeholders::of_this_process(&vars));
    let (queue, receiver) = tool.new_queue();
    let agents = match super::sdk::sdk().map_err(crate::Error::from).and_then(|sdk| session::agents(sdk.api())) {
        Ok((agents, _)) => agents,
        Err(e) => {
            disable(&format!("in the forked child {}: {e}", std::process::id()));
            return;
        }
    };
    let started = Tables::new(config, seed.clone(), agents, born_ns)
        .and_then(|tables| lifecycle::start_writer(tables, queue.clone(), receiver));
    match started {
        Ok(writer) => *tool.writer.lock() = Some(writer),
        Err(e) => {
            disable(&format!("in the forked child {}: {e}", std::process::id()));
            return;
        }
    }
    let kept = symbols::kept();
    let mut batch = queue.batch();
    for symbol in kept.iter() {
        queue.push(&mut batch, Record::Symbol(Box::new(symbol.clone())));
    }
    drop(kept);
    // The child's writer needs the sampling methods' names too: the parent's were told to the
    // parent's writer alone.
    if super::amd().is_some_and(|amd| amd.pc_samples().is_some()) {
        for method in [SampleMethod::HostTrap, SampleMethod::Stochastic] {
            queue.push(&mut batch, super::pc_decode::names(method));
        }
    }
    queue.send(batch);
    signals::restart_in_child();
}
