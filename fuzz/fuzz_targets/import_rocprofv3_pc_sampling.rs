//! Any bytes as one of rocprofv3's PC sampling CSV files (the first byte picks host-trap or
//! stochastic), beside a kernel trace whose dispatches they may name, through the whole
//! import: it may refuse them, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 2] = ["pc_sampling_host_trap.csv", "pc_sampling_stochastic.csv"];

/// One dispatch (id 1) of a kernel, so samples can find their kernel.
const KERNEL_TRACE: &str = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"
\"KERNEL_DISPATCH\",\"Agent 0\",1,0,7,1,3,\"k\",1,100,200,0,0,8,0,16,64,1,1,1024,1,1
";

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let dir = std::env::temp_dir().join(format!("rocprof-rs-fuzz-pc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::write(input.join("1_kernel_trace.csv"), KERNEL_TRACE).unwrap();
    std::fs::write(input.join(format!("1_{}", NAMES[pick as usize % NAMES.len()])), body).unwrap();
    if rocprof_rs_analysis::import::import(&[input], &dir.join("out"), "fuzz").is_ok() {
        let _ = rocprof_rs_analysis::hotspots::read_pc_samples(&dir.join("out"));
    }
    let _ = std::fs::remove_dir_all(&dir);
});
