"""The dataset in Jupyter: its HTML summary, its report shown inline, and a notebook run end to
end by nbclient (SIMULATED: no GPU)."""

from __future__ import annotations

import html
import os
from pathlib import Path

import pytest

import rocprof_rs


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, sim_command):
    root = tmp_path_factory.mktemp("notebook")
    return rocprof_rs.run(sim_command(1500, seed=4), output=root / "run", hip_trace=True)


def test_the_dataset_shows_what_was_collected_its_processes_gpus_and_top_kernels(dataset):
    page = dataset._repr_html_()
    top = dataset.stats(["kernel"], top=1)[0]["rows"][0]["name"]
    for expected in ("What was collected", "kernel_dispatch", "1,500", "Processes", "GPUs", "Top kernels",
                     html.escape(top[:100])):
        assert expected in page, expected
    assert "not shown" not in page, page
    # Names are escaped: a kernel's template brackets never become markup.
    assert "<anonymous" not in page and "<(" not in page


def test_a_part_that_cannot_be_read_says_why_in_its_place(dataset, tmp_path):
    broken = tmp_path / "broken"
    (broken / "kernel_dispatch").mkdir(parents=True)
    (broken / "kernel_dispatch" / "x.parquet").write_bytes(b"not parquet")
    page = rocprof_rs.Dataset(broken)._repr_html_()
    assert "not shown" in page and "rocprof-rs dataset" in page


def test_the_report_is_a_str_that_jupyter_shows_in_a_sandboxed_frame(dataset):
    report = dataset.report(top=5)
    assert isinstance(report, str) and report.startswith("<!DOCTYPE html>")
    frame = report._repr_html_()
    assert frame.startswith("<iframe") and 'sandbox="allow-scripts"' in frame
    assert html.unescape(frame.split('srcdoc="', 1)[1].rsplit('"></iframe>', 1)[0]) == report


def test_a_notebook_shows_the_dataset_and_its_report_when_run_by_nbclient(dataset, monkeypatch):
    if os.environ.get("CI"):
        import nbclient  # CI installs it: a missing one is a failure there
        import nbformat
    else:
        nbclient = pytest.importorskip("nbclient")
        nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.read(Path(__file__).with_name("dataset_view.ipynb"), as_version=4)
    monkeypatch.setenv("ROCPROF_RS_NOTEBOOK_DATASET", str(dataset.path))
    nbclient.NotebookClient(notebook, kernel_name="python3", timeout=180).execute()
    code = [c for c in notebook.cells if c.cell_type == "code"]
    summary = [o for o in code[0].outputs if "text/html" in o.get("data", {})]
    assert summary and "Top kernels" in summary[0]["data"]["text/html"], code[0].outputs
    report = [o for o in code[1].outputs if "text/html" in o.get("data", {})]
    assert report and report[0]["data"]["text/html"].startswith("<iframe"), code[1].outputs
