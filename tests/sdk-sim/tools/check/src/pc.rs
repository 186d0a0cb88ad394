//! PC sampling for the check tool, with `ROCPROF_SIM_CHECK_PC_SAMPLING=METHOD:INTERVAL`
//! (`host_trap:1` in microseconds, `stochastic:65536` in cycles): every agent's configurations
//! are queried and written as comments (`# pc_query agent=gfx90a status=0 configs=host_trap/3/1/1000000/0`),
//! the service is configured on each GPU offering the method, in a context and buffer of its own
//! (1.0 keeps PC sampling out of a counting context), and every sample received is written as a
//! row of [`rocprof_sim::pc_truth`] to the output's `.pc_samples.csv`.
//!
//! With `ROCPROF_SIM_CHECK_PC_PROBE=1` it first makes each kind of invalid configure call on each
//! GPU and writes the status as `# pc_probe agent=gfx942 case=NAME status=N`.

use std::ffi::{CStr, c_void};
use std::io::Write;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use rocprof_sim::pc_model::{HwId, Issue, Sample};
use rocprof_sim::pc_truth;
use rocprofiler_sdk_sys::sdk::SdkApi;
use rocprofiler_sdk_sys::*;

use crate::{check, guarded, write};

struct PcOut {
    file: Mutex<std::io::BufWriter<std::fs::File>>,
    buffer: rocprofiler_buffer_id_t,
}

static OUT: OnceLock<PcOut> = OnceLock::new();

fn method_name(method: u32) -> &'static str {
    match method {
        ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP => "host_trap",
        ROCPROFILER_PC_SAMPLING_METHOD_STOCHASTIC => "stochastic",
        _ => "unknown",
    }
}

/// Every agent: its id, type and name.
fn agents(api: &SdkApi) -> Vec<(rocprofiler_agent_id_t, rocprofiler_agent_type_t, String)> {
    unsafe extern "C" fn collect(
        _version: rocprofiler_agent_version_t,
        agents: *mut *const c_void,
        count: usize,
        data: *mut c_void,
    ) -> rocprofiler_status_t {
        guarded("collect agents", ROCPROFILER_STATUS_ERROR, || {
            // SAFETY: `data` is the Vec passed below; the SDK passes `count` v0 agent pointers.
            let (out, agents) = unsafe {
                (
                    &mut *data.cast::<Vec<(rocprofiler_agent_id_t, rocprofiler_agent_type_t, String)>>(),
                    std::slice::from_raw_parts(agents, count),
                )
            };
            for &agent in agents {
                // SAFETY: each pointer is a live `rocprofiler_agent_t` of the size we asked for.
                let agent = unsafe { &*agent.cast::<rocprofiler_agent_t>() };
                // SAFETY: agent names are NUL-terminated strings the SDK owns.
                let name = unsafe { CStr::from_ptr(agent.name) }.to_string_lossy().replace(' ', "_");
                out.push((agent.id, agent.type_, name));
            }
            ROCPROFILER_STATUS_SUCCESS
        })
    }
    let mut out = Vec::new();
    // SAFETY: a valid callback and user data that outlives the call.
    let status = unsafe {
        (api.rocprofiler_query_available_agents)(
            ROCPROFILER_AGENT_INFO_VERSION_0,
            Some(collect),
            std::mem::size_of::<rocprofiler_agent_t>(),
            (&mut out as *mut Vec<(rocprofiler_agent_id_t, rocprofiler_agent_type_t, String)>).cast(),
        )
    };
    check("query_available_agents", status);
    out
}

/// One agent's answer to the configuration query.
fn query(
    api: &SdkApi,
    agent: rocprofiler_agent_id_t,
) -> (rocprofiler_status_t, Vec<rocprofiler_pc_sampling_configuration_t>) {
    unsafe extern "C" fn collect(
        configs: *const rocprofiler_pc_sampling_configuration_t,
        count: usize,
        data: *mut c_void,
    ) -> rocprofiler_status_t {
        guarded("collect pc sampling configurations", ROCPROFILER_STATUS_ERROR, || {
            // SAFETY: `data` is the Vec passed below; the SDK passes `count` configurations.
            let (out, configs) = unsafe {
                (
                    &mut *data.cast::<Vec<rocprofiler_pc_sampling_configuration_t>>(),
                    std::slice::from_raw_parts(configs, count),
                )
            };
            out.extend_from_slice(configs);
            ROCPROFILER_STATUS_SUCCESS
        })
    }
    let mut configs = Vec::new();
    // SAFETY: a valid callback and user data that outlives the call.
    let status = unsafe {
        (api.rocprofiler_query_pc_sampling_agent_configurations)(
            agent,
            Some(collect),
            (&mut configs as *mut Vec<rocprofiler_pc_sampling_configuration_t>).cast(),
        )
    };
    (status, configs)
}

