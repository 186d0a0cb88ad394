//! rocprofv3's `agent_info.csv`: one row per agent, CPUs and GPUs, in node order, in the 53
//! columns `generateCSV.cpp` has written unchanged from ROCm 6.2 to 7.x (every header name
//! quoted, the type and the four names quoted strings, everything else a bare integer).
//!
//! The dataset's `agent` table holds part of `rocprofiler_agent_t`; the rest is written as
//! rocprofv3 writes a field the SDK left unset, 0 (or `""`). What is derived:
//! - `Logical_Node_Id` is the agent's rank by node id ([`super::agents`]);
//! - `Cpu_Cores_Count` of a CPU is its `cu_count`: the SDK sets a CPU's `cu_count` to its
//!   `cpu_cores_count` (`agent.cpp`), and the dataset keeps only the former;
//! - `Max_Waves_Per_Simd` is `max_waves_per_cu / simd_per_cu`: the SDK computes
//!   `max_waves_per_cu` as their product.
//!
//! Not recorded, so 0: `Cpu_Core_Id_Base`, `Simd_Id_Base`, `Gds_Size_In_Kb`, `Num_Gws`,
//! `Array_Count`, `Num_Shader_Banks`, `Simd_Arrays_Per_Engine`, `Cu_Per_Simd_Array`,
//! `Max_Slots_Scratch_Cu`, `Vendor_Id`, `Location_Id`, `Domain`, `Drm_Render_Minor`, the four
//! SDMA and CP queue counts, `Max_Engine_Clk_Ccompute` (a CPU's clock), the three firmware and
//! capability words, `Cu_Per_Engine`, `Family_Id`, `Workgroup_Max_Size`, `Grid_Max_Size`,
//! `Hive_Id`, `Gpu_Id` and the six maximum dimensions.

use std::fmt::Write as _;

use super::agents::Agent;
use crate::csv_field::quoted;

/// The header, as rocprofv3 writes it.
pub(crate) const HEADER: &str = "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cpu_Cores_Count\",\"Simd_Count\",\"Cpu_Core_Id_Base\",\"Simd_Id_Base\",\"Max_Waves_Per_Simd\",\"Lds_Size_In_Kb\",\"Gds_Size_In_Kb\",\"Num_Gws\",\"Wave_Front_Size\",\"Num_Xcc\",\"Cu_Count\",\"Array_Count\",\"Num_Shader_Banks\",\"Simd_Arrays_Per_Engine\",\"Cu_Per_Simd_Array\",\"Simd_Per_Cu\",\"Max_Slots_Scratch_Cu\",\"Gfx_Target_Version\",\"Vendor_Id\",\"Device_Id\",\"Location_Id\",\"Domain\",\"Drm_Render_Minor\",\"Num_Sdma_Engines\",\"Num_Sdma_Xgmi_Engines\",\"Num_Sdma_Queues_Per_Engine\",\"Num_Cp_Queues\",\"Max_Engine_Clk_Ccompute\",\"Max_Engine_Clk_Fcompute\",\"Sdma_Fw_Version\",\"Fw_Version\",\"Capability\",\"Cu_Per_Engine\",\"Max_Waves_Per_Cu\",\"Family_Id\",\"Workgroup_Max_Size\",\"Grid_Max_Size\",\"Local_Mem_Size\",\"Hive_Id\",\"Gpu_Id\",\"Workgroup_Max_Dim_X\",\"Workgroup_Max_Dim_Y\",\"Workgroup_Max_Dim_Z\",\"Grid_Max_Dim_X\",\"Grid_Max_Dim_Y\",\"Grid_Max_Dim_Z\",\"Name\",\"Vendor_Name\",\"Product_Name\",\"Model_Name\"";

/// `Agent_Type` as rocprofv3 writes it: anything but a CPU or a GPU is `UNK`.
pub(crate) fn agent_type(kind: &str) -> &'static str {
    match kind {
        "CPU" => "CPU",
        "GPU" => "GPU",
        _ => "UNK",
    }
}

/// The agent's row.
pub(crate) fn row(agent: &Agent) -> String {
    let a = &agent.row;
    let kind = agent_type(&a.agent_type);
    let cpu_cores = if kind == "CPU" { a.cu_count } else { 0 };
    let waves_per_simd = a.max_waves_per_cu.checked_div(a.simd_per_cu).unwrap_or(0);
    let mut line =
        format!("{},{},{},{cpu_cores},{},0,0,{waves_per_simd},", a.node_id, agent.logical, quoted(kind), a.simd_count);
    // Lds_Size_In_Kb to Gfx_Target_Version.
    let _ = write!(
        line,
        "{},0,0,{},{},{},0,0,0,0,{},0,{},",
        a.lds_size_kb, a.wave_front_size, a.num_xcc, a.cu_count, a.simd_per_cu, a.gfx_target_version
    );
    // Vendor_Id to Max_Waves_Per_Cu.
    let _ =
        write!(line, "0,{},0,0,0,0,0,0,0,0,{},0,0,0,0,{},", a.device_id, a.max_engine_clock_mhz, a.max_waves_per_cu);
    // Family_Id to Grid_Max_Dim_Z.
    let _ = write!(line, "0,0,0,{},0,0,0,0,0,0,0,0,", a.local_mem_bytes);
    let _ = write!(
        line,
        "{},{},{},{}",
        quoted(&a.name),
        quoted(&a.vendor_name),
        quoted(&a.product_name),
        quoted(&a.model_name)
    );
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rocpd::agent::AgentRow;

    /// rocprofv3's documentation sample (using-rocprofv3.rst), a CPU and a Vega GPU, with the
    /// columns the dataset does not keep set to 0.
    #[test]
    fn a_row_has_rocprofv3s_53_columns_in_its_order() {
        assert_eq!(HEADER.split(',').count(), 53);
        let gpu = AgentRow {
            node_id: 1,
            agent_type: "GPU".into(),
            simd_count: 256,
            lds_size_kb: 64,
            wave_front_size: 64,
            num_xcc: 1,
            cu_count: 64,
            simd_per_cu: 4,
            gfx_target_version: 90000,
            device_id: 26751,
            max_engine_clock_mhz: 1630,
            max_waves_per_cu: 40,
            local_mem_bytes: 0,
            name: "gfx900".into(),
            vendor_name: "AMD".into(),
            product_name: "Radeon RX Vega".into(),
            model_name: "vega10".into(),
            ..AgentRow::default()
        };
        let line = row(&Agent { row: gpu, logical: 1, described: true });
        assert_eq!(
            line,
            "1,1,\"GPU\",0,256,0,0,10,64,0,0,64,1,64,0,0,0,0,4,0,90000,0,26751,0,0,0,0,0,0,0,0,1630,0,0,0,0,40,0,0,0,0,0,0,0,0,0,0,0,0,\"gfx900\",\"AMD\",\"Radeon RX Vega\",\"vega10\""
        );
        let cpu = AgentRow {
            agent_type: "CPU".into(),
            cu_count: 24,
            num_xcc: 1,
            name: "AMD Ryzen 9 3900X 12-Core Processor".into(),
            vendor_name: "CPU".into(),
            product_name: "AMD Ryzen 9 3900X 12-Core Processor".into(),
            ..AgentRow::default()
        };
        let line = row(&Agent { row: cpu, logical: 0, described: true });
        assert!(line.starts_with("0,0,\"CPU\",24,0,0,0,0,0,0,0,0,1,24,"), "{line}");
        assert!(line.ends_with(",\"AMD Ryzen 9 3900X 12-Core Processor\",\"\""), "{line}");
        assert_eq!(line.split(',').count(), 53);
    }
}
