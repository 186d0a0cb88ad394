"""Module-level candidates for the evaluator's callable test: the simulated application as a
C library (SIMULATED: no GPU), opened before the profile starts, its runtime registered and its
kernels played inside the profiled region."""

from __future__ import annotations

import ctypes
import os

_PLAY = None


def prepare() -> None:
    """Opens the simulated machine (the SDK the profile then configures)."""
    global _PLAY
    _PLAY = ctypes.CDLL(os.environ["ROCPROF_SIM_PLAY"])
    assert _PLAY.rocprof_sim_play_open(os.environ["ROCPROF_SIM_SDK"].encode(), 1) == 0
    _PLAY.started = False


def candidate(dispatches: int) -> None:
    """Plays `dispatches` simulated kernels (registering the runtime on the first call)."""
    assert _PLAY is not None, "prepare() first"
    if not _PLAY.started:
        assert _PLAY.rocprof_sim_play_start_runtime() == 0
        _PLAY.started = True
    assert _PLAY.rocprof_sim_play(ctypes.c_uint64(dispatches), 1, ctypes.c_uint64(7)) == 0
