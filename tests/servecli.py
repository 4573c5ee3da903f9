"""`stratum serve` as a user runs it: a real process, its ready line, and a clean SIGTERM exit."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def stratum_serve(store, *flags: str) -> Iterator[tuple[str, str]]:
    """(ready line, address) of a running `stratum serve --store STORE --port 0 FLAGS`; leaving the
    block sends SIGTERM and checks the process drained: exit 0, no traceback on stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "stratum.cli", "serve", "--store", str(store), "--port", "0",
                             "--grace", "5", *flags], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        line = proc.stdout.readline()
        assert "serving" in line, proc.stderr.read() if proc.poll() is not None else line
        yield line, line.strip().rsplit(" ", 1)[-1]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


__all__ = ["stratum_serve"]
