"""Code as it was at another git revision, loaded beside this tree's: the A/B scripts
(rerank_ab.py, searcher_ab.py) run the old and the new version of a module on the same data in
one process, so only the code differs."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def source_at(rev: str, path: str) -> str:
    """The text of ``path`` (relative to the repository) at git revision ``rev``."""
    return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout


def module_from_source(name: str, src: str, origin: str) -> ModuleType:
    """``src`` run as a module importable as ``name`` (registered in sys.modules)."""
    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    exec(compile(src, origin, "exec"), mod.__dict__)
    return mod


__all__ = ["source_at", "module_from_source"]
