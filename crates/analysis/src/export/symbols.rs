//! The dataset's `kernel_symbol` rows, read once here for every export that writes them.

use std::path::Path;

use rocprof_rs_format::Table;

use crate::error::Result;
use crate::read::batches;

/// One kernel symbol.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct KernelSymbol {
    pub kernel_id: u64,
    pub code_object_id: u64,
    pub name: String,
    pub mangled: String,
    /// kernarg, LDS, scratch, SGPRs, arch VGPRs, accumulation VGPRs.
    pub sizes: [u64; 6],
}

/// Calls `each` with every kernel symbol of `dir` and its process, in the dataset's order.
pub(crate) fn for_each(dir: &Path, mut each: impl FnMut(u32, KernelSymbol) -> Result<()>) -> Result<()> {
    batches(dir, Table::KernelSymbol, |b| {
        let c = |n| b.col(n);
        let (kernel, object, name, mangled, kernarg) =
            (c("kernel_id")?, c("code_object_id")?, c("kernel_name")?, c("mangled_name")?, c("kernarg_size")?);
        let (lds, scratch, sgpr, vgpr, accum, pid) =
            (c("lds_size")?, c("scratch_size")?, c("sgpr")?, c("arch_vgpr")?, c("accum_vgpr")?, c("pid")?);
        for i in 0..b.rows() {
            let symbol = KernelSymbol {
                kernel_id: kernel.u64(i),
                code_object_id: object.u64(i),
                name: name.text(i).to_owned(),
                mangled: mangled.text(i).to_owned(),
                sizes: [kernarg.u64(i), lds.u64(i), scratch.u64(i), sgpr.u64(i), vgpr.u64(i), accum.u64(i)],
            };
            each(pid.u64(i) as u32, symbol)?;
        }
        Ok(())
    })
}
