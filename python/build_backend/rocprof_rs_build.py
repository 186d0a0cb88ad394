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
import json
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
SDIST_PATHS = ["Cargo.toml", "Cargo.lock", "build.rs", "src", "benches", "include", "sys", "crates", "tests/sdk-sim",
               "python/build_backend", "README.md", "LICENSE-MIT", "LICENSE-APACHE"]


class BuildError(RuntimeError):
    """The CLI or the tool library could not be built."""


def _built(command: list[str]) -> dict[str, Path]:
    """Runs cargo's `command` and returns the files it says it made, by the names they ship as:
    cargo's own account, whatever the profile's folder or the target folder is."""
    try:
        run = subprocess.run(command + ["--message-format=json-render-diagnostics"], cwd=ROOT, check=True,
                             stdout=subprocess.PIPE, text=True)
    except FileNotFoundError as error:
        raise BuildError(f"cargo is needed to build rocprof-rs from source ({error}): install Rust from https://rustup.rs") from error
    except subprocess.CalledProcessError as error:
        raise BuildError(f"{' '.join(command)} failed ({error.returncode}); its output is above") from error
    built = {}
    for line in run.stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("reason") != "compiler-artifact":
            continue
        target = message.get("target", {})
        if target.get("name") == "rocprof-rs" and "bin" in target.get("kind", []) and message.get("executable"):
            built["rocprof-rs"] = Path(message["executable"])
        if target.get("name") == "rocprof_rs" and "cdylib" in target.get("kind", []):
            for file in message.get("filenames", []):
                if file.endswith(".so"):
                    built["librocprof_rs.so"] = Path(file)
    return built


def _binaries() -> None:
    profile = os.environ.get("ROCPROF_RS_CARGO_PROFILE", "release")
    cargo = os.environ.get("CARGO", "cargo")
    command = [cargo, "build", "--profile", profile, "-p", "rocprof-rs", "-p", "rocprof-rs-recorder"]
    built = _built(command)
    into = ROOT / "python" / "rocprof_rs" / "_bin"
    # Nothing of an earlier build stays to be packed beside this one.
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    for name in ("rocprof-rs", "librocprof_rs.so"):
        source = built.get(name)
        if source is None or not source.is_file():
            raise BuildError(f"{name}: cargo did not report building it ({' '.join(command)})")
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
        tracked = _tracked()
        for relative in SDIST_PATHS:
            source, target = ROOT / relative, top / relative
            if not source.exists():
                continue
            if target.exists():
                shutil.rmtree(target) if target.is_dir() else target.unlink()
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_file():
                shutil.copy2(source, target)
            elif tracked is None:
                shutil.copytree(source, target, ignore=shutil.ignore_patterns("target", "__pycache__", "*.pyc", "_bin"))
            else:
                for file in sorted(f for f in tracked if f.parts[: len(Path(relative).parts)] == Path(relative).parts):
                    (top / file).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(ROOT / file, top / file)
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as tar:
            tar.add(top, arcname=top.name, filter=_reproducible)
        partial = path.with_name(f".{path.name}.partial")
        with gzip.GzipFile(partial, "wb", mtime=0) as gz:
            gz.write(buffer.getvalue())
        os.replace(partial, path)
    return name


def _tracked() -> set[Path] | None:
    """The files git tracks or would track under the checkout (no build output, no ignored scratch
    file), relative to it; None where git does not track this tree (an unpacked sdist), whose
    folders are copied whole."""
    try:
        # An unpacked sdist inside another checkout is not that checkout's: its files are not
        # tracked there, and all of them are taken.
        subprocess.run(["git", "ls-files", "--error-unmatch", "pyproject.toml"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return {Path(name) for name in listed.decode().split("\0") if name and (ROOT / name).is_file()}


def _reproducible(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info
