//! The device sampler against the simulated AMD SMI (`tests/sdk-sim/amdsmi`): the
//! `device_sample` table equals the stand-in's ground truth, each dispatch's energy equals the
//! truth's integral, a failing library costs the run nothing but its samples, and the madengine
//! files have madengine's columns. SIMULATED: no GPU is involved.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::{built, scratch, stderr, tool};
use rocprof_rs_analysis::telemetry::{attribute, energy, report, series};

/// One served sample, as the stand-in logged it.
#[derive(Debug, Clone, Copy)]
struct Truth {
    time_ns: i64,
    power_w: f64,
    energy_j: f64,
    gfx_mhz: u32,
    mem_mhz: u32,
    vram_used: u64,
    vram_total: u64,
    gfx_busy: u32,
    umc_busy: u32,
    hotspot_c: i32,
}

fn read_truth(path: &Path) -> BTreeMap<u32, Vec<Truth>> {
    let text = std::fs::read_to_string(path).expect("the stand-in wrote its truth");
    let mut by_gpu: BTreeMap<u32, Vec<Truth>> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let n = |i: usize| f[i].parse::<f64>().unwrap();
        let resolution = f64::from(f[5].parse::<f32>().unwrap());
        by_gpu.entry(f[0].parse().unwrap()).or_default().push(Truth {
            time_ns: f[2].parse().unwrap(),
            power_w: n(3),
            energy_j: f[4].parse::<u64>().unwrap() as f64 * resolution * 1e-6,
            gfx_mhz: f[6].parse().unwrap(),
            mem_mhz: f[7].parse().unwrap(),
            vram_used: f[8].parse().unwrap(),
            vram_total: f[9].parse().unwrap(),
            gfx_busy: f[10].parse().unwrap(),
            umc_busy: f[11].parse().unwrap(),
            hotspot_c: f[12].parse().unwrap(),
        });
    }
    by_gpu
}

/// A simulated run sampled every 2 ms through the stand-in, with `vars` added.
fn sampled_run(out: &Path, truth: &Path, vars: &[(&str, &str)]) -> std::process::Output {
    let output = Command::new(built("rocprof-sim"))
        .args(["--dispatches", "30000", "--threads", "2", "--agents", "2", "--no-truth", "--sdk"])
        .arg(built("librocprofiler_sdk_sim.so"))
        .env("ROCP_TOOL_LIBRARIES", tool())
        .env("ROCPROF_RS_OUTPUT_DIR", out)
        .env("ROCPROF_RS_DEVICE_SAMPLE_MS", "2")
        .env("ROCPROF_RS_DEVICE_SAMPLE_LIBRARY", built("libamd_smi.so"))
        .env("ROCPROF_SIM_AMDSMI_TRUTH", truth)
        .envs(vars.iter().copied())
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap();
    assert!(output.status.success(), "the sampled run failed: {}", stderr(&output));
    output
}

