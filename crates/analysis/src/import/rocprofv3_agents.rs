//! rocprofv3's `agent_info.csv`: one row per HSA agent, CPUs and GPUs, in the same 53 columns
//! from ROCm 6.2 to 7.x. Rows become `agent` rows whose id is the logical node id, the id the
//! other files' `Agent_Id` gives (bare before 7.0, `Agent N` from it).

use super::csv_table::Table;
use super::sink::Sink;
use crate::error::Result;
use crate::rocpd::agent::AgentRow;

/// Adds the agent of the row in hand.
pub(super) fn agent(t: &Table, sink: &mut Sink) -> Result<()> {
    let number = |column: &str| -> Result<u32> {
        let value = t.u64(column)?;
        u32::try_from(value).map_err(|_| t.error(column, format!("{value} is too large (at most {})", u32::MAX)))
    };
    let text = |column: &str| -> Result<String> { Ok(t.text(column)?.trim().to_owned()) };
    let logical = number("Logical_Node_Id")?;
    let row = AgentRow {
        agent_id: u64::from(logical),
        node_id: number("Node_Id")?,
        logical_index: i32::try_from(logical).unwrap_or(i32::MAX),
        agent_type: text("Agent_Type")?,
        name: text("Name")?,
        product_name: text("Product_Name")?,
        vendor_name: text("Vendor_Name")?,
        model_name: text("Model_Name")?,
        gfx_target_version: number("Gfx_Target_Version")?,
        cu_count: number("Cu_Count")?,
        simd_count: number("Simd_Count")?,
        simd_per_cu: number("Simd_Per_Cu")?,
        wave_front_size: number("Wave_Front_Size")?,
        max_waves_per_cu: number("Max_Waves_Per_Cu")?,
        num_xcc: number("Num_Xcc")?,
        lds_size_kb: number("Lds_Size_In_Kb")?,
        max_engine_clock_mhz: number("Max_Engine_Clk_Fcompute")?,
        local_mem_bytes: t.u64("Local_Mem_Size")?,
        device_id: number("Device_Id")?,
        pid: t.pid()?,
    };
    sink.push_agent(&row);
    Ok(())
}
