//! What a collective is, by name: the kernels and RCCL calls whose names match `nccl|rccl`,
//! and their operation; and each rank's numbering of them per operation.

use serde::Serialize;

/// A collective's operation, from its kernel's or its API call's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema)]
pub enum Operation {
    AllReduce,
    AllGather,
    ReduceScatter,
    Broadcast,
    Reduce,
    AllToAll,
    SendRecv,
    Other,
}

impl Operation {
    /// Every operation, in the order of their codes in the sort keys.
    pub const ALL: [Operation; 8] = [
        Operation::AllReduce,
        Operation::AllGather,
        Operation::ReduceScatter,
        Operation::Broadcast,
        Operation::Reduce,
        Operation::AllToAll,
        Operation::SendRecv,
        Operation::Other,
    ];

    /// What names are searched for, longest first, so `ReduceScatter` and `AllReduce` are not
    /// taken for `Reduce`; case-insensitive.
    const PATTERNS: [(&'static str, Operation); 9] = [
        ("reducescatter", Operation::ReduceScatter),
        ("allreduce", Operation::AllReduce),
        ("allgather", Operation::AllGather),
        ("broadcast", Operation::Broadcast),
        ("alltoall", Operation::AllToAll),
        ("sendrecv", Operation::SendRecv),
        ("reduce", Operation::Reduce),
        ("send", Operation::SendRecv),
        ("recv", Operation::SendRecv),
    ];

    /// The operation of a collective named `name`, or `None` where the name is no collective's
    /// (it matches neither `nccl` nor `rccl`, case-insensitively).
    pub fn of(name: &str) -> Option<Operation> {
        let lower = name.to_ascii_lowercase();
        if !(lower.contains("nccl") || lower.contains("rccl")) {
            return None;
        }
        Some(Operation::PATTERNS.iter().find(|(p, _)| lower.contains(p)).map_or(Operation::Other, |&(_, op)| op))
    }

    /// Its code in the sort keys.
    pub fn code(self) -> u8 {
        Operation::ALL.iter().position(|&o| o == self).expect("every operation is listed") as u8
    }

    /// The operation of code `code`.
    pub fn from_code(code: u8) -> Option<Operation> {
        Operation::ALL.get(usize::from(code)).copied()
    }

    /// Its name, as the tables print it.
    pub fn name(self) -> &'static str {
        match self {
            Operation::AllReduce => "AllReduce",
            Operation::AllGather => "AllGather",
            Operation::ReduceScatter => "ReduceScatter",
            Operation::Broadcast => "Broadcast",
            Operation::Reduce => "Reduce",
            Operation::AllToAll => "AllToAll",
            Operation::SendRecv => "SendRecv",
            Operation::Other => "Other",
        }
    }
}

/// Where a collective was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// `kernel_dispatch`: the collective's kernel.
    Kernel,
    /// `rccl_api`: the call that launched it.
    Api,
}

impl Source {
    /// Its name, as the tables print it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Kernel => "kernel",
            Source::Api => "api",
        }
    }

    /// The source of code `code` (its discriminant).
    pub fn from_code(code: u8) -> Option<Source> {
        [Source::Kernel, Source::Api].get(usize::from(code)).copied()
    }
}

/// Numbers one rank's collectives per operation, fed in order of their starts.
#[derive(Debug, Default)]
pub struct Numbering([u64; Operation::ALL.len()]);

impl Numbering {
    /// The 1-based number of this collective among the rank's of its operation.
    pub fn next(&mut self, op: Operation) -> u64 {
        let n = &mut self.0[usize::from(op.code())];
        *n += 1;
        *n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_from_names_longest_first() {
        let cases = [
            ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", Some(Operation::AllReduce)),
            ("ncclKernel_ReduceScatter_RING_SIMPLE_Sum_bf16", Some(Operation::ReduceScatter)),
            ("ncclDevKernel_Reduce_Sum_f32_RING_LL", Some(Operation::Reduce)),
            ("ncclDevKernel_AllGather_RING_LL", Some(Operation::AllGather)),
            ("ncclDevKernel_Broadcast_RING_LL", Some(Operation::Broadcast)),
            ("ncclDevKernel_SendRecv", Some(Operation::SendRecv)),
            ("ncclSend", Some(Operation::SendRecv)),
            ("rcclRecv", Some(Operation::SendRecv)),
            ("ncclAllToAll", Some(Operation::AllToAll)),
            ("NCCLDEVKERNEL_ALLREDUCE", Some(Operation::AllReduce)),
            ("ncclDevKernel_Generic", Some(Operation::Other)),
            ("ncclGroupStart", Some(Operation::Other)),
            ("gemm_allreduce_fused", None),
            ("Cijk_Ailk_Bljk", None),
        ];
        for (name, op) in cases {
            assert_eq!(Operation::of(name), op, "{name}");
        }
        for op in Operation::ALL {
            assert_eq!(Operation::from_code(op.code()), Some(op));
        }
    }
}
