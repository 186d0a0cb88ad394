"""The `rocprof-rs` console script: runs the wheel's CLI with the same arguments."""

from __future__ import annotations

import os
import sys

from . import _binaries


def main() -> None:
    """Replaces this process with the CLI, so signals and the exit code are the CLI's own."""
    try:
        path = str(_binaries.cli())
    except Exception as error:  # noqa: BLE001 - one line, as the CLI says its errors
        print(f"rocprof-rs: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    os.execv(path, [path, *sys.argv[1:]])
