"""The rocprof_rs package, installed from its wheel, against the simulator (SIMULATED: no GPU)."""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
from pathlib import Path

import pytest

import rocprof_rs
from rocprof_rs import _binaries


def cli_json(*args: str) -> object:
    """The CLI's JSON; `diff` exits 1 when something regressed, which is no failure here."""
    done = subprocess.run([str(_binaries.cli()), *args], capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


ENVELOPE = ("schema", "schema_version", "tool_version", "command", "dataset")


def cli_body(*args: str, beside: tuple[str, ...] = ()) -> dict:
    """The CLI's JSON without its envelope (and the keys `beside` it): what the API returns."""
    return {k: v for k, v in cli_json(*args).items() if k not in ENVELOPE + beside}


@pytest.fixture(scope="module")
def runs(tmp_path_factory, sim_command, sim):
    """Two runs of the simulated application, the second with device samples."""
    root = tmp_path_factory.mktemp("runs")
    a = rocprof_rs.run(sim_command(3000, seed=1), output=root / "a", hip_trace=True, marker_trace=True)
    b = rocprof_rs.run(
        sim_command(3000, seed=2),
        output=root / "b",
        device_sample=2,
        options=["--device-sample-library", str(sim["amdsmi"])],
    )
    return a, b


def test_the_wheel_holds_the_cli_and_the_tool():
    assert _binaries.cli().is_file() and _binaries.tool().is_file()
    # The console script the wheel installs beside this interpreter.
    script = Path(sys.executable).parent / "rocprof-rs"
    version = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith("rocprof-rs "), version
    assert rocprof_rs.__version__ in version


def test_run_returns_the_dataset_and_its_tables(runs):
    a, _ = runs
    assert {"kernel_dispatch", "hip_api", "agent", "process"} <= set(a.tables())
    kernels = a.table("kernel_dispatch")
    assert kernels.num_rows == 3000
    assert {"kernel_name", "start_ns", "duration_ns", "pid", "host", "rank"} <= set(kernels.column_names)
    frame = a.to_pandas("kernel_dispatch")
    assert len(frame) == 3000 and (frame["duration_ns"] >= 0).all()


def test_stats_equals_the_cli(runs):
    for ds in runs:
        assert ds.stats() == cli_json("stats", str(ds.path), "--format", "json")["sections"]
    a, _ = runs
    frame = a.stats_frame("kernel")
    assert frame["calls"].sum() == 3000


def test_device_section_equals_the_cli(runs):
    a, b = runs
    assert a.device() is None
    assert b.device() == cli_json("stats", str(b.path), "--section", "device", "--format", "json")["device"]
    assert len(b.device()["devices"]) == 2


def test_analyze_diff_and_score_equal_the_cli(runs):
    a, b = runs
    assert a.analyze() == cli_body("analyze", str(a.path), "--format", "json")
    assert a.diff(b) == cli_body("diff", str(a.path), str(b.path), "--format", "json", beside=("baseline",))
    score = a.score(target_us=50.0)
    cli = cli_json("score", str(a.path), "--target-us", "50", "--format", "json")
    assert score.score == cli["score"] and score.latency_us == cli["latency_us"]
    weighed = b.score(target_us=50.0, energy_weight=0.3, energy_target_j=0.01, kernel="vector_add")
    assert weighed.joules is not None and weighed.joules > 0 and weighed.energy_term is not None


def test_the_report_is_the_clis_page(runs, tmp_path):
    a, b = runs
    cli = subprocess.run([str(_binaries.cli()), "report", str(a.path), "-o", "-"], capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    assert a.report() == cli.stdout
    written = b.report(tmp_path / "b.html", baseline=a)
    page = written.read_text(encoding="utf-8")
    for section in ("kernels", "timeline", "device", "diff"):
        assert f'id="{section}" data-state="shown"' in page, section
    assert not list(tmp_path.glob(".*partial")), "no partial file left"
    with pytest.raises(rocprof_rs.RocprofError, match="not a regular file"):
        a.report("/dev/null")
    with pytest.raises(rocprof_rs.RocprofError, match="bins 5"):
        a.report(bins=5)


def test_diff_of_a_run_with_itself_finds_nothing(runs):
    a, _ = runs
    report = a.diff(a)
    assert all(k["verdict"] == "unchanged" for k in report["kernels"]), report


def test_bad_input_raises_the_clis_message(tmp_path):
    with pytest.raises(rocprof_rs.RocprofError, match="not a directory"):
        rocprof_rs.Dataset(tmp_path / "nowhere")
    empty = rocprof_rs.Dataset(tmp_path)
    with pytest.raises(rocprof_rs.RocprofError, match="no kernel_dispatch table"):
        empty.table("kernel_dispatch")
    with pytest.raises(rocprof_rs.RocprofError, match="section \"kernels\""):
        empty.stats(["kernels"])
    with pytest.raises(rocprof_rs.RocprofError, match="target_us"):
        empty.score(target_us=-1)
    with pytest.raises(rocprof_rs.RocprofError, match="exited with"):
        rocprof_rs.run([sys.executable, "-c", "raise SystemExit(3)"], output=tmp_path / "failed")


def test_the_evaluator_scores_a_right_candidate_and_zeroes_a_wrong_one(tmp_path, sim_command):
    evaluator = rocprof_rs.Evaluator(
        target_us=50.0,
        command=lambda path: sim_command(2000, seed=int(Path(path).stem[-1])),
        check=lambda path: 0.0 if "wrong" in path else 1.0,
        output_root=tmp_path,
    )
    right = evaluator.evaluate("candidate-1")
    assert set(right) >= {"combined_score", "correctness", "latency_us"}
    assert 0.5 <= right["combined_score"] <= 1.0 and right["correctness"] == 1.0
    assert evaluator.evaluate("wrong-2")["combined_score"] == 0.0
    full = evaluator.evaluate_full("candidate-3")
    assert full.dataset is not None and full.details.repeats > 0


def test_an_in_process_profile_records_its_region_only(tmp_path, sim):
    """A fresh interpreter (the SDK takes one tool per process): the simulated application
    plays 500 kernels before the region, 1000 inside, 300 after."""
    script = f"""
import ctypes, rocprof_rs
play = ctypes.CDLL({str(sim["play"])!r})
assert play.rocprof_sim_play_open({str(sim["sdk"]).encode()!r}, 2) == 0
p = rocprof_rs.start(output={str(tmp_path / "in-process")!r}, domains=["kernel", "marker"], sdk={str(sim["sdk"])!r})
assert play.rocprof_sim_play_start_runtime() == 0
assert play.rocprof_sim_play(ctypes.c_uint64(500), 2, ctypes.c_uint64(1)) == 0
with p.region():
    assert play.rocprof_sim_play(ctypes.c_uint64(1000), 2, ctypes.c_uint64(2)) == 0
assert play.rocprof_sim_play(ctypes.c_uint64(300), 2, ctypes.c_uint64(3)) == 0
ds = p.finish()
print(ds.table("kernel_dispatch").num_rows)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "1000", done.stdout + done.stderr


def test_an_in_process_flight_recorder_dumps_on_request_and_windows_refuse_regions(tmp_path, sim):
    """The flight recorder writes nothing until `dump`, which returns the dump as a dataset;
    a windowed profile has no regions (the windows decide)."""
    script = f"""
import ctypes, os, rocprof_rs
play = ctypes.CDLL({str(sim["play"])!r})
assert play.rocprof_sim_play_open({str(sim["sdk"]).encode()!r}, 2) == 0
out = {str(tmp_path / "flight")!r}
p = rocprof_rs.start(output=out, domains=["kernel"], sdk={str(sim["sdk"])!r}, paused=False, flight_recorder=30)
assert play.rocprof_sim_play_start_runtime() == 0
assert play.rocprof_sim_play(ctypes.c_uint64(700), 2, ctypes.c_uint64(1)) == 0
assert not any(n.startswith("kernel_dispatch") for n in os.listdir(out)), os.listdir(out)
ds = rocprof_rs.dump("after the warm-up")
print("dumped", ds.table("kernel_dispatch").num_rows, os.path.basename(str(ds.path)).startswith("dump-"))
p.finish()
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-3:] == ["dumped", "700", "True"], done.stdout + done.stderr
    script = f"""
import ctypes, rocprof_rs
play = ctypes.CDLL({str(sim["play"])!r})
play.rocprof_sim_play_open({str(sim["sdk"]).encode()!r}, 1)
p = rocprof_rs.start(output={str(tmp_path / "windowed")!r}, sdk={str(sim["sdk"])!r}, window="5ms/20ms")
try:
    with p.region():
        pass
except rocprof_rs.RocprofError as e:
    print("refused:", e)
p.finish()
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "refused:" in done.stdout and "windows" in done.stdout, done.stdout + done.stderr


def test_profile_refuses_a_second_start_in_one_process(tmp_path, sim):
    script = f"""
import ctypes, rocprof_rs
play = ctypes.CDLL({str(sim["play"])!r})
play.rocprof_sim_play_open({str(sim["sdk"]).encode()!r}, 1)
with rocprof_rs.profile(output={str(tmp_path / "once")!r}, sdk={str(sim["sdk"])!r}) as p:
    pass
try:
    rocprof_rs.start(output={str(tmp_path / "twice")!r}, sdk={str(sim["sdk"])!r})
except rocprof_rs.RocprofError as e:
    print("refused:", e)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "refused:" in done.stdout, done.stdout + done.stderr


def test_the_evaluator_profiles_a_callable_in_process(tmp_path, sim, monkeypatch):
    monkeypatch.setenv("ROCPROF_SIM_PLAY", str(sim["play"]))
    monkeypatch.setenv("ROCPROF_SIM_SDK", str(sim["sdk"]))
    # The spawned interpreter imports the candidates by module name, from this path.
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    import sim_candidates

    evaluator = rocprof_rs.Evaluator(target_us=50.0, output_root=tmp_path)
    result = evaluator.evaluate_callable(
        sim_candidates.candidate,
        200,
        repeats=3,
        prepare=sim_candidates.prepare,
        start_options={"sdk": str(sim["sdk"]), "domains": ["kernel"]},
        check=lambda fn: 1.0,
    )
    assert result.error is None, result.error
    assert result.dataset is not None and result.dataset.table("kernel_dispatch").num_rows == 600
    assert 0.5 <= result.score <= 1.0


def test_analyze_takes_times_and_pc_samples_from_other_runs():
    fixture = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "sol-h200"
    counted = rocprof_rs.Dataset(fixture / "counted")
    python = counted.analyze(timings=fixture / "timed", samples=fixture / "sampled")
    cli = cli_body(
        "analyze", str(fixture / "counted"), "--timings", str(fixture / "timed"),
        "--samples", str(fixture / "sampled"), "--format", "json",
    )
    assert python == cli
    assert any(k["diagnosis"]["kernel_class"] == "TAIL" for k in python["kernels"])
    with pytest.raises(rocprof_rs.RocprofError, match="no pc_sample table"):
        counted.analyze(samples=fixture / "timed")


def test_analyze_judges_against_the_roofs_given():
    fixture = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "sol-h200"
    counted = rocprof_rs.Dataset(fixture / "counted")
    roofs = fixture / "roofs-h200.json"
    python = counted.analyze(timings=fixture / "timed", roofs=roofs)
    cli = cli_body("analyze", str(fixture / "counted"), "--timings", str(fixture / "timed"),
                   "--roofs", str(roofs), "--format", "json")
    assert python == cli
    assert any("judged against the roofs measured by rocprof-rs doctor" in n for n in python["notes"])
    paper = counted.analyze(timings=fixture / "timed", roofs="datasheet")
    assert not any("judged against the roofs" in n for n in paper["notes"])
    with pytest.raises(rocprof_rs.RocprofError, match="missing.json"):
        counted.analyze(roofs=fixture / "missing.json")
