//! A deterministic application: what each thread does, step by step, from `--seed`.
//!
//! Each thread binds to a GPU, allocates and uploads its buffers, then launches kernels (with
//! memsets, copies, stream syncs and ROCTx ranges mixed in) until it has issued its share of the
//! dispatches, and finally downloads, frees and synchronizes. The plan is generated lazily, so a
//! million-dispatch run needs no memory for it.

use crate::kernels::{CATALOG, KernelSpec, Launch};
use crate::rng::Rng;

/// The shape of a run.
#[derive(Debug, Clone)]
pub struct Workload {
    pub dispatches: u64,
    pub threads: u32,
    pub gpus: u32,
    pub seed: u64,
    /// Relative weight of each catalog kernel.
    pub weights: Vec<u32>,
    /// Roughly one ROCTx range per this many dispatches (0: no markers).
    pub range_every: u64,
    /// Roughly one extra copy per this many dispatches (0: only upload and download).
    pub copy_every: u64,
}

/// Named kernel mixes.
pub const MIXES: &[&str] = &["default", "gemm", "pointwise", "triton"];

/// Weights for the mix called `name`.
pub fn mix(name: &str) -> Option<Vec<u32>> {
    let pick =
        |f: &dyn Fn(&KernelSpec) -> bool| CATALOG.iter().map(|k| if f(k) { k.weight.max(1) } else { 0 }).collect();
    Some(match name {
        "default" => CATALOG.iter().map(|k| k.weight).collect(),
        "gemm" => pick(&|k| k.insts[5] > 0),
        "pointwise" => pick(&|k| k.lds == 0 && k.launch == Launch::Runtime),
        "triton" => pick(&|k| k.launch == Launch::Module && !k.mangled.starts_with("Cijk")),
        _ => return None,
    })
}

/// One thing a thread does.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    SetDevice {
        gpu: u32,
    },
    Malloc {
        gpu: u32,
        slot: usize,
        bytes: u64,
    },
    Free {
        gpu: u32,
        slot: usize,
    },
    /// `hipMemcpyAsync`; `None` is host memory.
    Copy {
        src: Option<u32>,
        dst: Option<u32>,
        slot: usize,
        bytes: u64,
        stream: u32,
    },
    Launch {
        kernel: usize,
        gpu: u32,
        stream: u32,
        grid: [u32; 3],
        workgroup: [u32; 3],
        dynamic_lds: u32,
    },
    Memset {
        gpu: u32,
        stream: u32,
        slot: usize,
        bytes: u64,
    },
    StreamSynchronize {
        stream: u32,
    },
    DeviceSynchronize,
    Mark {
        message: String,
    },
    Push {
        message: String,
    },
    Pop,
    StartRange {
        message: String,
    },
    StopRange,
}

impl Step {
    /// Whether this step dispatches a kernel.
    pub fn dispatches(&self) -> bool {
        matches!(self, Step::Launch { .. } | Step::Memset { .. })
    }
}

/// Buffers each thread allocates.
pub const SLOTS: usize = 4;

/// The steps of one thread.
#[derive(Debug)]
pub struct ThreadPlan {
    rng: Rng,
    weights: Vec<u32>,
    thread: u32,
    gpu: u32,
    quota: u64,
    issued: u64,
    range_every: u64,
    copy_every: u64,
    open_ranges: u32,
    process_range_open: bool,
    queue: std::collections::VecDeque<Step>,
    prologue: bool,
    done: bool,
    sizes: [u64; SLOTS],
}

impl Workload {
    /// The dispatches thread `thread` issues.
    pub fn quota(&self, thread: u32) -> u64 {
        let n = u64::from(self.threads);
        self.dispatches / n + u64::from(u64::from(thread) < self.dispatches % n)
    }

    /// The plan of thread `thread`.
    pub fn thread(&self, thread: u32) -> ThreadPlan {
        let mut rng = Rng::new(self.seed, u64::from(thread));
        let sizes = std::array::from_fn(|_| 1 << (20 + rng.below(8)));
        ThreadPlan {
            rng,
            weights: self.weights.clone(),
            thread,
            gpu: thread % self.gpus.max(1),
            quota: self.quota(thread),
            issued: 0,
            range_every: self.range_every,
            copy_every: self.copy_every,
            open_ranges: 0,
            process_range_open: false,
            queue: Default::default(),
            prologue: false,
            done: false,
            sizes,
        }
    }
}

impl ThreadPlan {
    fn chance(&mut self, every: u64) -> bool {
        every != 0 && self.rng.below(every) == 0
    }