/// Parses `METHOD:INTERVAL`.
fn parse(spec: &str) -> Option<(rocprofiler_pc_sampling_method_t, rocprofiler_pc_sampling_unit_t, u64)> {
    let (method, interval) = spec.split_once(':')?;
    let interval = interval.parse().ok()?;
    match method {
        "host_trap" => Some((ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP, ROCPROFILER_PC_SAMPLING_UNIT_TIME, interval)),
        "stochastic" => {
            Some((ROCPROFILER_PC_SAMPLING_METHOD_STOCHASTIC, ROCPROFILER_PC_SAMPLING_UNIT_CYCLES, interval))
        }
        _ => None,
    }
}

/// Sets PC sampling up as `spec` asks; rows go beside `out_path`.
pub fn configure(
    api: &SdkApi,
    spec: &str,
    out_path: &Path,
    size: usize,
    policy: rocprofiler_buffer_policy_t,
    probe: bool,
) {
    let Some((method, unit, interval)) = parse(spec) else {
        write(&format!("# check-tool: ROCPROF_SIM_CHECK_PC_SAMPLING={spec:?} is not METHOD:INTERVAL\n"));
        return;
    };
    let path = pc_truth::path_beside(out_path);
    let file = match std::fs::File::create(&path) {
        Ok(f) => f,
        Err(e) => {
            write(&format!("# check-tool: cannot create {}: {e}\n", path.display()));
            return;
        }
    };
    let (ctx, buffer) = crate::buffered_context(api, " (pc sampling)", size, policy, Some(on_buffer));
    let mut file = std::io::BufWriter::with_capacity(1 << 20, file);
    let _ = file.write_all(pc_truth::file_head().as_bytes());
    let _ = OUT.set(PcOut { file: Mutex::new(file), buffer });
    for (agent, type_, name) in agents(api) {
        let (status, configs) = query(api, agent);
        let listed: Vec<String> = configs
            .iter()
            .map(|c| format!("{}/{}/{}/{}/{}", method_name(c.method), c.unit, c.min_interval, c.max_interval, c.flags))
            .collect();
        let kind = if type_ == ROCPROFILER_AGENT_TYPE_GPU { "gpu" } else { "cpu" };
        write(&format!("# pc_query agent={name} type={kind} status={status} configs={}\n", listed.join(";")));
        if !configs.iter().any(|c| c.method == method) {
            continue;
        }
        if probe {
            probes(api, ctx, agent, &name, buffer, &configs);
        }
        // SAFETY: configuring our own context and buffer during initialize.
        let status =
            unsafe { (api.rocprofiler_configure_pc_sampling_service)(ctx, agent, method, unit, interval, buffer, 0) };
        write(&format!("# pc_configure agent={name} status={status}\n"));
        if probe {
            // SAFETY: as above; the SDK must refuse a second configuration of the agent.
            let again = unsafe {
                (api.rocprofiler_configure_pc_sampling_service)(ctx, agent, method, unit, interval, buffer, 0)
            };
            write(&format!("# pc_probe agent={name} case=second_configuration status={again}\n"));
            let mut other = rocprofiler_context_id_t { handle: 0 };
            // SAFETY: as above, from another context of the process.
            let status = unsafe {
                check("create_context (probe)", (api.rocprofiler_create_context)(&mut other));
                (api.rocprofiler_configure_pc_sampling_service)(other, agent, method, unit, interval, buffer, 0)
            };
            write(&format!("# pc_probe agent={name} case=second_context status={status}\n"));
        }
    }
    // SAFETY: our own context, during initialize.
    check("start_context (pc sampling)", unsafe { (api.rocprofiler_start_context)(ctx) });
}

