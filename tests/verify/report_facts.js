// What tests/report_browser.rs checks on a rendered `rocprof-rs report` page, read from the DOM
// after the page's script ran (tests/verify/browser_check.py --facts-js). It also works the
// page: sorts the kernel table by calls and zooms the timeline, and reports what changed.
(() => {
  const all = (selector, root) => Array.from((root || document).querySelectorAll(selector));
  const one = selector => document.querySelector(selector);
  const rows = id => (one("#" + id) ? all("#" + id + " tbody tr") : []);
  const cells = row => Array.from(row.cells).map(c => {
    const holder = c.hasAttribute("data-v") ? c : c.querySelector("[data-v]");
    return holder ? holder.getAttribute("data-v") : c.textContent.trim();
  });

  const sections = {};
  const empty = {};
  all("main > section").forEach(s => {
    sections[s.id] = s.dataset.state;
    const why = s.querySelector(":scope > p.empty");
    if (why) empty[s.id] = why.textContent;
  });
  const figures = {};
  all("#summary .figure").forEach(f => { figures[f.dataset.key] = Number(f.dataset.v); });

  const kernelTable = one("#kernel-table");
  const kernels = rows("kernel-table").map(r => ({ name: r.dataset.name, cells: cells(r) }));

  // Sorting by calls (the second column), largest first on the first click.
  let sortedByCalls = null;
  if (kernelTable) {
    kernelTable.tHead.rows[0].cells[1].click();
    const calls = rows("kernel-table").map(r => Number(cells(r)[1]));
    sortedByCalls = calls.every((c, i) => i === 0 || calls[i - 1] >= c);
    // Back to the page's own order, largest total first, for the screenshot.
    kernelTable.tHead.rows[0].cells[2].click();
  }

  const view = one("#timeline-view");
  let timeline = null;
  if (view) {
    const canvas = one("#timeline-canvas");
    const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    let inked = 0;
    for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] > 0 && pixels[i] < 200) inked++;
    const before = [Number(view.dataset.from), Number(view.dataset.to)];
    view.querySelector("button[data-zoom='in']").click();
    const after = [Number(view.dataset.from), Number(view.dataset.to)];
    view.querySelector("button[data-zoom='reset']").click();
    timeline = {
      lanes: Number(view.dataset.lanes), drawn: Number(view.dataset.drawn), bins: Number(view.dataset.bins),
      inked, span_before: before[1] - before[0], span_zoomed: after[1] - after[0],
    };
  }

  const external = all("[src], link[href], a[href]")
    .map(e => e.getAttribute("src") || e.getAttribute("href"))
    .filter(url => !url.startsWith("#"));

  return {
    title: document.title,
    simulated: !!one("#simulated"),
    sections, empty, figures, external,
    kernel_names: kernelTable ? Number(kernelTable.dataset.names) : null,
    kernel_dispatches: kernelTable ? Number(kernelTable.dataset.dispatches) : null,
    kernels, sorted_by_calls: sortedByCalls,
    bottleneck_kernels: one("#bottleneck-table") ? Number(one("#bottleneck-table").dataset.kernels) : null,
    bottlenecks: rows("bottleneck-table").map(r => ({ name: r.dataset.name, class: r.querySelector("[data-class]").dataset.class })),
    rooflines: all("figure.roofline").map(f => ({
      gpu: f.dataset.gpu, points: Number(f.dataset.points), circles: all("circle.kernel", f).length,
    })),
    coverage_counters: one("#coverage-table") ? Number(one("#coverage-table").dataset.counters) : null,
    devices: rows("device-table").length,
    device_charts: all("#device svg.chart").length,
    energy_kernels: rows("energy-table").map(r => r.dataset.name),
    ranks: rows("rank-table").map(r => r.dataset.name),
    stragglers: rows("straggler-table").map(r => r.dataset.name),
    collectives: rows("collective-table").length,
    diff: one("#diff-table") ? {
      regressions: Number(one("#diff-table").dataset.regressions),
      kernels: Number(one("#diff-table").dataset.kernels),
      caption: one("#diff .caption").textContent,
      rows: rows("diff-table").map(r => ({ name: r.dataset.name, verdict: r.querySelector("[data-verdict]").dataset.verdict })),
    } : null,
    timeline,
  };
})()
