"""A fitness evaluator for evolutionary search (seed 001's ProfilingFitness, OpenEvolve's
evaluator interface): run a candidate under the tool, check it, and score it with the CLI's
`score` formula."""

from __future__ import annotations

import concurrent.futures
import math
import multiprocessing
import os
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from ._native import RocprofError
from .dataset import Dataset, Score
from .runner import run, start


def _profiled_call(
    fn: Callable[..., Any],
    args: tuple,
    prepare: Optional[Callable[[], Any]],
    output: str,
    start_options: Mapping[str, Any],
    repeats: int,
) -> str:
    """In a fresh interpreter: `prepare()`, the in-process profile (paused), `fn(*args)` in a
    region `repeats` times, and the dataset's path."""
    if prepare is not None:
        prepare()
    profile = start(output=output, paused=True, **dict(start_options))
    for _ in range(repeats):
        with profile.region():
            fn(*args)
    return str(profile.finish().path)


@dataclass(frozen=True)
class Evaluation:
    """One candidate's result: the score, its parts, and the dataset it came from."""

    score: float
    correctness: float
    latency_us: float
    uncertainty: float
    efficiency: Optional[float]
    joules: Optional[float]
    details: Score
    dataset: Optional[Dataset]
    error: Optional[str] = None

    @classmethod
    def of(cls, details: Score, correctness: float, dataset: Dataset) -> "Evaluation":
        """A scored candidate."""
        return cls(
            score=details.score,
            correctness=correctness,
            latency_us=details.latency_us,
            uncertainty=details.uncertainty,
            efficiency=details.efficiency,
            joules=details.joules,
            details=details,
            dataset=dataset,
        )

    @classmethod
    def failed(cls, correctness: float, error: str) -> "Evaluation":
        """A candidate that could not be run or scored: 0, with the reason."""
        details = Score(0.0, 0.0, float("inf"), float("inf"), 0.0, 0, 0.0, correctness, None, None, None, {})
        return cls(0.0, correctness, float("inf"), 0.0, None, None, details, None, error=error)

    def metrics(self) -> dict[str, float]:
        """OpenEvolve's metrics: `combined_score` and its parts (NaN where unknown)."""
        nan = float("nan")
        return {
            "combined_score": self.score,
            "correctness": self.correctness,
            "latency_us": self.latency_us,
            "uncertainty": self.uncertainty,
            "efficiency": nan if self.efficiency is None else self.efficiency,
            "joules": nan if self.joules is None else self.joules,
        }


