//! Agents in rocpd: the `rocpd_info_agent` columns, and the `extdata` object AMD's reader
//! parses into `rocprofiler_agent_v0_t`.
//!
//! That reader takes `extdata` either as `{}` or as the complete object (it throws on a missing
//! key), so we write every key the SDK 1.0 serializer writes, ours filled in and the rest zero:
//! AMD's `agent_info.csv` then shows what we know instead of nothing.

use std::path::Path;

use serde_json::{Value, json};

/// One row of our `agent` table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentRow {
    pub agent_id: u64,
    pub node_id: u32,
    pub logical_index: i32,
    pub agent_type: String,
    pub name: String,
    pub product_name: String,
    pub vendor_name: String,
    pub model_name: String,
    pub gfx_target_version: u32,
    pub cu_count: u32,
    pub simd_count: u32,
    pub simd_per_cu: u32,
    pub wave_front_size: u32,
    pub max_waves_per_cu: u32,
    pub num_xcc: u32,
    pub lds_size_kb: u32,
    pub max_engine_clock_mhz: u32,
    pub local_mem_bytes: u64,
    pub device_id: u32,
    pub pid: u32,
}

impl AgentRow {
    /// Every row of the dataset's agent table under `dir`.
    pub fn read_all(dir: &Path) -> crate::error::Result<Vec<AgentRow>> {
        let mut rows = Vec::new();
        crate::read::batches(dir, rocprof_rs_format::Table::Agent, |b| {
            let c = |n| b.col(n);
            let (id, node, logical, kind, name) =
                (c("agent_id")?, c("node_id")?, c("logical_index")?, c("agent_type")?, c("name")?);
            let (product, vendor, model, gfx) =
                (c("product_name")?, c("vendor_name")?, c("model_name")?, c("gfx_target_version")?);
            let (cu, simd, simd_cu, wave) =
                (c("cu_count")?, c("simd_count")?, c("simd_per_cu")?, c("wave_front_size")?);
            let (waves, xcc, lds, clock) =
                (c("max_waves_per_cu")?, c("num_xcc")?, c("lds_size_kb")?, c("max_engine_clock_mhz")?);
            let (memory, device, pid) = (c("local_mem_bytes")?, c("device_id")?, c("pid")?);
            for i in 0..b.rows() {
                rows.push(AgentRow {
                    agent_id: id.u64(i),
                    node_id: node.u64(i) as u32,
                    logical_index: logical.i64(i) as i32,
                    agent_type: kind.text(i).to_owned(),
                    name: name.text(i).to_owned(),
                    product_name: product.text(i).to_owned(),
                    vendor_name: vendor.text(i).to_owned(),
                    model_name: model.text(i).to_owned(),
                    gfx_target_version: gfx.u64(i) as u32,
                    cu_count: cu.u64(i) as u32,
                    simd_count: simd.u64(i) as u32,
                    simd_per_cu: simd_cu.u64(i) as u32,
                    wave_front_size: wave.u64(i) as u32,
                    max_waves_per_cu: waves.u64(i) as u32,
                    num_xcc: xcc.u64(i) as u32,
                    lds_size_kb: lds.u64(i) as u32,
                    max_engine_clock_mhz: clock.u64(i) as u32,
                    local_mem_bytes: memory.u64(i),
                    device_id: device.u64(i) as u32,
                    pid: pid.u64(i) as u32,
                });
            }
            Ok(())
        })?;
        Ok(rows)
    }

