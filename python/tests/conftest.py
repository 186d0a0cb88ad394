"""The simulator's artefacts for the Python tests: ROCPROF_SIM_TARGET names the cargo target
folder (target/debug) that holds rocprof-sim, the simulated SDK, the simulated AMD SMI and the
simulated application as a library. SIMULATED: no GPU is involved."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def _target() -> Path:
    folder = os.environ.get("ROCPROF_SIM_TARGET")
    if not folder:
        pytest.fail("set ROCPROF_SIM_TARGET to the cargo target folder with the simulator (target/debug)")
    return Path(folder)


def _built(name: str) -> Path:
    target = _target()
    for path in (target / name, target / "deps" / name):
        if path.exists():
            return path
    pytest.fail(f"{name} is not built in {target}: cargo build --workspace")


@pytest.fixture(scope="session")
def sim() -> dict[str, Path]:
    return {
        "app": _built("rocprof-sim"),
        "sdk": _built("librocprofiler_sdk_sim.so"),
        "amdsmi": _built("libamd_smi.so"),
        "play": _built("librocprof_sim_play.so"),
    }


@pytest.fixture(scope="session")
def sim_command(sim):
    """The simulated application as a command line: `dispatches` kernels from `seed`."""

    def command(dispatches: int, seed: int = 1) -> list[str]:
        return [
            str(sim["app"]),
            "--dispatches", str(dispatches), "--threads", "2", "--agents", "2",
            "--seed", str(seed), "--no-truth", "--sdk", str(sim["sdk"]),
        ]

    return command
