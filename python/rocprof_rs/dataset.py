"""A dataset a run (or `rocprof-rs import`) wrote: its tables as pyarrow, and the CLI's numbers."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from . import _html, _native
from ._html import Report
from ._native import RocprofError

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import polars
    import pyarrow

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class Score:
    """`rocprof-rs score`'s result: the fitness and its parts (see `Dataset.score`)."""

    score: float
    uncertainty: float
    latency_us: float
    median_us: float
    standard_error_us: float
    repeats: int
    latency_term: float
    correctness: float
    efficiency: Optional[float]
    joules: Optional[float]
    energy_term: Optional[float]
    config: dict = field(default_factory=dict)

    @classmethod
    def from_json(cls, text: str) -> "Score":
        data = json.loads(text)
        return cls(**{name: data.get(name) for name in cls.__dataclass_fields__})


class Dataset:
    """The dataset in `path`. Tables are read with pyarrow; statistics, analysis, diffs and
    scores are computed by the same Rust code as the CLI's, with the GIL released.

    >>> ds = Dataset("rocprof-rs-output")            # doctest: +SKIP
    >>> ds.table("kernel_dispatch").num_rows        # doctest: +SKIP
    """

    def __init__(self, path: PathLike) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise RocprofError(f"{self.path}: not a directory (give the directory a run or an import wrote)")

    def __repr__(self) -> str:
        return f"Dataset({str(self.path)!r})"

    def _repr_html_(self) -> str:
        """Jupyter's view: what was collected (tables and rows), the processes, the GPUs and
        the top kernels."""
        return _html.dataset_html(self)

    def tables(self) -> list[str]:
        """The tables with files, by name (`kernel_dispatch`, `hip_api`, ...)."""
        return sorted(p.name for p in self.path.iterdir() if p.is_dir() and any(self._files(p.name)))

    def _files(self, name: str) -> list[str]:
        folder = self.path / name
        if not folder.is_dir():
            return []
        # Complete files only: the tool writes under a hidden name and renames when done.
        return sorted(
            str(p) for p in folder.rglob("*.parquet") if not any(part.startswith((".", "_")) for part in p.relative_to(folder).parts)
        )

    def table(self, name: str) -> "pyarrow.Table":
        """Every file of table `name` as one pyarrow Table (empty names raise)."""
        import pyarrow.dataset as ds

        files = self._files(name)
        if not files:
            known = ", ".join(self.tables()) or "none"
            raise RocprofError(f"{self.path}: no {name} table (tables here: {known})")
        try:
            return ds.dataset(files, format="parquet").to_table()
        except Exception as error:  # pyarrow's own errors, said in ours
            raise RocprofError(f"{self.path / name}: {error}") from error

    def to_pandas(self, name: str) -> "pandas.DataFrame":
        """Table `name` as a pandas DataFrame (needs pandas)."""
        return self.table(name).to_pandas()

    def to_polars(self, name: str) -> "polars.DataFrame":
        """Table `name` as a polars DataFrame (needs polars)."""
        import polars

        return polars.from_arrow(self.table(name))

    def stats(
        self,
        sections: Optional[Sequence[str]] = None,
        *,
        pid: Optional[int] = None,
        rank: Optional[int] = None,
        by_rank: bool = False,
        top: Optional[int] = None,
    ) -> list[dict[str, Any]]:
        """The `sections` of `rocprof-rs stats --format json`: per section (kernel, hip_api,
        memory_copy, marker), per name: calls, total, mean, min, max, stddev and percentiles in
        ns, and share."""
        text = _native.stats_json(str(self.path), list(sections) if sections else None, pid, rank, by_rank, top)
        return json.loads(text)

    def stats_frame(self, section: str = "kernel", **options: Any) -> "pandas.DataFrame":
        """One section of `stats` as a pandas DataFrame, a row per name (needs pandas)."""
        import pandas

        rows: list[dict[str, Any]] = []
        for s in self.stats([section], **options):
            for row in s["rows"]:
                rows.append({"rank": s.get("rank"), **row} if "rank" in s else row)
        return pandas.DataFrame(rows)

    def device(self, *, pid: Optional[int] = None) -> Optional[dict[str, Any]]:
        """The `device` of `rocprof-rs stats --section device --format json`: each GPU's power,
        energy, clocks and memory, and energy by kernel and marker range; None without device
        samples."""
        text = _native.device_json(str(self.path), pid)
        return None if text is None else json.loads(text)

    def analyze(
        self,
        *,
        kernel: Optional[str] = None,
        gpu: Optional[str] = None,
        pid: Optional[int] = None,
        timings: Optional[PathLike] = None,
        samples: Optional[PathLike] = None,
        roofs: Optional[PathLike] = None,
    ) -> dict[str, Any]:
        """`rocprof-rs analyze --format json`: per kernel its roofline position, bottleneck
        class (and `kernel_class`, by its work alone), evidence and recommendations; the GPUs'
        ceilings; notes; throttled kernels. `timings` and `samples` name other runs of the same
        program whose dispatch times and PC samples stand in for this one's. `roofs` is a file
        `rocprof-rs doctor --measure-roofs` kept, or "datasheet"; by default the roofs the
        dataset carries, else those kept for a GPU of its kind."""
        timings = None if timings is None else str(timings)
        samples = None if samples is None else str(samples)
        roofs = None if roofs is None else str(roofs)
        return json.loads(_native.analyze_json(str(self.path), kernel, gpu, pid, timings, samples, roofs))

    def report(
        self,
        path: Optional[PathLike] = None,
        *,
        baseline: Union["Dataset", PathLike, None] = None,
        gpu: Optional[str] = None,
        top: int = 50,
        bins: int = 4000,
        step_marker: Optional[str] = None,
    ) -> Union[Report, Path]:
        """`rocprof-rs report`: the self-contained HTML page of this run (summary, top kernels,
        timeline, rooflines, bottlenecks, counter coverage, device telemetry, ranks, and with
        `baseline` the diff against it). Returns the HTML text (a `str` that Jupyter shows
        inline, in a sandboxed frame), or with `path` writes it there (whole or not at all) and
        returns the path."""
        base = None if baseline is None else str(baseline.path if isinstance(baseline, Dataset) else baseline)
        html = _native.report_html(str(self.path), base, gpu, top, bins, step_marker)
        if path is None:
            return Report(html)
        target = Path(path)
        # A rename would put a file in place of a device or FIFO (as root, over /dev/null).
        if target.exists() and not target.is_file():
            raise RocprofError(f"{target}: not a regular file (a device, FIFO or folder is never replaced by a report)")
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        try:
            partial.write_text(html, encoding="utf-8")
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        return target

    def diff(
        self,
        other: Union["Dataset", PathLike],
        *,
        threshold: float = 0.02,
        confidence: float = 0.99,
        pid: Optional[int] = None,
    ) -> dict[str, Any]:
        """`rocprof-rs diff SELF OTHER --format json`: this run is the baseline; per kernel the
        verdict (regressed, improved, unchanged, new, missing), change and confidence."""
        other_path = other.path if isinstance(other, Dataset) else Path(other)
        return json.loads(_native.diff_json(str(self.path), str(other_path), threshold, confidence, pid))

    def score(
        self,
        *,
        target_us: float = 20.0,
        correctness: float = 1.0,
        correctness_weight: float = 0.5,
        efficiency_weight: float = 0.25,
        energy_weight: float = 0.0,
        energy_target_j: float = 1.0,
        kernel: Optional[str] = None,
        gpu: Optional[str] = None,
    ) -> Score:
        """`rocprof-rs score --format json`: the fitness of this run's kernels, each once per
        iteration, against `target_us` (and energy, where weighed)."""
        text = _native.score_json(
            str(self.path),
            target_us,
            correctness,
            correctness_weight,
            efficiency_weight,
            energy_weight,
            energy_target_j,
            kernel,
            gpu,
            100,
        )
        return Score.from_json(text)