fn assert_table_equals_truth(dir: &Path, truth: &BTreeMap<u32, Vec<Truth>>) {
    let table = series::read(dir).unwrap();
    assert_eq!(table.len(), 2, "one series per simulated GPU: {:?}", table.keys().collect::<Vec<_>>());
    let mut agents = std::collections::BTreeSet::new();
    for (key, s) in &table {
        let expected = &truth[&key.device_index];
        assert_eq!(s.samples.len(), expected.len(), "GPU {}: rows against served samples", key.device_index);
        assert!(s.samples.len() >= 3, "a few samples at least");
        assert_eq!(s.library, "amd-smi");
        assert_eq!(s.device_uuid, format!("0000:{:02x}:00.0", 0x10 * (key.device_index + 1)));
        agents.insert(s.agent_id.expect("the simulated SDK's GPU agent, found by its PCI address"));
        let mut gaps = Vec::new();
        for (row, t) in s.samples.iter().zip(expected) {
            assert_eq!(row.power_w, Some(t.power_w));
            assert_eq!(row.power_average_w, None, "the stand-in reports no average, as an MI300 does not");
            if let Some(energy) = row.energy_j {
                assert!((energy - t.energy_j).abs() <= 1e-9 * t.energy_j.max(1.0), "{energy} vs {}", t.energy_j);
            }
            assert_eq!(row.sm_clock_mhz, Some(t.gfx_mhz));
            assert_eq!(row.memory_clock_mhz, Some(t.mem_mhz));
            assert_eq!(row.memory_used_bytes, Some(t.vram_used));
            assert_eq!(row.memory_total_bytes, Some(t.vram_total));
            assert_eq!(row.gpu_busy_pct, Some(t.gfx_busy));
            assert_eq!(row.memory_busy_pct, Some(t.umc_busy));
            assert_eq!(row.temperature_c, Some(t.hotspot_c));
            assert_eq!(row.throttle_reasons, None, "AMD SMI defines no throttle bits");
            gaps.push((row.time_ns - t.time_ns).abs());
        }
        // The counter is read every 100 ms and at both ends, null between.
        let counted = s.samples.iter().filter(|x| x.energy_j.is_some()).count();
        assert!(s.samples[0].energy_j.is_some() && s.samples.last().unwrap().energy_j.is_some());
        assert!(counted < s.samples.len() && counted >= 2, "{counted} of {} samples counted", s.samples.len());
        // The row is stamped at the middle of the power call, which the stand-in's time is in.
        gaps.sort_unstable();
        assert!(gaps[gaps.len() / 2] < 200_000, "median stamp gap {} ns", gaps[gaps.len() / 2]);
        assert!(gaps[gaps.len() - 1] < 50_000_000, "largest stamp gap {} ns", gaps[gaps.len() - 1]);
    }
    assert_eq!(agents.len(), 2, "two GPUs, two agents");
}

#[test]
fn the_table_equals_the_stand_ins_truth_and_each_dispatch_its_integral() {
    let out = scratch("device-sample");
    let truth_path = out.join("amdsmi-truth.csv");
    sampled_run(&out.join("run"), &truth_path, &[]);
    let truth = read_truth(&truth_path);
    let dir = out.join("run");
    assert_table_equals_truth(&dir, &truth);

    // Each dispatch's energy against the truth's own samples, shared among concurrent
    // dispatches the same way.
    let table = series::read(&dir).unwrap();
    let device = report::report(&dir, None).unwrap().expect("a device section");
    let mut covered = 0;
    for (key, s) in &table {
        let points: Vec<(i64, f64)> = truth[&key.device_index].iter().map(|t| (t.time_ns, t.power_w)).collect();
        let ours: Vec<&attribute::DispatchEnergy> =
            device.dispatches.iter().filter(|d| Some(d.agent_id) == s.agent_id).collect();
        let intervals: Vec<(i64, i64)> = ours.iter().map(|d| (d.start_ns, d.end_ns)).collect();
        let expected = attribute::share(&points, &intervals);
        for (d, want) in ours.iter().zip(expected) {
            let (Some(got), Some(want)) = (d.energy, want) else { continue };
            covered += 1;
            // The two differ only by the stamp gap above, microseconds against milliseconds.
            let tolerance = 1e-3 * want.joules + 1e-7;
            assert!((got.joules - want.joules).abs() <= tolerance, "dispatch {}: {got:?} vs {want:?}", d.dispatch_id);
        }
        // The counter and the integral of the power agree over the GPU's span (the model's
        // power is smooth against 2 ms samples).
        let whole = energy::integrate(
            &energy::power_points(&s.samples),
            s.samples[0].time_ns,
            s.samples.last().unwrap().time_ns,
        )
        .unwrap();
        let counter = s.samples.last().unwrap().energy_j.unwrap() - s.samples[0].energy_j.unwrap();
        assert!((whole.joules / counter - 1.0).abs() < 0.02, "integral {} J, counter {counter} J", whole.joules);
    }
    assert!(covered > 100, "only {covered} dispatches had samples around them");
    let kernels: f64 = device.kernels.iter().map(|k| k.joules).sum();
    let dispatches: f64 = device.dispatches.iter().filter_map(|d| d.energy).map(|e| e.joules).sum();
    assert!(
        (kernels - dispatches).abs() <= 1e-9 * dispatches.max(1.0),
        "by kernel {kernels} vs by dispatch {dispatches}"
    );
}

