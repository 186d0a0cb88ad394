//! What the benches share: the simulator's kernel catalog as the symbol records a run starts
//! with, so dispatch rows get real names.

use rocprof_rs::pipeline::records::{Record, Symbol};
use rocprof_sim::kernels::CATALOG;

/// One symbol record per catalog kernel, kernel ids from 1.
pub fn symbols() -> Vec<Record> {
    CATALOG
        .iter()
        .enumerate()
        .map(|(i, k)| {
            Record::Symbol(Box::new(Symbol {
                kernel_id: i as u64 + 1,
                code_object_id: 1,
                mangled: k.mangled.into(),
                kernarg_size: k.kernarg_size,
                group_segment_size: k.lds,
                private_segment_size: k.scratch,
                sgpr: k.sgpr,
                arch_vgpr: k.arch_vgpr,
                accum_vgpr: k.accum_vgpr,
            }))
        })
        .collect()
}
