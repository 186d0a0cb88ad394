"""Where the wheel keeps the `rocprof-rs` CLI and the tool library `librocprof_rs.so`."""

from __future__ import annotations

from pathlib import Path

from ._native import RocprofError

_HERE = Path(__file__).resolve().parent


def cli() -> Path:
    """The wheel's `rocprof-rs` executable."""
    path = _HERE / "_bin" / "rocprof-rs"
    if not path.is_file():
        raise RocprofError(f"{path}: no rocprof-rs executable (the wheel holds one in rocprof_rs/_bin)")
    return path


def tool() -> Path:
    """The tool library beside the CLI, `librocprof_rs.so`."""
    path = cli().parent / "librocprof_rs.so"
    if not path.is_file():
        raise RocprofError(f"{path}: no tool library beside the rocprof-rs executable")
    return path
