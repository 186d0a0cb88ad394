"""How a Dataset and its report show in Jupyter: a summary table (`Dataset._repr_html_`) and the
report page in a sandboxed frame (`Report._repr_html_`). Everything shown is escaped; a part
that cannot be read says why in its place rather than failing the whole view."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from .dataset import Dataset

#: How many processes, GPUs and kernels the summary lists.
SHOWN = 10


class Report(str):
    """The report's HTML text (a `str`, equal to the CLI's page), shown inline in Jupyter in a
    sandboxed frame, so its styles and scripts stay its own."""

    def _repr_html_(self) -> str:
        return (
            '<iframe class="rocprof-rs-report" style="width:100%;height:900px;border:1px solid #ccc" '
            f'sandbox="allow-scripts" srcdoc="{html.escape(str(self), quote=True)}"></iframe>'
        )


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_text(v))}</td>" for v in row) + "</tr>" for row in rows)
    return f'<table class="rocprof-rs"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _section(title: str, build: Callable[[], str]) -> str:
    try:
        inner = build()
    except Exception as error:  # noqa: BLE001 - a view never fails for one unreadable part
        inner = f"<p><em>not shown: {html.escape(str(error))}</em></p>"
    return f"<h4>{html.escape(title)}</h4>{inner}"


def _processes(ds: "Dataset") -> str:
    if "process" not in ds.tables():
        return "<p><em>no process table</em></p>"
    t = ds.table("process").to_pylist()
    rows = [(r.get("host"), r.get("rank"), r.get("pid"), r.get("backend"), r.get("records"), r.get("dropped"),
             (r.get("command_line") or "")[:120]) for r in t[:SHOWN]]
    more = f"<p>and {len(t) - SHOWN:,} more</p>" if len(t) > SHOWN else ""
    return _table(["host", "rank", "pid", "backend", "records", "dropped", "command line"], rows) + more


def _gpus(ds: "Dataset") -> str:
    if "agent" not in ds.tables():
        return "<p><em>no agent table</em></p>"
    gpus = [r for r in ds.table("agent").to_pylist() if r.get("agent_type") == "GPU"]
    seen, rows = set(), []
    for r in gpus:
        key = (r.get("pid"), r.get("agent_id"))
        if key in seen:
            continue
        seen.add(key)
        rows.append((r.get("pid"), r.get("logical_index"), r.get("product_name") or r.get("name"), r.get("name"),
                     r.get("cu_count"), r.get("local_mem_bytes")))
    if not rows:
        return "<p><em>no GPU in the agent table</em></p>"
    return _table(["pid", "index", "product", "name", "compute units", "memory bytes"], rows[:SHOWN])


def _kernels(ds: "Dataset") -> str:
    sections = [s for s in ds.stats(["kernel"], top=SHOWN) if s.get("section") == "kernel"] if "kernel_dispatch" in ds.tables() else []
    if not sections:
        return "<p><em>no kernel rows</em></p>"
    section = sections[0]
    rows = [(r["name"][:100], r["calls"], r["total_ns"] / 1e3, r["mean_ns"] / 1e3, f"{r.get('percent', 0):.1f}%")
            for r in section["rows"]]
    notes = "".join(f"<p><em>{html.escape(n)}</em></p>" for n in section.get("notes", []))
    return _table(["kernel", "calls", "total µs", "mean µs", "share"], rows) + notes


def _collected(ds: "Dataset") -> str:
    import pyarrow.dataset as pads

    rows = [(name, pads.dataset(ds._files(name), format="parquet").count_rows()) for name in ds.tables()]
    return _table(["table", "rows"], rows) if rows else "<p><em>no table with complete files</em></p>"


def dataset_html(ds: "Dataset") -> str:
    """The summary `Dataset._repr_html_` shows."""
    parts = [
        f"<h3>rocprof-rs dataset <code>{html.escape(str(ds.path))}</code></h3>",
        _section("What was collected", lambda: _collected(ds)),
        _section("Processes", lambda: _processes(ds)),
        _section("GPUs", lambda: _gpus(ds)),
        _section(f"Top kernels (by total time, at most {SHOWN})", lambda: _kernels(ds)),
    ]
    return '<div class="rocprof-rs-dataset">' + "".join(parts) + "</div>"