#[test]
fn a_library_of_before_25_is_read_in_its_own_layout() {
    let out = scratch("device-sample-24");
    let truth_path = out.join("amdsmi-truth.csv");
    sampled_run(&out.join("run"), &truth_path, &[("ROCPROF_SIM_AMDSMI_VERSION", "24.7.0.0")]);
    assert_table_equals_truth(&out.join("run"), &read_truth(&truth_path));
}

#[test]
fn a_failing_library_costs_the_samples_alone() {
    let out = scratch("device-sample-fail");
    let output = sampled_run(&out.join("run"), &out.join("truth.csv"), &[("ROCPROF_SIM_AMDSMI_FAIL", "init")]);
    let lines: Vec<String> =
        stderr(&output).lines().filter(|l| l.contains("device sampler")).map(str::to_owned).collect();
    assert_eq!(lines.len(), 1, "one line: {lines:?}");
    assert!(lines[0].contains("amdsmi_init") && lines[0].contains("tracing goes on"), "{}", lines[0]);
    assert!(series::read(&out.join("run")).unwrap().is_empty());
    assert!(stderr(&output).contains("kernel_dispatch 30000"), "the trace is whole: {}", stderr(&output));
    let missing = Command::new(built("rocprof-sim"))
        .args(["--dispatches", "100", "--no-truth", "--sdk"])
        .arg(built("librocprofiler_sdk_sim.so"))
        .env("ROCP_TOOL_LIBRARIES", tool())
        .env("ROCPROF_RS_OUTPUT_DIR", out.join("missing"))
        .env("ROCPROF_RS_DEVICE_SAMPLE_MS", "5")
        .env("ROCPROF_RS_DEVICE_SAMPLE_LIBRARY", "/nonexistent/libamd_smi.so")
        .output()
        .unwrap();
    assert!(missing.status.success(), "{}", stderr(&missing));
    assert!(stderr(&missing).contains("AMD SMI (libamd_smi.so, from ROCm) not found"), "{}", stderr(&missing));
}

#[test]
fn madengine_files_have_madengines_columns() {
    let out = scratch("device-sample-madengine");
    sampled_run(&out.join("run"), &out.join("truth.csv"), &[]);
    let export = Command::new(built("rocprof-rs"))
        .args(["export", "--format", "madengine", "-o"])
        .arg(out.join("mad"))
        .arg(out.join("run"))
        .output()
        .unwrap();
    assert!(export.status.success(), "{}", stderr(&export));
    let table = series::read(&out.join("run")).unwrap();
    let rounds = table.values().map(|s| s.samples.len()).min().unwrap();
    // gpu_info_profiler.py's DictWriter: `time`, then a column per device index.
    for (file, prefix) in [
        ("gpu_info_power_profiler_output.csv", "Power(Watt) GPU"),
        ("gpu_info_vram_profiler_output.csv", "vram(%) GPU"),
    ] {
        let text = std::fs::read_to_string(out.join("mad").join(file)).unwrap();
        let mut lines = text.split("\r\n").filter(|l| !l.is_empty());
        assert_eq!(lines.next().unwrap(), format!("time,{prefix}0,{prefix}1"));
        let rows: Vec<&str> = lines.collect();
        assert_eq!(rows.len(), rounds);
        let first: Vec<&str> = rows[0].split(',').collect();
        assert_eq!(first[0].len(), "2026-11-26 10:00:00.000000".len(), "{}", first[0]);
        assert!(first[1..].iter().all(|v| v.parse::<f64>().is_ok()), "{}", rows[0]);
    }
}