    fn launch(&mut self) -> Step {
        let kernel = self.rng.weighted(&self.weights);
        let spec = &CATALOG[kernel];
        let (lo, hi) = spec.grid_log2;
        let items = 1u32 << (lo + self.rng.below(u64::from(hi - lo + 1)) as u32);
        let wg = spec.workgroup;
        let two_d = self.rng.below(4) == 0 && items >= 1 << 16;
        let (grid, workgroup) =
            if two_d { ([items / 256, 256, 1], [wg / 16, 16, 1]) } else { ([items, 1, 1], [wg, 1, 1]) };
        let dynamic_lds = if spec.lds > 0 && self.rng.below(2) == 0 { 1024 } else { 0 };
        Step::Launch { kernel, gpu: self.gpu, stream: self.rng.below(2) as u32, grid, workgroup, dynamic_lds }
    }

    fn refill(&mut self) {
        if !self.prologue {
            self.prologue = true;
            self.queue.push_back(Step::SetDevice { gpu: self.gpu });
            for slot in 0..SLOTS {
                self.queue.push_back(Step::Malloc { gpu: self.gpu, slot, bytes: self.sizes[slot] });
                self.queue.push_back(Step::Copy {
                    src: None,
                    dst: Some(self.gpu),
                    slot,
                    bytes: self.sizes[slot],
                    stream: 0,
                });
            }
            return;
        }
        if self.issued >= self.quota {
            if self.done {
                return;
            }
            self.done = true;
            for _ in 0..self.open_ranges {
                self.queue.push_back(Step::Pop);
            }
            if self.process_range_open {
                self.queue.push_back(Step::StopRange);
            }
            for slot in 0..SLOTS {
                self.queue.push_back(Step::Copy {
                    src: Some(self.gpu),
                    dst: None,
                    slot,
                    bytes: self.sizes[slot],
                    stream: 1,
                });
                self.queue.push_back(Step::Free { gpu: self.gpu, slot });
            }
            self.queue.push_back(Step::DeviceSynchronize);
            return;
        }
        if self.chance(self.range_every) {
            if self.open_ranges > 0 && self.rng.below(2) == 0 {
                self.open_ranges -= 1;
                self.queue.push_back(Step::Pop);
            } else if self.open_ranges < 4 {
                self.open_ranges += 1;
                let message = format!("thread {} phase {}", self.thread, self.issued);
                self.queue.push_back(Step::Push { message });
            }
            if self.rng.below(4) == 0 {
                self.queue.push_back(Step::Mark { message: format!("checkpoint {}", self.issued) });
            }
            if self.rng.below(8) == 0 {
                self.queue.push_back(if self.process_range_open {
                    Step::StopRange
                } else {
                    Step::StartRange { message: format!("epoch {} of thread {}", self.issued, self.thread) }
                });
                self.process_range_open = !self.process_range_open;
            }
        }
        if self.chance(self.copy_every) {
            let slot = self.rng.below(SLOTS as u64) as usize;
            let bytes = self.sizes[slot] >> self.rng.below(4);
            let (src, dst) = match self.rng.below(3) {
                0 => (None, Some(self.gpu)),
                1 => (Some(self.gpu), None),
                _ => (Some(self.gpu), Some(self.gpu)),
            };
            self.queue.push_back(Step::Copy { src, dst, slot, bytes, stream: self.rng.below(2) as u32 });
            if self.rng.below(4) == 0 {
                self.queue.push_back(Step::StreamSynchronize { stream: 0 });
            }
        }
        self.issued += 1;
        if self.rng.below(16) == 0 {
            let slot = self.rng.below(SLOTS as u64) as usize;
            self.queue.push_back(Step::Memset { gpu: self.gpu, stream: 0, slot, bytes: self.sizes[slot] });
        } else {
            let step = self.launch();
            self.queue.push_back(step);
        }
    }
}

impl Iterator for ThreadPlan {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        if self.queue.is_empty() {
            self.refill();
        }
        self.queue.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload(dispatches: u64, threads: u32) -> Workload {
        Workload {
            dispatches,
            threads,
            gpus: 2,
            seed: 42,
            weights: mix("default").unwrap(),
            range_every: 16,
            copy_every: 32,
        }
    }

    #[test]
    fn threads_issue_exactly_the_requested_dispatches() {
        let w = workload(1_003, 7);
        let total: usize = (0..7).map(|t| w.thread(t).filter(Step::dispatches).count()).sum();
        assert_eq!(total, 1_003);
    }

    #[test]
    fn plans_are_deterministic_and_balanced() {
        let w = workload(500, 2);
        assert_eq!(w.thread(1).collect::<Vec<_>>(), w.thread(1).collect::<Vec<_>>());
        assert_ne!(w.thread(0).collect::<Vec<_>>(), w.thread(1).collect::<Vec<_>>());
        for t in 0..2 {
            let steps: Vec<Step> = w.thread(t).collect();
            let pushes = steps.iter().filter(|s| matches!(s, Step::Push { .. })).count();
            let pops = steps.iter().filter(|s| matches!(s, Step::Pop)).count();
            assert_eq!(pushes, pops, "every range is closed");
            assert!(pushes > 0);
        }
    }

    #[test]
    fn every_mix_is_nonempty() {
        for name in MIXES {
            assert!(mix(name).unwrap().iter().any(|&w| w > 0), "{name}");
        }
    }
}