class Evaluator:
    """Profiles a candidate program, checks it, and scores it.

    `command(program_path)` gives the command line that runs a candidate (default: the Python
    running this, on the path). `check(program_path)` returns the share of correctness checks
    it passes (0 to 1); an exception in it counts as 0. The score is `rocprof-rs score`'s:
    a wrong candidate scores 0, a correct one at least `correctness_weight`, the rest from its
    kernels' latency against `target_us` (each selected kernel once per iteration), roofline
    efficiency where counters give it, and energy where `energy_weight` > 0.

    `evaluate(program_path)` returns OpenEvolve's metrics dict; `evaluate_full` the whole
    `Evaluation`; `evaluate_callable(fn, ...)` profiles a callable in-process instead. A
    candidate that fails to run scores 0, with the reason in `error`.
    """

    def __init__(
        self,
        *,
        target_us: float,
        check: Optional[Callable[[str], float]] = None,
        command: Optional[Callable[[str], Sequence[str]]] = None,
        kernel: Optional[str] = None,
        correctness_weight: float = 0.5,
        efficiency_weight: float = 0.25,
        energy_weight: float = 0.0,
        energy_target_j: float = 1.0,
        run_options: Optional[Mapping[str, Any]] = None,
        output_root: Optional[os.PathLike[str] | str] = None,
    ) -> None:
        self.target_us = target_us
        self.check = check
        self.command = command or (lambda path: [sys.executable, path])
        self.kernel = kernel
        self.weights = dict(
            correctness_weight=correctness_weight,
            efficiency_weight=efficiency_weight,
            energy_weight=energy_weight,
            energy_target_j=energy_target_j,
        )
        self.run_options = dict(run_options or {})
        if energy_weight > 0 and "device_sample" not in self.run_options:
            self.run_options["device_sample"] = 10
        self.output_root = Path(output_root) if output_root else Path(tempfile.mkdtemp(prefix="rocprof-rs-evaluator-"))
        self._count = 0

    @staticmethod
    def _correctness_of(check: Callable[[], float]) -> float:
        """The share a check returns, clamped to [0, 1]; a failing or NaN check is 0."""
        try:
            value = float(check())
        except Exception:  # noqa: BLE001 - a failing check is a wrong candidate
            return 0.0
        return 0.0 if math.isnan(value) else min(max(value, 0.0), 1.0)

    def _correctness(self, program_path: str) -> float:
        if self.check is None:
            return 1.0
        check = self.check
        return self._correctness_of(lambda: check(program_path))

    def evaluate_full(self, program_path: str) -> Evaluation:
        """Runs, checks and scores one candidate."""
        self._count += 1
        output = self.output_root / f"candidate-{self._count:05d}"
        correctness = self._correctness(program_path)
        try:
            dataset = run(list(self.command(program_path)), output=output, **self.run_options)
            details = dataset.score(target_us=self.target_us, correctness=correctness, kernel=self.kernel, **self.weights)
        except RocprofError as error:
            return Evaluation.failed(correctness, str(error))
        return Evaluation.of(details, correctness, dataset)

    def evaluate_callable(
        self,
        fn: Callable[..., Any],
        *args: Any,
        repeats: int = 10,
        prepare: Optional[Callable[[], Any]] = None,
        start_options: Optional[Mapping[str, Any]] = None,
        check: Optional[Callable[[Callable[..., Any]], float]] = None,
        timeout_s: float = 600.0,
    ) -> Evaluation:
        """Profiles `fn(*args)` `repeats` times in-process, in a fresh interpreter (spawned, so
        the tool starts before its GPU runtime does: `fn` and `prepare` must be importable,
        module-level functions), checks `fn` with `check` (the share of checks passed), and
        scores it. `prepare()` runs in that interpreter before the profile starts; `start_options`
        go to `rocprof_rs.start` (domains, backend, sdk, ...). A candidate that crashes its
        interpreter, or takes longer than `timeout_s`, scores 0 with the reason in `error`."""
        self._count += 1
        output = self.output_root / f"candidate-{self._count:05d}"
        correctness = self._correctness_of(lambda: check(fn)) if check is not None else 1.0
        options = dict(start_options or {})
        if self.weights["energy_weight"] > 0:
            options.setdefault("device_sample", 10)
        try:
            context = multiprocessing.get_context("spawn")
            with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
                task = pool.submit(_profiled_call, fn, args, prepare, str(output), options, repeats)
                try:
                    path = task.result(timeout=timeout_s)
                except concurrent.futures.TimeoutError:
                    for process in list(getattr(pool, "_processes", {}).values()):
                        process.kill()
                    raise RocprofError(f"the candidate took longer than {timeout_s} s") from None
            dataset = Dataset(path)
            details = dataset.score(target_us=self.target_us, correctness=correctness, kernel=self.kernel, **self.weights)
        except Exception as error:  # noqa: BLE001 - a candidate that cannot run scores 0
            return Evaluation.failed(correctness, str(error))
        return Evaluation.of(details, correctness, dataset)

    def evaluate(self, program_path: str) -> dict[str, float]:
        """OpenEvolve's evaluator interface: `evaluate(program_path) -> metrics`."""
        return self.evaluate_full(program_path).metrics()

    def __repr__(self) -> str:
        return f"Evaluator(target_us={self.target_us}, command={shlex.join(self.command('<candidate>'))!r})"
