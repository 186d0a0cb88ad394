"use strict";
// rocprof-rs report: sortable tables and the zoomable timeline. The page reads without it;
// when it has run, <html data-ready="1"> says so (the browser test waits on it).
(function () {
  function duration(ns) {
    const a = Math.abs(ns);
    if (a < 1e3) return ns.toFixed(0) + " ns";
    if (a < 1e6) return (ns / 1e3).toFixed(a < 1e4 ? 2 : 1) + " µs";
    if (a < 1e9) return (ns / 1e6).toFixed(a < 1e7 ? 2 : 1) + " ms";
    return (ns / 1e9).toFixed(3) + " s";
  }

  // Sorting: numbers by their data-v, largest first on the first click; text A to Z.
  function sortValue(cell, numeric) {
    const holder = cell.hasAttribute("data-v") ? cell : cell.querySelector("[data-v]");
    const raw = holder ? holder.getAttribute("data-v") : cell.textContent;
    if (!numeric) return (raw || "").toLowerCase();
    const value = parseFloat(raw);
    return Number.isFinite(value) ? value : -Infinity;
  }

  function makeSortable(table) {
    if (!table.tHead || !table.tBodies.length) return;
    const heads = Array.from(table.tHead.rows[0].cells);
    heads.forEach(function (th, column) {
      function sort() {
        const numeric = th.dataset.type === "num";
        const current = th.getAttribute("aria-sort");
        const ascending = current ? current === "descending" : !numeric;
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        const body = table.tBodies[0];
        const rows = Array.from(body.rows).map(function (row, index) {
          return { row: row, index: index, key: sortValue(row.cells[column], numeric) };
        });
        rows.sort(function (a, b) {
          const order = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
          return (ascending ? order : -order) || a.index - b.index;
        });
        rows.forEach(function (r) { body.appendChild(r.row); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
      });
    });
  }
  document.querySelectorAll("table.sortable").forEach(makeSortable);

  // The timeline: the bins the report carries, aggregated again per pixel column for the
  // range in view.
  function timeline() {
    const source = document.getElementById("timeline-data");
    const canvas = document.getElementById("timeline-canvas");
    const view = document.getElementById("timeline-view");
    if (!source || !canvas || !view) return;
    const data = JSON.parse(source.textContent);
    const lanes = data.lanes || [];
    const bins = lanes.length ? lanes[0].values.length : 0;
    if (!bins) return;
    const readout = document.getElementById("timeline-readout");
    const LABEL = 230, AXIS = 22, ROW = 20, MIN_SPAN = Math.min(4, bins);
    const colours = { kernel: "#2b6cb0", copy: "#2f855a", api: "#b7791f", marker: "#805ad5" };
    let from = 0, to = bins, ratio = 1, plot = 1, columns = [];

    function clamp() {
      const span = Math.min(bins, Math.max(MIN_SPAN, to - from));
      from = Math.min(Math.max(0, from), bins - span);
      to = from + span;
    }

    // Each lane's value per pixel column: the busy share, or calls started.
    function aggregate(lane, count) {
      const values = new Float64Array(count);
      const busy = lane.kind === "kernel" || lane.kind === "copy";
      const step = (to - from) / count;
      for (let c = 0; c < count; c++) {
        const b0 = from + step * c, b1 = b0 + step;
        let sum = 0;
        for (let i = Math.floor(b0); i < b1 && i < bins; i++) {
          const overlap = Math.min(b1, i + 1) - Math.max(b0, i);
          if (overlap > 0) sum += lane.values[i] * overlap;
        }
        values[c] = busy ? sum / (step * 1000) : sum;
      }
      return values;
    }

    // The longest start of `text` that fits `width`, by bisection: a few measurements
    // whatever the label's length.
    const fittedCache = new Map();
    function fitted(ctx, text, width) {
      if (fittedCache.has(text)) return fittedCache.get(text);
      let result = text;
      if (ctx.measureText(text).width > width) {
        let lo = 0, hi = text.length;
        while (lo < hi) {
          const mid = Math.ceil((lo + hi) / 2);
          if (ctx.measureText(text.slice(0, mid) + "…").width <= width) lo = mid; else hi = mid - 1;
        }
        result = text.slice(0, lo) + "…";
      }
      fittedCache.set(text, result);
      return result;
    }

    function niceStep(span) {
      const rough = span / 6, power = Math.pow(10, Math.floor(Math.log10(rough)));
      const m = [1, 2, 5, 10].find(function (k) { return k * power >= rough; });
      return m * power;
    }

    function draw() {
      const width = Math.max(400, canvas.clientWidth || view.clientWidth || 800);
      const height = AXIS + ROW * lanes.length + 4;
      ratio = window.devicePixelRatio || 1;
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
      canvas.style.height = height + "px";
      const ctx = canvas.getContext("2d");
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, width, height);
      plot = width - LABEL;
      const count = Math.max(1, Math.floor(plot));
      const t0 = from * data.bin_ns, t1 = to * data.bin_ns;
      ctx.font = "11px system-ui, 'DejaVu Sans', sans-serif";
      ctx.textBaseline = "middle";
      const step = niceStep(t1 - t0);
      for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
        const x = LABEL + (t - t0) / (t1 - t0) * plot;
        ctx.fillStyle = "#e6e9ed";
        ctx.fillRect(Math.round(x), AXIS - 4, 1, height - AXIS + 4);
        ctx.fillStyle = "#5b6673";
        ctx.fillText(duration(t), x + 3, AXIS / 2);
      }
      columns = lanes.map(function (lane, row) {
        const y = AXIS + row * ROW;
        ctx.fillStyle = row % 2 ? "#f7f9fb" : "#ffffff";
        ctx.fillRect(LABEL, y, plot, ROW);
        ctx.fillStyle = "#1d232b";
        ctx.fillText(fitted(ctx, lane.label, LABEL - 10), 4, y + ROW / 2);
        const values = aggregate(lane, count);
        const busy = lane.kind === "kernel" || lane.kind === "copy";
        let peak = 0;
        values.forEach(function (v) { if (v > peak) peak = v; });
        const scale = busy ? 1 : peak > 0 ? 1 / peak : 0;
        ctx.fillStyle = colours[lane.kind] || "#555";
        for (let c = 0; c < count; c++) {
          const v = Math.min(1, values[c] * scale);
          if (v > 0) {
            const bar = Math.max(1, v * (ROW - 4));
            ctx.fillRect(LABEL + c, y + ROW - 2 - bar, 1, bar);
          }
        }
        return values;
      });
      view.dataset.drawn = String(lanes.length);
      view.dataset.from = String(from);
      view.dataset.to = String(to);
    }

    function binAt(x) {
      return from + (x - LABEL) / plot * (to - from);
    }

    function zoom(factor, anchor) {
      const span = to - from, next = Math.min(bins, Math.max(MIN_SPAN, span * factor));
      from = anchor - (anchor - from) * next / span;
      to = from + next;
      clamp();
      draw();
    }

    canvas.addEventListener("wheel", function (e) {
      const x = e.offsetX;
      if (x < LABEL) return;
      e.preventDefault();
      zoom(e.deltaY > 0 ? 1.25 : 0.8, binAt(x));
    }, { passive: false });

    let drag = null;
    canvas.addEventListener("mousedown", function (e) { drag = { x: e.clientX, from: from }; });
    window.addEventListener("mouseup", function () { drag = null; });
    window.addEventListener("mousemove", function (e) {
      if (!drag) return;
      const shift = (e.clientX - drag.x) / plot * (to - from);
      const span = to - from;
      from = drag.from - shift;
      to = from + span;
      clamp();
      draw();
    });
    canvas.addEventListener("dblclick", function () { from = 0; to = bins; draw(); });
    canvas.addEventListener("mousemove", function (e) {
      const x = e.offsetX, row = Math.floor((e.offsetY - AXIS) / ROW);
      if (x < LABEL || row < 0 || row >= lanes.length) { readout.textContent = "\u00a0"; return; }
      const lane = lanes[row], c = Math.floor(x - LABEL), v = columns[row] ? columns[row][c] || 0 : 0;
      const at = duration(binAt(x) * data.bin_ns);
      const what = lane.kind === "kernel" || lane.kind === "copy"
        ? (v * 100).toFixed(0) + "% busy" : v.toFixed(v < 10 ? 1 : 0) + " calls started per pixel";
      readout.textContent = at + " · " + lane.label + ": " + what;
    });
    view.querySelectorAll("button[data-zoom]").forEach(function (button) {
      button.addEventListener("click", function () {
        const middle = (from + to) / 2;
        if (button.dataset.zoom === "in") zoom(0.5, middle);
        else if (button.dataset.zoom === "out") zoom(2, middle);
        else { from = 0; to = bins; draw(); }
      });
    });
    window.addEventListener("resize", draw);
    draw();
  }
  timeline();
  document.documentElement.dataset.ready = "1";
})();