    /// `CPU` or `GPU` for the `type` column, which allows nothing else (None writes NULL).
    pub fn column_type(&self) -> Option<&'static str> {
        match self.agent_type.as_str() {
            "CPU" => Some("CPU"),
            "GPU" => Some("GPU"),
            _ => None,
        }
    }

    /// The complete `extdata` object; `type_index` is the agent's index among its type.
    pub fn extdata(&self, type_index: i64, synthesized: bool) -> Value {
        let kind = match self.column_type() {
            Some("CPU") => 1,
            Some(_) => 2,
            None => 0,
        };
        let waves_per_simd = self.max_waves_per_cu.checked_div(self.simd_per_cu).unwrap_or(0);
        let capability: serde_json::Map<String, Value> = CAPABILITY.iter().map(|k| (k.to_string(), json!(0))).collect();
        let mut object = json!({
            "size": 0, "id": {"handle": self.agent_id}, "type": kind,
            "cpu_cores_count": 0, "simd_count": self.simd_count, "mem_banks_count": 0, "caches_count": 0,
            "io_links_count": 0, "cpu_core_id_base": 0, "simd_id_base": 0,
            "max_waves_per_simd": waves_per_simd, "lds_size_in_kb": self.lds_size_kb, "gds_size_in_kb": 0,
            "num_gws": 0, "wave_front_size": self.wave_front_size, "num_xcc": self.num_xcc,
            "cu_count": self.cu_count, "array_count": 0, "num_shader_banks": 0, "simd_arrays_per_engine": 0,
            "cu_per_simd_array": 0, "simd_per_cu": self.simd_per_cu, "max_slots_scratch_cu": 0,
            "gfx_target_version": self.gfx_target_version, "vendor_id": 0, "device_id": self.device_id,
            "location_id": 0, "domain": 0, "drm_render_minor": 0, "num_sdma_engines": 0,
            "num_sdma_xgmi_engines": 0, "num_sdma_queues_per_engine": 0, "num_cp_queues": 0,
            "max_engine_clk_ccompute": 0, "max_engine_clk_fcompute": self.max_engine_clock_mhz,
        });
        // Two literals: one would pass the json! macro's recursion limit.
        let rest = json!({
            "sdma_fw_version": {"uCodeSDMA": 0, "uCodeRes": 0},
            "fw_version": {"uCode": 0, "Major": 0, "Minor": 0, "Stepping": 0},
            "capability": capability,
            "cu_per_engine": 0, "max_waves_per_cu": self.max_waves_per_cu, "family_id": 0,
            "workgroup_max_size": 0, "grid_max_size": 0, "local_mem_size": self.local_mem_bytes,
            "hive_id": 0, "gpu_id": 0,
            "workgroup_max_dim": {"x": 0, "y": 0, "z": 0}, "grid_max_dim": {"x": 0, "y": 0, "z": 0},
            "name": self.name, "vendor_name": self.vendor_name, "product_name": self.product_name,
            "model_name": self.model_name, "node_id": self.node_id,
            "logical_node_id": self.logical_index, "logical_node_type_id": type_index,
            "runtime_visibility": {"hsa": 0, "hip": 0, "rccl": 0, "rocdecode": 0},
            "uuid": {"bytes": 0}, "mem_banks": [], "caches": [], "io_links": [],
            "gpu_index": if kind == 2 { type_index } else { -1 },
        });
        if let (Some(object), Value::Object(rest)) = (object.as_object_mut(), rest) {
            object.extend(rest);
        }
        // Only what the object cannot say: a type outside CPU/GPU, and agents we made up.
        let mut extra = serde_json::Map::new();
        if self.column_type().is_none() {
            extra.insert("agent_type".into(), json!(self.agent_type));
        }
        if synthesized {
            extra.insert("synthesized".into(), json!(true));
        }
        if !extra.is_empty() {
            object[super::EXTRA] = Value::Object(extra);
        }
        object
    }

    /// The row from `rocpd_info_agent`'s columns and `extdata`: the complete object where
    /// there is one (ours or rocprofv3's), the columns alone otherwise, with the node id
    /// standing in for the SDK handle.
    pub fn from_rocpd(columns: Columns, extdata: &Value, pid: u32) -> AgentRow {
        let u = |key: &str| extdata.get(key).and_then(Value::as_u64).unwrap_or(0);
        let u32_ = |key: &str| u(key) as u32;
        let extra = extdata.get(super::EXTRA);
        let agent_type = extra
            .and_then(|e| e.get("agent_type"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or(columns.agent_type)
            .unwrap_or_default();
        AgentRow {
            agent_id: extdata.pointer("/id/handle").and_then(Value::as_u64).unwrap_or(columns.node_id as u64),
            node_id: columns.node_id,
            logical_index: columns.logical_index,
            agent_type,
            name: columns.name,
            product_name: columns.product_name,
            vendor_name: columns.vendor_name,
            model_name: columns.model_name,
            gfx_target_version: u32_("gfx_target_version"),
            cu_count: u32_("cu_count"),
            simd_count: u32_("simd_count"),
            simd_per_cu: u32_("simd_per_cu"),
            wave_front_size: u32_("wave_front_size"),
            max_waves_per_cu: u32_("max_waves_per_cu"),
            num_xcc: u32_("num_xcc"),
            lds_size_kb: u32_("lds_size_in_kb"),
            max_engine_clock_mhz: u32_("max_engine_clk_fcompute"),
            local_mem_bytes: u("local_mem_size"),
            device_id: u32_("device_id"),
            pid,
        }
    }
}

/// What `rocpd_info_agent` holds in columns.
#[derive(Debug, Default)]
pub struct Columns {
    pub node_id: u32,
    pub logical_index: i32,
    pub agent_type: Option<String>,
    pub name: String,
    pub product_name: String,
    pub vendor_name: String,
    pub model_name: String,
}

/// `hsa_capability` as the SDK 1.0 serializer names its bits.
const CAPABILITY: [&str; 23] = [
    "HotPluggable",
    "HSAMMUPresent",
    "SharedWithGraphics",
    "QueueSizePowerOfTwo",
    "QueueSize32bit",
    "QueueIdleEvent",
    "VALimit",
    "WatchPointsSupported",
    "WatchPointsTotalBits",
    "DoorbellType",
    "AQLQueueDoubleMap",
    "DebugTrapSupported",
    "WaveLaunchTrapOverrideSupported",
    "WaveLaunchModeSupported",
    "PreciseMemoryOperationsSupported",
    "DEPRECATED_SRAM_EDCSupport",
    "Mem_EDCSupport",
    "RASEventNotify",
    "ASICRevision",
    "SRAM_EDCSupport",
    "SVMAPISupported",
    "CoherentHostAccess",
    "DebugSupportedFirmware",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_survives_its_rocpd_row() {
        let row = AgentRow {
            agent_id: 0x5555_0001,
            node_id: 2,
            logical_index: 1,
            agent_type: "GPU".into(),
            name: "gfx942".into(),
            product_name: "AMD Instinct MI300X".into(),
            vendor_name: "AMD".into(),
            model_name: "ig".into(),
            gfx_target_version: 90402,
            cu_count: 304,
            simd_count: 1216,
            simd_per_cu: 4,
            wave_front_size: 64,
            max_waves_per_cu: 32,
            num_xcc: 8,
            lds_size_kb: 64,
            max_engine_clock_mhz: 2100,
            local_mem_bytes: 192 << 30,
            device_id: 0x74a1,
            pid: 7,
        };
        let extdata = row.extdata(0, false);
        assert_eq!(extdata["max_waves_per_simd"], 8);
        assert!(extdata.get(crate::rocpd::EXTRA).is_none(), "a GPU needs nothing of ours");
        let columns = Columns {
            node_id: 2,
            logical_index: 1,
            agent_type: Some("GPU".into()),
            name: row.name.clone(),
            product_name: row.product_name.clone(),
            vendor_name: row.vendor_name.clone(),
            model_name: row.model_name.clone(),
        };
        assert_eq!(AgentRow::from_rocpd(columns, &extdata, 7), row);
    }

    #[test]
    fn an_agent_of_unknown_type_keeps_it_and_rocpd_sees_null() {
        let row = AgentRow { agent_id: 3, node_id: 3, agent_type: "UNKNOWN".into(), ..AgentRow::default() };
        assert_eq!(row.column_type(), None);
        let extdata = row.extdata(0, true);
        let back = AgentRow::from_rocpd(Columns { node_id: 3, ..Columns::default() }, &extdata, 0);
        assert_eq!(back.agent_type, "UNKNOWN");
        assert_eq!(extdata[crate::rocpd::EXTRA]["synthesized"], true);
    }
}
