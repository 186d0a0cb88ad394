//! One kernel launch, the same for every producer of `kernel_dispatch` rows: the recorder's
//! backends, the importers and the rocpd export all fill a [`KernelLaunch`] and make the row
//! with [`KernelLaunch::row`], so a column means one thing whoever wrote it.
//!
//! Values are in the table's terms: the grid in work-items (a launch counted in blocks
//! multiplies by the block first), the block in work-items, shared memory and scratch in
//! bytes. What a producer does not know is zero or none.

use std::sync::Arc;

use crate::KernelDispatchRow;

/// A kernel launch's own values: what varies from one dispatch of a kernel to the next.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KernelLaunch {
    pub start_ns: i64,
    pub end_ns: i64,
    pub dispatch_id: u64,
    pub correlation_id: u64,
    pub external_id: u64,
    /// The kernel, as the producer's symbols name it.
    pub kernel_id: u64,
    pub agent_id: u64,
    /// The queue or stream the launch went to.
    pub queue_id: u64,
    pub thread_id: u64,
    pub graph_node_id: u64,
    /// In work-items.
    pub grid: [i64; 3],
    pub block: [i32; 3],
    /// Static and dynamic shared memory together, bytes.
    pub shared_mem: i32,
    /// Per work-item scratch (private, local) memory, bytes.
    pub scratch_size: i32,
    /// A thread-block cluster's shape in blocks (0 without clusters).
    pub cluster: [i32; 3],
    /// The graph the launch was replayed from (0 outside graphs).
    pub graph_id: u32,
    /// Registers per work-item where the launch reports them; else the kernel's symbol says.
    pub registers: Option<u16>,
    /// Set where the queue is a stream the application named (the `stream_id` column).
    pub stream_id: Option<i32>,
    /// The hardware pipe, where the library reports one.
    pub pipe_id: Option<i32>,
}

/// What a dispatch row takes from its kernel rather than from the launch.
#[derive(Debug, Clone, Copy)]
pub struct KernelFacts<'a> {
    pub name: &'a Arc<str>,
    pub mangled: &'a Arc<str>,
    /// The symbol's vector registers, the row's `regs` where the launch reports none.
    pub vgpr: i32,
    pub accum_vgpr: i32,
    pub sgpr: i32,
    pub kernarg_size: i32,
}

impl KernelLaunch {
    /// The launch's duration; zero for an end before the start, which no producer passes on
    /// knowingly.
    #[inline]
    pub fn duration_ns(&self) -> i64 {
        self.end_ns.saturating_sub(self.start_ns).max(0)
    }

    /// The launch's `kernel_dispatch` row. Inlined, since the recorder calls it once per
    /// dispatch and its values go from the launch into the columns with nothing between.
    #[inline(always)]
    pub fn row<'a>(&self, kernel: KernelFacts<'a>, pid: u32, vendor: &'a Arc<str>) -> KernelDispatchRow<'a> {
        KernelDispatchRow {
            kernel_name: kernel.name,
            start_ns: self.start_ns,
            duration_ns: self.duration_ns(),
            grid_x: self.grid[0],
            grid_y: self.grid[1],
            grid_z: self.grid[2],
            block_x: self.block[0],
            block_y: self.block[1],
            block_z: self.block[2],
            regs: self.registers.map_or(kernel.vgpr, i32::from),
            shared_mem: self.shared_mem,
            stream_id: self.stream_id,
            end_ns: self.end_ns,
            dispatch_id: self.dispatch_id,
            correlation_id: self.correlation_id,
            external_id: self.external_id,
            kernel_id: self.kernel_id,
            agent_id: self.agent_id,
            queue_id: self.queue_id,
            thread_id: self.thread_id,
            pid,
            mangled_name: kernel.mangled,
            accum_vgpr: kernel.accum_vgpr,
            sgpr: kernel.sgpr,
            scratch_size: self.scratch_size,
            kernarg_size: kernel.kernarg_size,
            pipe_id: self.pipe_id,
            vendor,
            graph_id: self.graph_id,
            graph_node_id: self.graph_node_id,
            cluster_x: self.cluster[0],
            cluster_y: self.cluster[1],
            cluster_z: self.cluster[2],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_without_registers_takes_the_symbols_and_a_reversed_span_lasts_nothing() {
        let name: Arc<str> = "k".into();
        let facts = KernelFacts { name: &name, mangled: &name, vgpr: 40, accum_vgpr: 0, sgpr: 0, kernarg_size: 0 };
        let vendor: Arc<str> = "amd".into();
        let launch = KernelLaunch { start_ns: 10, end_ns: 4, ..KernelLaunch::default() };
        let row = launch.row(facts, 1, &vendor);
        assert_eq!((row.regs, row.duration_ns), (40, 0));
        let launch = KernelLaunch { registers: Some(7), start_ns: 4, end_ns: 10, ..launch };
        let row = launch.row(facts, 1, &vendor);
        assert_eq!((row.regs, row.duration_ns), (7, 6));
    }
}
