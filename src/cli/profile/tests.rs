//! Every madengine profile in tests/fixtures, mapped exactly, and the refusals of what is not a
//! profile.

use rocprof_rs::config::{Config, Placeholders};

use super::*;

const LIGHTWEIGHT: &str = include_str!("../../../tests/fixtures/madengine/rocprofv3_lightweight.json");
const COMPUTE_BOUND: &str = include_str!("../../../tests/fixtures/madengine/rocprofv3_compute_bound.json");
const MEMORY_BOUND: &str = include_str!("../../../tests/fixtures/madengine/rocprofv3_memory_bound.json");
const MULTI_GPU: &str = include_str!("../../../tests/fixtures/madengine/rocprofv3_multi_gpu.json");
const COMPREHENSIVE: &str = include_str!("../../../tests/fixtures/madengine/rocprofv3_comprehensive.json");
const MULTI_NODE: &str = include_str!("../../../tests/fixtures/madengine/rocprofv3_multi_node.json");

const HIP_COMPILER: &str = "the HIP compiler API of --hip-trace (rocprof-rs traces the HIP runtime API only)";
/// madengine's power and VRAM samplers at 0.1 s, as the device sampler.
const SAMPLE: (&str, &str) = ("ROCPROF_RS_DEVICE_SAMPLE_MS", "100");
const SLURM: &str = "slurm (rocprof-rs submits no jobs; run it inside the allocation: srun rocprof-rs run -- APP)";
const OUT: (&str, &str) = ("ROCPROF_RS_OUTPUT_DIR", "./rocprof_output");

fn mapped(text: &str) -> Profile {
    let profile = parse(text).expect("the profile maps");
    // Whatever a profile maps to must be a configuration the tool accepts.
    let placeholders = Placeholders { pid: 1, ppid: 1, hostname: "h".into(), rank: "0".into(), timestamp: "t".into() };
    if let Err(e) = Config::from_vars(&profile.vars, &placeholders) {
        panic!("{:?} is refused: {e}", profile.vars);
    }
    profile
}

fn check(text: &str, vars: &[(&str, &str)], unhonoured: &[&str]) {
    let profile = mapped(text);
    let expected: BTreeMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    assert_eq!(profile.vars, expected);
    assert_eq!(profile.unhonoured, unhonoured);
}

#[test]
fn lightweight_traces_hip_and_kernels() {
    check(LIGHTWEIGHT, &[("ROCPROF_RS_DOMAINS", "kernel,hip_api"), OUT], &[HIP_COMPILER]);
}

#[test]
fn compute_bound_collects_its_counters_as_the_preset_and_samples_power() {
    check(
        COMPUTE_BOUND,
        &[("ROCPROF_RS_COUNTER_PRESET", "compute_bound"), SAMPLE, ("ROCPROF_RS_DOMAINS", "kernel,hip_api"), OUT],
        &[HIP_COMPILER],
    );
}

#[test]
fn memory_bound_adds_copies_and_allocations() {
    check(
        MEMORY_BOUND,
        &[
            ("ROCPROF_RS_COUNTER_PRESET", "memory_bound"),
            SAMPLE,
            ("ROCPROF_RS_DOMAINS", "kernel,memory_copy,hip_api,memory_allocation"),
            OUT,
        ],
        &[HIP_COMPILER],
    );
}

#[test]
fn multi_gpu_traces_communication_and_keeps_the_environment() {
    check(
        MULTI_GPU,
        &[
            ("OMP_NUM_THREADS", "8"),
            ("RCCL_DEBUG", "INFO"),
            SAMPLE,
            ("ROCPROF_RS_DOMAINS", "kernel,memory_copy,hip_api,hsa_api,rccl_api,scratch_memory"),
            OUT,
        ],
        &[
            HIP_COMPILER,
            SLURM,
            "distributed launcher torchrun (rocprof-rs launches nothing itself; \
             run rocprof-rs run -- torchrun ... and every worker inherits the tool)",
        ],
    );
}

#[test]
fn comprehensive_traces_everything_and_names_all_it_cannot_do() {
    check(
        COMPREHENSIVE,
        &[
            ("HSA_ENABLE_SDMA", "0"),
            ("RCCL_DEBUG", "INFO"),
            ("ROCPROF_RS_COUNTER_PRESET", "full_profile"),
            SAMPLE,
            (
                "ROCPROF_RS_DOMAINS",
                "kernel,memory_copy,hip_api,hsa_api,rccl_api,marker,scratch_memory,memory_allocation",
            ),
            OUT,
        ],
        &[
            HIP_COMPILER,
            "tool miopen_trace (library call logging collected by madengine's scripts; \
             rocprof-rs does not trace library calls)",
            "tool rocblas_trace (library call logging collected by madengine's scripts; \
             rocprof-rs does not trace library calls)",
        ],
    );
}