/// The invalid configure calls, each of which 1.0 refuses with its own status.
fn probes(
    api: &SdkApi,
    ctx: rocprofiler_context_id_t,
    agent: rocprofiler_agent_id_t,
    name: &str,
    buffer: rocprofiler_buffer_id_t,
    configs: &[rocprofiler_pc_sampling_configuration_t],
) {
    let first = configs[0];
    let other_unit = if first.unit == ROCPROFILER_PC_SAMPLING_UNIT_TIME {
        ROCPROFILER_PC_SAMPLING_UNIT_CYCLES
    } else {
        ROCPROFILER_PC_SAMPLING_UNIT_TIME
    };
    let missing_method = [ROCPROFILER_PC_SAMPLING_METHOD_STOCHASTIC, ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP]
        .into_iter()
        .find(|m| !configs.iter().any(|c| c.method == *m));
    let mut cases: Vec<(&str, rocprofiler_context_id_t, u32, u32, u64, rocprofiler_buffer_id_t)> = vec![
        ("unit_not_offered", ctx, first.method, other_unit, first.min_interval as u64, buffer),
        ("below_min_interval", ctx, first.method, first.unit, first.min_interval as u64 - 1, buffer),
        ("above_max_interval", ctx, first.method, first.unit, first.max_interval as u64 + 1, buffer),
        ("method_none", ctx, ROCPROFILER_PC_SAMPLING_METHOD_NONE, first.unit, first.min_interval as u64, buffer),
        (
            "unknown_buffer",
            ctx,
            first.method,
            first.unit,
            first.min_interval as u64,
            rocprofiler_buffer_id_t { handle: u64::MAX },
        ),
        (
            "unknown_context",
            rocprofiler_context_id_t { handle: u64::MAX },
            first.method,
            first.unit,
            first.min_interval as u64,
            buffer,
        ),
    ];
    if let Some(method) = missing_method {
        cases.push(("method_not_offered", ctx, method, first.unit, first.min_interval as u64, buffer));
    }
    if let Some(pow2) =
        configs.iter().find(|c| c.flags & u64::from(ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_INTERVAL_POW2) != 0)
    {
        cases.push(("not_a_power_of_two", ctx, pow2.method, pow2.unit, pow2.min_interval as u64 + 1, buffer));
    }
    for (case, ctx, method, unit, interval, buffer) in cases {
        // SAFETY: configure calls during initialize with plain arguments.
        let status =
            unsafe { (api.rocprofiler_configure_pc_sampling_service)(ctx, agent, method, unit, interval, buffer, 0) };
        write(&format!("# pc_probe agent={name} case={case} status={status}\n"));
    }
    // SAFETY: as above, for an agent handle no agent has.
    let status = unsafe {
        (api.rocprofiler_configure_pc_sampling_service)(
            ctx,
            rocprofiler_agent_id_t { handle: 1 },
            first.method,
            first.unit,
            first.min_interval as u64,
            buffer,
            0,
        )
    };
    write(&format!("# pc_probe agent={name} case=unknown_agent status={status}\n"));
}

fn hw_id(id: &rocprofiler_pc_sampling_hw_id_v0_t) -> HwId {
    HwId {
        chiplet: id.chiplet(),
        wave_id: id.wave_id(),
        simd_id: id.simd_id(),
        pipe_id: id.pipe_id(),
        cu_or_wgp_id: id.cu_or_wgp_id(),
        shader_array_id: id.shader_array_id(),
        shader_engine_id: id.shader_engine_id(),
        workgroup_id: id.workgroup_id(),
        vm_id: id.vm_id(),
        queue_id: id.queue_id(),
        microengine_id: id.microengine_id(),
    }
}

