//! One rank of `rocprof-sim --ranks`: a data-parallel training loop on one thread, with the
//! truth row of every record it makes the SDK emit.
//!
//! The rank joins its peers (`ncclCommInitRank`, which waits for all of them), then plays each
//! step: a ROCTx range `step <k>` around the step's compute kernels, one `ncclAllReduce` of the
//! gradients and the optimizer's kernel. The all-reduce enqueues RCCL's collective kernel
//! (through `hipExtLaunchKernel`, as RCCL launches it), which starts when this rank arrives and
//! cannot end before every rank has: its end is the last arrival on the board plus the time the
//! reduction itself takes, the same on every rank.

use std::ffi::CString;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use rocprofiler_sdk_sys::*;

use super::play::{HIP, MARKER, api_rows, dispatch, dispatch_rows, thread_id};
use super::{Loaded, Machine, Runtime, check, truth_file};
use crate::kernels::{CATALOG, Launch, RCCL_CATALOG};
use crate::ops::{MARKER_CORE, RCCL_ALL_REDUCE, RCCL_API, RCCL_COMM_INIT_RANK, hip_name};
use crate::ranks::{
    AFTER_ALL_REDUCE, BEFORE_ALL_REDUCE, Board, COMPUTE_ITEMS, GRADIENT_BYTES, RankPlay, RanksError, Slots,
    all_reduce_ns,
};
use crate::runtime_abi::*;
use crate::truth::Row;

const RCCL: u32 = ROCPROFILER_CALLBACK_TRACING_RCCL_API;

/// The training loop's stream: its kernels and RCCL's collectives queue on it in order, so the
/// optimizer runs only once the gradients are reduced.
const STREAM: u32 = 0;

/// RCCL's launch of a ring all-reduce: 16 channels of one 256-thread workgroup each.
const COLLECTIVE_GRID: [u32; 3] = [16 * 256, 1, 1];

/// A rank in play.
struct Rank<'a> {
    rt: &'a Runtime,
    loaded: &'a Loaded,
    /// The truth rows so far.
    out: String,
    tid: u64,
    gpu: u32,
    /// The collective kernel's id on `gpu`.
    all_reduce_kernel: u64,
}

impl Rank<'_> {
    /// Makes one API call of `kind`, doing `inside` between its enter and exit, and writes its
    /// truth rows. Returns what the SDK recorded of it and what `inside` returned.
    fn call<R>(
        &mut self,
        kind: u32,
        op: i32,
        message: Option<&CString>,
        inside: impl FnOnce(&mut Self) -> R,
    ) -> (SimApiSpan, R) {
        let (call, mut span) = self.rt.api_call(kind, op, message, 0);
        let inner = inside(self);
        self.rt.api_end(&call, &mut span);
        let (record, name) = match kind {
            HIP => ("hip_api", hip_name(op).unwrap_or("unknown")),
            MARKER => ("marker_api", MARKER_CORE[op as usize]),
            _ => ("rccl_api", RCCL_API[op as usize]),
        };
        api_rows(&mut self.out, record, &span, name);
        (span, inner)
    }

    /// Launches the catalog kernel called `name` on the training stream.
    fn launch(&mut self, name: &str) {
        let kernel = CATALOG.iter().position(|k| k.mangled == name).expect("step kernels are in the catalog");
        let spec = &CATALOG[kernel];
        let op = if spec.launch == Launch::Module {
            ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel
        } else {
            ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel
        };
        self.call(HIP, op, None, |r| {
            let (grid, workgroup) = ([COMPUTE_ITEMS, 1, 1], [spec.workgroup, 1, 1]);
            dispatch(r.rt, &mut r.out, r.tid, kernel, r.gpu, STREAM, grid, workgroup, 0, r.loaded);
        });
    }

    /// Enqueues the collective kernel of an all-reduce over `world` ranks, its end left open.
    fn enqueue_all_reduce(&mut self, world: u32) -> (SimDispatch, SimDispatchResult) {
        let spec = &RCCL_CATALOG[0];
        let items = COLLECTIVE_GRID.iter().map(|&g| u64::from(g)).product();
        // Its counters count the reduction's own work, not the time it waits for peers.
        let nominal = all_reduce_ns(world, GRADIENT_BYTES);
        let d = SimDispatch {
            gpu: self.gpu,
            stream: STREAM,
            kernel_id: self.all_reduce_kernel,
            grid: COLLECTIVE_GRID,
            workgroup: [spec.workgroup, 1, 1],
            group_segment_size: spec.lds,
            private_segment_size: spec.scratch,
            duration_ns: nominal,
            activity: spec.activity(items, spec.workgroup, nominal),
            open_end: 1,
        };
        let mut r = SimDispatchResult::default();
        // SAFETY: valid structs.
        check("dispatch", unsafe { (self.rt.api.rocprofiler_sim_dispatch)(&d, &mut r) });
        (d, r)
    }

    /// Ends an open dispatch at `end_ns`; returns the end the SDK gave it.
    fn end_dispatch(&self, dispatch_id: u64, end_ns: u64) -> u64 {
        let mut end = 0;
        // SAFETY: a valid output, for a dispatch this thread left open.
        check("dispatch end", unsafe { (self.rt.api.rocprofiler_sim_dispatch_end)(dispatch_id, end_ns, &mut end) });
        end
    }
}