#[test]
fn multi_node_is_multi_gpu_on_every_node() {
    check(
        MULTI_NODE,
        &[
            ("NCCL_DEBUG", "INFO"),
            ("NCCL_IB_DISABLE", "0"),
            ("NCCL_SOCKET_IFNAME", "eth0"),
            ("OMP_NUM_THREADS", "8"),
            ("RCCL_DEBUG", "INFO"),
            SAMPLE,
            ("ROCPROF_RS_DOMAINS", "kernel,memory_copy,hip_api,hsa_api,rccl_api,scratch_memory"),
            OUT,
        ],
        &[
            HIP_COMPILER,
            SLURM,
            "distributed launcher torchrun (rocprof-rs launches nothing itself; \
             on each of the 2 nodes run rocprof-rs run -- torchrun ... and every worker inherits the tool)",
        ],
    );
}

#[test]
fn every_rocprofv3_tool_maps_to_a_valid_configuration() {
    for tool in ROCPROFV3_TOOLS {
        let profile = mapped(&format!(r#"{{"tools": [{{"name": "{}"}}]}}"#, tool.name));
        assert!(profile.vars.contains_key("ROCPROF_RS_DOMAINS"), "{}", tool.name);
    }
}

#[test]
fn a_custom_cmd_replaces_the_tools_options_and_adds_to_its_environment() {
    let profile = mapped(concat!(
        r#"{"tools": [{"name": "rocprofv3_communication", "#,
        r#""cmd": "bash ../scripts/common/tools/rocprof_wrapper.sh --kernel-trace --kernel-include-regex gemm "#,
        r#"--kernel-iteration-range [1-3] [7] --truncate-kernels -o stem -d ./my_traces --", "#,
        r#""env_vars": {"HSA_ENABLE_SDMA": "0"}}]}"#,
    ));
    let expected: BTreeMap<String, String> = [
        ("HSA_ENABLE_SDMA", "0"),
        ("RCCL_DEBUG", "INFO"),
        ("ROCPROF_RS_DOMAINS", "kernel"),
        ("ROCPROF_RS_KERNEL_INCLUDE_REGEX", "gemm"),
        ("ROCPROF_RS_KERNEL_ITERATION_RANGE", "[1-3],[7]"),
        ("ROCPROF_RS_OUTPUT_DIR", "./my_traces"),
        ("ROCPROF_RS_OUTPUT_NAME", "stem"),
        ("ROCPROF_RS_TRUNCATE_KERNELS", "1"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(profile.vars, expected);
    assert!(profile.unhonoured.is_empty(), "{:?}", profile.unhonoured);
}

#[test]
fn unknown_parts_are_each_one_item_and_pc_sampling_is_taken() {
    let profile = mapped(
        r#"{"gpu_vendor": "NVIDIA", "docker_gpus": "all", "debug": true,
            "tools": [{"name": "rocprofv3_pc_sampling"}, {"name": "my_tool", "pre_scripts": []},
                      {"name": "rocprof", "cmd": "python3 trace.py"}]}"#,
    );
    assert_eq!(
        profile.unhonoured,
        [
            "gpu_vendor NVIDIA (rocprof-rs profiles AMD GPUs)",
            HIP_COMPILER,
            "$.tools[1].pre_scripts (not a tool setting rocprof-rs knows)",
            "tool my_tool (not a madengine tool rocprof-rs knows)",
            "tool rocprof (its cmd is not a rocprofv3 command line)",
            "debug (madengine's debug mode has no rocprof-rs equivalent)",
            "$.docker_gpus (not a profiling setting rocprof-rs knows)",
        ]
    );
    for (variable, value) in [
        (config::PC_SAMPLING_METHOD, "stochastic"),
        (config::PC_SAMPLING_UNIT, "time"),
        (config::PC_SAMPLING_INTERVAL, "1000"),
    ] {
        assert_eq!(profile.vars.get(variable).map(String::as_str), Some(value), "{variable}");
    }
}

#[test]
fn what_is_not_a_profile_is_refused_with_its_json_path() {
    for (text, message) in [
        ("{\"tools\": [", "not valid JSON: EOF while parsing a list at line 1 column 11"),
        ("[]", "$: expected an object, found an array"),
        (r#"{"tools": {}}"#, "$.tools: expected an array of tools, found an object"),
        (r#"{"tools": [{"env_vars": {}}]}"#, "$.tools[0].name: missing"),
        (r#"{"tools": [{"name": 3}]}"#, "$.tools[0].name: expected a string, found a number"),
        (r#"{"tools": [{"name": "x", "cmd": []}]}"#, "$.tools[0].cmd: expected a string, found an array"),
        (
            r#"{"tools": [{"name": "rocprofv3", "env_vars": {"A": [1]}}]}"#,
            "$.tools[0].env_vars.A: expected a string, found an array",
        ),
        (r#"{"env_vars": {"A=B": "1"}}"#, "$.env_vars.A=B: not a valid environment variable name"),
        (r#"{"slurm": "big"}"#, "$.slurm: expected an object, found a string"),
        (r#"{"distributed": {"nnodes": "2"}}"#, "$.distributed.nnodes: expected a whole number, found a string"),
        (r#"{"debug": "yes"}"#, "$.debug: expected true or false, found a string"),
    ] {
        assert_eq!(parse(text).unwrap_err().to_string(), message, "{text}");
    }
}

#[test]
fn load_names_the_file() {
    let error = load(Path::new("/nonexistent/profile.json")).unwrap_err().to_string();
    assert!(error.starts_with("profile /nonexistent/profile.json: cannot read it: "), "{error}");
}

#[test]
fn madengine_samplers_take_the_shorter_interval_and_name_a_device_list() {
    let profile = mapped(
        r#"{"tools": [
            {"name": "gpu_info_power_profiler", "env_vars": {"POWER_SAMPLING_RATE": "0.5", "POWER_DEVICE": "0,1"}},
            {"name": "gpu_info_vram_profiler", "env_vars": {"SAMPLING_RATE": "0.02"}}
        ]}"#,
    );
    assert_eq!(profile.vars.get("ROCPROF_RS_DEVICE_SAMPLE_MS").map(String::as_str), Some("20"));
    assert_eq!(
        profile.unhonoured,
        [
            "tool gpu_info_power_profiler DEVICE 0,1 (rocprof-rs samples every GPU, and `export madengine` writes a column for each)"
        ]
    );
    let bad = mapped(r#"{"tools": [{"name": "gpu_info_power_profiler", "env_vars": {"POWER_SAMPLING_RATE": "-1"}}]}"#);
    assert_eq!(bad.unhonoured, ["tool gpu_info_power_profiler SAMPLING_RATE -1 (not a number of seconds above 0)"]);
    assert!(!bad.vars.contains_key("ROCPROF_RS_DEVICE_SAMPLE_MS"));
}

#[test]
fn rocprofv3s_output_files_are_asked_of_the_run_and_otf2_is_named() {
    use crate::cli::output_formats::OutputFormat::{Csv, Json, Pftrace};
    let formats = |text: &str| mapped(text).outputs;
    assert_eq!(formats(LIGHTWEIGHT).formats, [Json].into());
    assert_eq!(formats(COMPUTE_BOUND).formats, [Pftrace].into());
    let comprehensive = formats(COMPREHENSIVE);
    assert!(comprehensive.stats && comprehensive.formats == [Pftrace].into(), "{comprehensive:?}");
    let agent = formats(r#"{"tools": [{"name": "rocprofv3_agent"}]}"#);
    assert!(agent.stats && agent.formats == [Csv].into(), "{agent:?}");
    let perfetto = formats(r#"{"tools": [{"name": "rocprofv3_perfetto"}]}"#);
    assert_eq!(perfetto.pftrace_name.as_deref(), Some("model_trace.pftrace"));
    let profile = mapped(
        r#"{"tools": [{"name": "rocprofv3", "cmd": "rocprofv3 --kernel-trace --output-format csv otf2 json -d x --"}]}"#,
    );
    assert_eq!(profile.outputs.formats, [Csv, Json].into());
    assert_eq!(profile.unhonoured.len(), 1, "{:?}", profile.unhonoured);
    assert!(
        profile.unhonoured[0].starts_with("--output-format otf2 (otf2: rocprof-rs writes no OTF2"),
        "{:?}",
        profile.unhonoured
    );
}
