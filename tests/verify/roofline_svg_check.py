#!/usr/bin/env python3
"""Checks the structure of a roofline chart `rocprof-rs analyze --svg` wrote.

    roofline_svg_check.py FILE KERNELS [CLASS ...]

It must parse as XML with an <svg> root and a viewBox; hold exactly KERNELS kernel points
(circles of class "kernel"), each inside the chart, with a tooltip; and the CLASSes given
must be among the points' classes. It must draw at least one memory roof and one compute roof,
memory roofs rising left to right and compute roofs flat, and label both axes.
"""

import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def main() -> int:
    path, kernels, classes = sys.argv[1], int(sys.argv[2]), set(sys.argv[3:])
    root = ET.parse(path).getroot()
    problems = []
    if root.tag != NS + "svg":
        problems.append(f"root is {root.tag}, not svg")
    _, _, width, height = (float(v) for v in root.get("viewBox", "0 0 0 0").split())
    if width <= 0 or height <= 0:
        problems.append("no viewBox")
    points = [c for c in root.iter(NS + "circle") if c.get("class") == "kernel"]
    if len(points) != kernels:
        problems.append(f"{len(points)} kernel points, expected {kernels}")
    for c in points:
        x, y = float(c.get("cx")), float(c.get("cy"))
        if not (0 <= x <= width and 0 <= y <= height):
            problems.append(f"point {c.get('data-kernel')} at ({x}, {y}) is outside the chart")
        if c.find(NS + "title") is None or not c.find(NS + "title").text:
            problems.append(f"point {c.get('data-kernel')} has no tooltip")
    seen = {c.get("data-class") for c in points}
    if not classes <= seen:
        problems.append(f"classes {sorted(classes - seen)} missing (points have {sorted(seen)})")
    lines = list(root.iter(NS + "line"))
    memory = [l for l in lines if l.get("class") == "roof memory"]
    compute = [l for l in lines if l.get("class") == "roof compute"]
    if not memory or not compute:
        problems.append(f"{len(memory)} memory roofs and {len(compute)} compute roofs")
    for l in memory:
        # SVG's y grows downwards: a rising roof has y2 < y1.
        if not (float(l.get("x2")) > float(l.get("x1")) and float(l.get("y2")) < float(l.get("y1"))):
            problems.append(f"memory roof {l.get('data-level')} does not rise")
    for l in compute:
        if l.get("y1") != l.get("y2"):
            problems.append("a compute roof is not flat")
    labels = [t.text or "" for t in root.iter(NS + "text") if t.get("class") == "label"]
    if not any("intensity" in t for t in labels) or not any("TFLOP/s" in t for t in labels):
        problems.append(f"axis labels missing: {labels}")
    for p in problems:
        print(p)
    print("ok" if not problems else "problems found")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
