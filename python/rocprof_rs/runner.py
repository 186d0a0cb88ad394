"""Profiling from Python: `run` an application under the tool, or `profile` this process."""

from __future__ import annotations

import contextlib
import ctypes
import os
import subprocess
from pathlib import Path
from typing import Iterator, Mapping, Optional, Sequence, Union

from . import _binaries
from ._native import RocprofError
from .dataset import Dataset

PathLike = Union[str, "os.PathLike[str]"]

#: `run`'s trace switches, as the CLI names them.
TRACES = ("kernel", "hip", "hsa", "rccl", "memory_copy", "marker", "scratch_memory", "memory_allocation", "cuda_api", "sys")


def run(
    command: Sequence[PathLike],
    *,
    output: PathLike = "rocprof-rs-output",
    kernel_trace: bool = True,
    hip_trace: bool = False,
    memory_copy_trace: bool = False,
    marker_trace: bool = False,
    sys_trace: bool = False,
    preset: Optional[str] = None,
    pmc: Optional[Sequence[str]] = None,
    device_sample: Optional[int] = None,
    backend: str = "auto",
    options: Sequence[str] = (),
    env: Optional[Mapping[str, str]] = None,
    check: bool = True,
) -> Dataset:
    """Runs `command` under the tool (`rocprof-rs run ... -- command`) and returns its dataset.

    `preset` and `pmc` collect counters; `device_sample` samples the GPUs every that many
    milliseconds; `options` are further `rocprof-rs run` options, as the CLI spells them. With
    `check`, a failing application or tool raises `RocprofError` with the tool's last words.
    """
    args: list[str] = [str(_binaries.cli()), "run", "-d", str(output), "--backend", backend]
    for on, flag in (
        (kernel_trace, "--kernel-trace"),
        (hip_trace, "--hip-trace"),
        (memory_copy_trace, "--memory-copy-trace"),
        (marker_trace, "--marker-trace"),
        (sys_trace, "--sys-trace"),
    ):
        if on:
            args.append(flag)
    if preset:
        args += ["--preset", preset]
    if pmc:
        args += ["--pmc", ",".join(pmc)]
    if device_sample is not None:
        args += ["--device-sample", str(int(device_sample))]
    args += [str(o) for o in options]
    args += ["--", *[str(c) for c in command]]
    environment = dict(os.environ if env is None else env)
    done = subprocess.run(args, env=environment, stderr=subprocess.PIPE, text=True, check=False)
    if check and done.returncode != 0:
        last = [line for line in done.stderr.splitlines() if line.strip()][-3:]
        raise RocprofError(f"`{' '.join(args[1:])}` exited with {done.returncode}: " + " / ".join(last))
    return Dataset(output)


