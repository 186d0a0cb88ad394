"""Helpers shared by the bench/gpu scripts: paths, reading a rocprof-rs dataset, demangling.

Only the standard library and pyarrow, so the checkers run in the GPU machine's torch venv and on
a developer's machine alike (Python 3.11+).
"""

from __future__ import annotations

import ctypes
import glob
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(HERE, "build")


def rocprof_cli() -> str:
    """The rocprof-rs CLI: $ROCPROF, default target/gpu-carry/rocprof-rs (relative to the repo)."""
    path = os.environ.get("ROCPROF", "target/gpu-carry/rocprof-rs")
    return path if os.path.isabs(path) else os.path.join(REPO, path)


# --------------------------------------------------------------------------------------------
# Reading a dataset: DIR/<table>/<stem>-NNNNN.parquet (+ DIR/<stem>.metadata.json per process).


def table_files(dataset: str, table: str) -> list[str]:
    """The complete Parquet files of a table (rocprof-rs writes unfinished ones as dot-files)."""
    return sorted(glob.glob(os.path.join(dataset, table, "*.parquet")))


def has_table(dataset: str, table: str) -> bool:
    return bool(table_files(dataset, table))


def read_table(dataset: str, table: str):
    """The table as one pyarrow Table, or None when it has no file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = table_files(dataset, table)
    if not files:
        return None
    parts = [pq.read_table(f) for f in files]
    if len(parts) == 1:
        return parts[0]
    try:
        return pa.concat_tables(parts, promote_options="default")
    except TypeError:  # pyarrow < 14
        return pa.concat_tables(parts, promote=True)


def read_rows(dataset: str, table: str) -> list[dict[str, Any]]:
    """The table's rows as dicts (dictionary-encoded columns come back as plain strings)."""
    t = read_table(dataset, table)
    return [] if t is None else t.to_pylist()


def read_columns(dataset: str, table: str, columns: list[str]) -> list[dict[str, Any]]:
    """The table's rows, only these columns (those a file has: older formats lack some)."""
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = []
    for f in table_files(dataset, table):
        pf = pq.ParquetFile(f)
        have = [c for c in columns if c in pf.schema_arrow.names]
        rows.extend(pf.read(columns=have).to_pylist())
    return rows


def count_rows(dataset: str, table: str) -> int:
    """Rows in a table, from the Parquet footers only (cheap for large tables)."""
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(f).metadata.num_rows for f in table_files(dataset, table))


def read_metadata(dataset: str) -> list[dict[str, Any]]:
    """Every process's <stem>.metadata.json in the dataset."""
    out = []
    for f in sorted(glob.glob(os.path.join(dataset, "*.metadata.json"))):
        with open(f) as fh:
            try:
                out.append(json.load(fh))
            except json.JSONDecodeError as e:
                out.append({"_file": f, "_error": str(e)})
    return out


def _sum_numbers(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, (int, float)):
        return int(value)
    if isinstance(value, dict):
        return sum(_sum_numbers(v) for v in value.values())
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return 0
    return 0


def dropped_total(metadata: list[dict[str, Any]]) -> int:
    """Records lost, by anyone, over all processes: every number under "dropped" (ours, the
    SDK's or CUPTI's, whatever keys the tool writes) plus any rocprof_rs.*dropped* key."""
    total = 0
    for m in metadata:
        total += _sum_numbers(m.get("dropped", 0))
        for k, v in m.items():
            if k.startswith("rocprof_rs.") and "dropped" in k:
                total += _sum_numbers(v)
    return total


def marker_window(dataset: str, message: str) -> tuple[int, int] | None:
    """[start_ns, end_ns] of the single marker row with this message, or None (absent or
    ambiguous: the caller reports which)."""
    rows = [r for r in read_rows(dataset, "marker") if r.get("message") == message]
    if len(rows) != 1:
        return None
    return int(rows[0]["start_ns"]), int(rows[0]["end_ns"])


def kernels_in_window(dataset: str, window: tuple[int, int]) -> list[dict[str, Any]]:
    """Kernel rows that start and end inside the window (all our tables share one clock)."""
    lo, hi = window
    return [r for r in read_rows(dataset, "kernel_dispatch") if r["start_ns"] >= lo and r["end_ns"] <= hi]


# --------------------------------------------------------------------------------------------
# Demangling: Kineto names kernels with abi::__cxa_demangle; c++filt (libiberty) is the same
# family and is what the plan names. Both are offered; c++filt is the default.


def demangle_cppfilt(names: list[str]) -> dict[str, str]:
    """name -> c++filt's output, in one c++filt process. Names that are not mangled come back
    unchanged. Falls back to __cxa_demangle when c++filt is missing."""
    unique = sorted(set(n for n in names if n))
    if not unique:
        return {}
    exe = shutil.which("c++filt")
    if exe is None:
        return {n: demangle_cxa(n) for n in unique}
    # One name per line; c++filt answers line by line in order.
    out = subprocess.run([exe], input="\n".join(unique) + "\n", capture_output=True, text=True, check=True)
    lines = out.stdout.split("\n")
    return {n: (lines[i] if i < len(lines) else n) for i, n in enumerate(unique)}


_cxa = None


def demangle_cxa(name: str) -> str:
    """abi::__cxa_demangle from libstdc++, as Kineto calls it (the raw name on failure)."""
    global _cxa
    if _cxa is None:
        lib = ctypes.CDLL("libstdc++.so.6")
        fn = lib.__cxa_demangle
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        libc = ctypes.CDLL(None)
        libc.free.argtypes = [ctypes.c_void_p]
        _cxa = (fn, libc.free)
    fn, free = _cxa
    status = ctypes.c_int(0)
    ptr = fn(name.encode(), None, None, ctypes.byref(status))
    if status.value != 0 or not ptr:
        return name
    try:
        return ctypes.string_at(ptr).decode(errors="replace")
    finally:
        free(ptr)


# --------------------------------------------------------------------------------------------
# Verdicts: a list of named checks, each passed or failed with a detail, plus free-form info.


@dataclass
class Verdict:
    label: str
    checks: list[dict[str, Any]] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    def check(self, name: str, ok: bool, detail: Any = None) -> bool:
        self.checks.append({"name": name, "ok": bool(ok), "detail": detail})
        return bool(ok)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c["ok"] for c in self.checks)

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "ok": self.ok,
            "failed": [c["name"] for c in self.checks if not c["ok"]],
            "checks": self.checks,
            "info": self.info,
        }

    def emit(self, out_path: str | None) -> int:
        """Prints a one-line summary per check and the JSON; writes it to out_path; returns the
        exit status (0 when every check passed)."""
        for c in self.checks:
            mark = "PASS" if c["ok"] else "FAIL"
            detail = "" if c["detail"] is None else f"  {_short(c['detail'])}"
            print(f"  {mark} {c['name']}{detail}")
        text = json.dumps(self.as_dict(), indent=1, default=str)
        if out_path:
            with open(out_path, "w") as fh:
                fh.write(text + "\n")
        print(f"VERDICT {self.label}: {'ok' if self.ok else 'FAILED'}"
              f" ({sum(c['ok'] for c in self.checks)}/{len(self.checks)} checks passed)")
        return 0 if self.ok else 1


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