/// The sample a record carries, in the model's terms.
///
/// # Safety
/// `header` must be a live PC sampling record from the SDK.
unsafe fn sample_of(header: &rocprofiler_record_header_t) -> Option<Sample> {
    // SAFETY: every header's first union member is the category/kind pair.
    let kind = unsafe { header.__bindgen_anon_1.__bindgen_anon_1.kind };
    match kind {
        ROCPROFILER_PC_SAMPLING_RECORD_HOST_TRAP_V0_SAMPLE => {
            // SAFETY: the kind names the payload type.
            let r = unsafe { &*header.payload.cast::<rocprofiler_pc_sampling_record_host_trap_v0_t>() };
            Some(Sample {
                dispatch_id: r.dispatch_id,
                correlation_id: r.correlation_id.internal,
                timestamp: r.timestamp,
                code_object_id: r.pc.code_object_id,
                code_object_offset: r.pc.code_object_offset,
                instruction: 0,
                hw_id: hw_id(&r.hw_id),
                workgroup: [r.workgroup_id.x, r.workgroup_id.y, r.workgroup_id.z],
                wave_in_group: r.wave_in_group() as u8,
                exec_mask: r.exec_mask,
                issue: None,
            })
        }
        ROCPROFILER_PC_SAMPLING_RECORD_STOCHASTIC_V0_SAMPLE => {
            // SAFETY: the kind names the payload type.
            let r = unsafe { &*header.payload.cast::<rocprofiler_pc_sampling_record_stochastic_v0_t>() };
            Some(Sample {
                dispatch_id: r.dispatch_id,
                correlation_id: r.correlation_id.internal,
                timestamp: r.timestamp,
                code_object_id: r.pc.code_object_id,
                code_object_offset: r.pc.code_object_offset,
                instruction: 0,
                hw_id: hw_id(&r.hw_id),
                workgroup: [r.workgroup_id.x, r.workgroup_id.y, r.workgroup_id.z],
                wave_in_group: r.wave_in_group,
                exec_mask: r.exec_mask,
                issue: Some(Issue {
                    wave_issued: r.wave_issued() != 0,
                    inst_type: u32::from(r.inst_type()),
                    reason_not_issued: r.snapshot.reason_not_issued(),
                    wave_count: r.wave_count,
                }),
            })
        }
        _ => None,
    }
}

extern "C" fn on_buffer(
    _ctx: rocprofiler_context_id_t,
    _buffer: rocprofiler_buffer_id_t,
    headers: *mut *mut rocprofiler_record_header_t,
    count: usize,
    _data: *mut c_void,
    _drop_count: u64,
) {
    guarded("pc on_buffer", (), || {
        let mut text = String::with_capacity(count * 160);
        // SAFETY: the SDK passes `count` header pointers, live during this callback.
        let headers = unsafe { std::slice::from_raw_parts(headers, count) };
        for &header in headers {
            // SAFETY: live during this callback.
            let h = unsafe { &*header };
            // SAFETY: every header's first union member is the category/kind pair.
            let category = unsafe { h.__bindgen_anon_1.__bindgen_anon_1.category };
            if category != ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING {
                text.push_str("# check-tool: a record of another category in the PC sampling buffer\n");
                continue;
            }
            // SAFETY: a PC sampling record, live during this callback.
            match unsafe { sample_of(h) } {
                Some(sample) => pc_truth::sample_row(&sample, &mut text),
                None => text.push_str("# check-tool: an unknown PC sampling record kind\n"),
            }
        }
        if let Some(out) = OUT.get() {
            let _ = out.file.lock().unwrap().write_all(text.as_bytes());
        }
    })
}

/// At finalization: flushes the buffer and ends the file with the simulator's full drop count.
pub fn finish(api: &SdkApi) {
    let Some(out) = OUT.get() else { return };
    // SAFETY: flushing our own buffer during finalize, as the SDK allows.
    check("flush_buffer (pc sampling)", unsafe { (api.rocprofiler_flush_buffer)(out.buffer) });
    let mut dropped = 0u64;
    if let Ok(sim) = rocprof_sim::runtime_abi::SimRuntimeApi::in_process() {
        // SAFETY: simulator query with a valid output pointer.
        check("sim buffer drop count", unsafe { (sim.rocprofiler_sim_buffer_drop_count)(out.buffer, &mut dropped) });
    }
    let mut text = String::new();
    pc_truth::dropped_row(dropped, &mut text);
    let mut file = out.file.lock().unwrap();
    let _ = file.write_all(text.as_bytes());
    let _ = file.flush();
}