impl Machine {
    /// Plays one rank of a training job (see the module's documentation), meeting its peers on
    /// `board`. With a `truth` path, writes there the truth of every record the SDK emitted,
    /// after the code objects and a comment line `about`. Starts the runtime if need be.
    pub fn play_rank(
        &mut self,
        play: &RankPlay,
        board: &Board,
        truth: Option<(&Path, &str)>,
    ) -> Result<Duration, RanksError> {
        if self.loaded.is_none() {
            self.start_runtime();
        }
        let (me, world) = (play.me.rank, play.me.world_size);
        let gpu = play.me.local_rank % self.archs.len() as u32;
        // RCCL's device code is a code object of its own library, loaded on the rank's GPU.
        let uri = format!("file:///opt/rocm/lib/librccl.so.1#offset=0x{:x}&size=4194304", 0x10_0000 * (gpu + 1));
        let ids = self.load_code_object(gpu, &uri, RCCL_CATALOG);
        let loaded = self.loaded.as_ref().expect("the runtime was started above");
        let mut rank = Rank {
            rt: &self.rt,
            loaded,
            out: String::with_capacity(1 << 16),
            tid: thread_id(),
            gpu,
            all_reduce_kernel: ids[0],
        };
        let started = Instant::now();
        let bound = play.wait_bound();
        rank.call(HIP, ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice, None, |_| ());
        rank.call(RCCL, RCCL_COMM_INIT_RANK, None, |_| {
            board.set(Slots::Joined, me, u64::from(std::process::id()));
            board.wait_all(me, "ncclCommInitRank", Slots::Joined, bound)
        })
        .1?;
        for step in 0..play.steps {
            let message = CString::new(format!("step {step}")).expect("no NUL");
            let (push, ()) = rank.call(MARKER, ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, Some(&message), |_| ());
            for name in BEFORE_ALL_REDUCE {
                rank.launch(name);
            }
            if let Some(delay) = play.delay_before(step) {
                std::thread::sleep(delay);
            }
            if let Some(code) = play.exit_at(step) {
                eprintln!("rocprof-sim: rank {me} exits with status {code} at step {step}, as asked");
                std::process::exit(i32::from(code));
            }
            let (_, (d, mut r)) = rank.call(RCCL, RCCL_ALL_REDUCE, None, |rank| {
                rank.call(HIP, ROCPROFILER_HIP_RUNTIME_API_ID_hipExtLaunchKernel, None, |rank| {
                    rank.enqueue_all_reduce(world)
                })
                .1
            });
            // This rank has arrived when its collective kernel starts. The host then waits for
            // the others, as the next work on the stream (the optimizer) would on a GPU.
            board.set(Slots::Arrival(step), me, r.start_ns);
            let what = format!("step {step}'s ncclAllReduce");
            let arrivals = board.wait_all(me, &what, Slots::Arrival(step), bound)?;
            let last = arrivals.iter().copied().max().unwrap_or(r.start_ns);
            r.end_ns = rank.end_dispatch(r.dispatch_id, last + all_reduce_ns(world, GRADIENT_BYTES));
            board.set(Slots::End(step), me, r.end_ns);
            dispatch_rows(&mut rank.out, rank.tid, &d, &r);
            for name in AFTER_ALL_REDUCE {
                rank.launch(name);
            }
            rank.call(MARKER, ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, None, |_| ());
            // The range's correlation id is the push's; the truth keeps it with the name.
            Row {
                record: "marker_range",
                correlation_id: Some(push.correlation_id),
                operation: Some("roctxThreadRangeA"),
                name: Some(&message.to_string_lossy()),
                ..Row::default()
            }
            .write_to(&mut rank.out);
        }
        rank.call(HIP, ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize, None, |rank| {
            // SAFETY: no arguments.
            check("synchronize", unsafe { (rank.rt.api.rocprofiler_sim_synchronize)() });
        });
        let elapsed = started.elapsed();
        if let Some((path, about)) = truth {
            let write = |source| RanksError::Write { path: path.to_path_buf(), source };
            let mut file = truth_file(path, &self.head, about).map_err(write)?;
            file.write_all(rank.out.as_bytes()).and_then(|()| file.flush()).map_err(write)?;
        }
        Ok(elapsed)
    }
}
