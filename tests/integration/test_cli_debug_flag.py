"""STRATUM_DEBUG=0 keeps tracebacks off (any value turned them on: an operations probe)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _status(tmp_path, debug: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STRATUM_DEBUG": debug}
    damaged = tmp_path / "store"
    (damaged / "manifests").mkdir(parents=True, exist_ok=True)
    (damaged / "manifest.json").write_text("{ torn")
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "status", "--store", str(damaged)],
                       capture_output=True, text=True, timeout=120, env=env, cwd=str(tmp_path))
    assert p.returncode != 0
    return p.stderr


def test_debug_zero_is_off_and_one_is_on(tmp_path):
    assert "Traceback" not in _status(tmp_path, "0")
    assert "Traceback" in _status(tmp_path, "1")
