"""The Python package's PEP 517 build backend: maturin's, with the `rocprof-rs` CLI and its tool
library built by cargo and put in `rocprof_rs/_bin` first, so every way of installing
(`pip install .`, `pip install git+URL`, an sdist, a wheel) gives the whole package.

- ROCPROF_RS_CARGO_PROFILE: the cargo profile of the CLI and the tool (release by default;
  `dev` reuses a test build's artefacts). maturin's own profile comes from MATURIN_PEP517_ARGS.
- CARGO_TARGET_DIR is honoured, as cargo and maturin honour it.
- The sdist holds the whole Cargo workspace the CLI and the tool are built from (maturin's own
  keeps only the native module's crates), and this backend.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

import maturin
from maturin import (  # noqa: F401 - the hooks this backend takes from maturin unchanged
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

#: The checkout (or unpacked sdist) root: this file is python/build_backend/rocprof_rs_build.py.
ROOT = Path(__file__).resolve().parents[2]

#: What the sdist adds to maturin's: every path cargo needs to load the workspace and build the
#: CLI and the tool, and this backend. Test data stays out (only the simulator's crates, which
#: the workspace lists).
SDIST_PATHS = ["Cargo.toml", "Cargo.lock", "build.rs", "src", "benches", "sys", "crates", "tests/sdk-sim",
               "python/build_backend", "README.md", "LICENSE-MIT", "LICENSE-APACHE"]


class BuildError(RuntimeError):
    """The CLI or the tool library could not be built."""


def _binaries() -> None:
    profile = os.environ.get("ROCPROF_RS_CARGO_PROFILE", "release")
    cargo = os.environ.get("CARGO", "cargo")
    command = [cargo, "build", "--profile", profile, "-p", "rocprof-rs", "-p", "rocprof-rs-recorder"]
    try:
        subprocess.run(command, cwd=ROOT, check=True)
    except FileNotFoundError as error:
        raise BuildError(f"cargo is needed to build rocprof-rs from source ({error}): install Rust from https://rustup.rs") from error
    except subprocess.CalledProcessError as error:
        raise BuildError(f"{' '.join(command)} failed ({error.returncode}); its output is above") from error
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if not target.is_absolute():
        target = ROOT / target
    built = target / ("debug" if profile == "dev" else profile)
    into = ROOT / "python" / "rocprof_rs" / "_bin"
    into.mkdir(parents=True, exist_ok=True)
    for name in ("rocprof-rs", "librocprof_rs.so"):
        source = built / name
        if not source.is_file():
            raise BuildError(f"{source}: not built by {' '.join(command)}")
        partial = into / f".{name}.partial"
        shutil.copy2(source, partial)
        if shutil.which("strip"):
            # Debug information stays in target/: the wheel carries the code alone.
            subprocess.run(["strip", str(partial)], check=False)
        os.replace(partial, into / name)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _binaries()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _binaries()
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    name = maturin.build_sdist(sdist_directory, config_settings)
    path = Path(sdist_directory) / name
    with tempfile.TemporaryDirectory() as scratch:
        with tarfile.open(path, "r:gz") as tar:
            try:
                tar.extractall(scratch, filter="data")
            except TypeError:  # a Python without extraction filters: the archive is maturin's own
                tar.extractall(scratch)
        (top,) = Path(scratch).iterdir()
        for relative in SDIST_PATHS:
            source, target = ROOT / relative, top / relative
            if not source.exists():
                continue
            if target.exists():
                shutil.rmtree(target) if target.is_dir() else target.unlink()
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, target, ignore=shutil.ignore_patterns("target", "__pycache__", "*.pyc"))
            else:
                shutil.copy2(source, target)
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as tar:
            tar.add(top, arcname=top.name, filter=_reproducible)
        partial = path.with_name(f".{path.name}.partial")
        with gzip.GzipFile(partial, "wb", mtime=0) as gz:
            gz.write(buffer.getvalue())
        os.replace(partial, path)
    return name


def _reproducible(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info