class Profile:
    """An in-process profile of this process (see `profile`): collects while a `region` is
    open (or always, unless started paused), and `finish` writes the dataset."""

    def __init__(
        self, library: ctypes.CDLL, output: Path, paused: bool, injected: Optional[Mapping[str, Optional[str]]] = None
    ) -> None:
        self._library = library
        self.output = output
        self._paused = paused
        # Set by `start(window=...)`: the windows decide when it collects.
        self._windowed = False
        self._depth = 0
        self.dataset: Optional[Dataset] = None
        # NVIDIA: the variables set for CUDA's injection, and what they were before.
        self._injected = dict(injected or {})

    def _restore_environment(self) -> None:
        """Once the tool runs, the injection variables go back to what they were, so that
        processes this one starts later are not profiled into this dataset."""
        for name, before in self._injected.items():
            if before is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = before
        self._injected = {}

    def _call(self, name: str, *args: object) -> None:
        if name != "rocprof_rs_profile_start":
            self._restore_environment()
        error = ctypes.create_string_buffer(4096)
        if getattr(self._library, name)(*args, error, ctypes.c_size_t(len(error))) != 0:
            raise RocprofError(error.value.decode(errors="replace"))

    @contextlib.contextmanager
    def region(self) -> Iterator["Profile"]:
        """Collects inside the block (regions nest); a paused profile collects nothing outside."""
        if self.dataset is not None:
            raise RocprofError("the profile has finished")
        if self._windowed:
            raise RocprofError("this profile records in tracing windows, which decide when it collects: regions and pauses cannot")
        if self._depth == 0 and self._paused:
            self._call("rocprof_rs_profile_collect", ctypes.c_int(1))
        self._depth += 1
        try:
            yield self
        finally:
            self._depth -= 1
            if self._depth == 0 and self._paused:
                self._call("rocprof_rs_profile_collect", ctypes.c_int(0))

    def dump(self, reason: str = "api", wait: float = 30.0) -> Optional[Dataset]:
        """Asks the flight recorder (`start(flight_recorder=...)`) to write what it holds: the
        dump is a dataset of its own, returned once written (`wait` seconds at most; with 0,
        returns at once, and None). The run goes on."""
        self._restore_environment()
        fn = self._library.rocprof_rs_dump
        fn.argtypes = [ctypes.c_char_p, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
        fn.restype = ctypes.c_int
        path, error = ctypes.create_string_buffer(4096), ctypes.create_string_buffer(4096)
        wait_ms = max(0, int(wait * 1000))
        if fn(reason.encode(), wait_ms, path, len(path), error, len(error)) != 0:
            raise RocprofError(error.value.decode(errors="replace"))
        return Dataset(Path(path.value.decode())) if wait_ms else None

    def finish(self) -> Dataset:
        """Ends the profile: every record written and every file complete; returns the dataset."""
        if self.dataset is None:
            self._call("rocprof_rs_profile_finish")
            self.dataset = Dataset(self.output)
        return self.dataset


def _loadable(name: str) -> bool:
    try:
        ctypes.CDLL(name, mode=ctypes.RTLD_LOCAL)
    except OSError:
        return False
    return True


def _cuda_initialized() -> bool:
    torch = __import__("sys").modules.get("torch")
    try:
        return bool(torch is not None and torch.cuda.is_initialized())
    except Exception:  # noqa: BLE001 - a torch without CUDA
        return False


def start(
    *,
    output: PathLike = "rocprof-rs-output",
    domains: Sequence[str] = ("kernel",),
    preset: Optional[str] = None,
    pmc: Optional[Sequence[str]] = None,
    device_sample: Optional[int] = None,
    paused: bool = True,
    settings: Optional[Mapping[str, str]] = None,
    sdk: Optional[PathLike] = None,
    backend: str = "auto",
    window: Optional[str] = None,
    flight_recorder: Optional[float] = None,
) -> Profile:
    """Starts profiling this process in-process, paused by default (collect in `region`s).

    - AMD (`backend="rocprofiler-sdk"`): the tool is handed to rocprofiler-sdk through
      `rocprofiler_force_configure`, which the SDK accepts only before a runtime has registered:
      call this before HIP loads (before `import torch` on ROCm). `sdk` names the SDK library
      where it is not found by its SONAME.
    - NVIDIA (`backend="cupti"`): the tool becomes CUDA's injection library, which the driver
      loads at the first CUDA call of the process: call this before it (`import torch` is fine;
      `torch.cuda` use is not). Regions work once CUDA has started; CUPTI records a kernel when
      its kind was on at its launch, as torch.profiler does. The injection variables stay in
      the environment until the first region or `finish` (a process started before then, with
      CUDA, is profiled into the same dataset), and are put back then.
    - `auto`: rocprofiler-sdk where `sdk` is given or the SDK is there, else CUPTI where the CUDA
      driver is.

    `window="200ms/20s"` records only in tracing windows (no regions then: the windows decide);
    `flight_recorder=30` keeps the last 30 seconds in memory and writes them as a dataset when
    `Profile.dump` (or `rocprof_rs.dump`), the dump signal (SIGUSR2) or a request file asks.
    `settings` are further `ROCPROF_RS_*` variables.
    """
    if window is not None:
        paused = False
    output = Path(output)
    chosen = {
        "ROCPROF_RS_OUTPUT_DIR": str(output),
        "ROCPROF_RS_DOMAINS": ",".join(domains),
    }
    if preset:
        chosen["ROCPROF_RS_COUNTER_PRESET"] = preset
    if pmc:
        chosen["ROCPROF_RS_PMC"] = ",".join(pmc)
    if device_sample is not None:
        chosen["ROCPROF_RS_DEVICE_SAMPLE_MS"] = str(int(device_sample))
    if window is not None:
        chosen["ROCPROF_RS_WINDOW"] = str(window)
    if flight_recorder is not None:
        chosen["ROCPROF_RS_FLIGHT_RECORDER"] = str(flight_recorder)
    chosen.update(settings or {})
    if backend == "auto":
        amd = sdk is not None or _loadable("librocprofiler-sdk.so.1") or not _loadable("libcuda.so.1")
        backend = "rocprofiler-sdk" if amd else "cupti"
    tool = str(_binaries.tool())
    if backend == "cupti":
        if _cuda_initialized():
            raise RocprofError("CUDA has started in this process already: call rocprof_rs.start before the first CUDA call")
        held = os.environ.get("CUDA_INJECTION64_PATH")
        if held and held != tool:
            raise RocprofError(f"CUDA_INJECTION64_PATH is already set to {held}: another tool injects into CUDA")
        injection = {**chosen, "ROCPROF_RS_START_PAUSED": "1" if paused else "0", "CUDA_INJECTION64_PATH": tool}
        before = {name: os.environ.get(name) for name in injection}
        os.environ.update(injection)
        # The driver will load this same file; loaded now, its entry points are this one's.
        return _started(Profile(ctypes.CDLL(tool, mode=ctypes.RTLD_GLOBAL), output, paused, injected=before), window is not None)
    if backend != "rocprofiler-sdk":
        raise RocprofError(f"backend {backend!r}: expected auto, rocprofiler-sdk or cupti")
    library = ctypes.CDLL(tool, mode=ctypes.RTLD_GLOBAL)
    library.rocprof_rs_profile_start.restype = ctypes.c_int
    encoded = [f"{k}={v}".encode() for k, v in chosen.items()]
    array = (ctypes.c_char_p * len(encoded))(*encoded)
    error = ctypes.create_string_buffer(4096)
    sdk_path = None if sdk is None else str(sdk).encode()
    started = library.rocprof_rs_profile_start(
        array, ctypes.c_size_t(len(encoded)), sdk_path, ctypes.c_int(1 if paused else 0), error, ctypes.c_size_t(len(error))
    )
    if started != 0:
        raise RocprofError(error.value.decode(errors="replace"))
    return _started(Profile(library, output, paused), window is not None)


_LATEST: Optional[Profile] = None


def _started(profile: Profile, windowed: bool) -> Profile:
    global _LATEST
    profile._windowed = windowed
    _LATEST = profile
    return profile


def dump(reason: str = "api", wait: float = 30.0) -> Optional[Dataset]:
    """The flight recorder's dump of this process's profile (`start(flight_recorder=...)`):
    see `Profile.dump`."""
    if _LATEST is None:
        raise RocprofError("no profile was started in this process: rocprof_rs.start(flight_recorder=...) first")
    return _LATEST.dump(reason, wait)


@contextlib.contextmanager
def profile(**options: object) -> Iterator[Profile]:
    """Profiles the block in-process: `with rocprof_rs.profile(domains=["kernel"]) as p: ...`,
    then `p.dataset`. Takes `start`'s options; collects throughout the block."""
    options.setdefault("paused", False)
    p = start(**options)  # type: ignore[arg-type]
    try:
        yield p
    finally:
        p.finish()
