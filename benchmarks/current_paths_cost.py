"""The CPU of ``history.current_paths`` (each file change's path at HEAD) on a store's mined tables,
this tree's against other versions of pipeline/history.py, and whether their answers agree.

Definitions (printed): the tables are the published ``commits`` and ``file_changes`` of STORE; the
files at HEAD are ``git ls-files`` of REPO; each version runs ROUNDS times in turn (CPU seconds of
the call, ``time.process_time``); a version is a history.py file (``--ref FILE``, e.g. ``git show
be60da4:pipeline/history.py > /tmp/h.py``), loaded as its own module beside this tree's packages.
Answers: the number of file changes whose current path differs from this tree's.

Run: .venv/bin/python benchmarks/current_paths_cost.py STORE REPO [--ref FILE ...] [--rounds 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pipeline.history as this  # noqa: E402
import pipeline.stages as stages  # noqa: E402
from stratum.store import Store  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store")
    ap.add_argument("repo")
    ap.add_argument("--ref", action="append", default=[])
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    print(__doc__)
    store = Store(a.store)
    snap = store.snapshot(stages.latest_published(store))
    commits, changes = snap.read("commits"), snap.read("file_changes")
    head = subprocess.run(["git", "-C", a.repo, "ls-files"], capture_output=True, text=True,
                          check=True).stdout.split("\n")[:-1]
    print(f"commits {commits.num_rows}, file changes {changes.num_rows}, files at HEAD {len(head)}")
    versions = {"this tree": this}
    for k, f in enumerate(a.ref):
        spec = importlib.util.spec_from_file_location(f"history_ref{k}", f)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        versions[f] = mod
    got: dict[str, list] = {}
    for r in range(a.rounds):
        for name, mod in versions.items():
            t = time.process_time()
            got[name] = mod.current_paths(changes, commits, head)
            print(f"round {r}: {name}: {time.process_time() - t:.3f} s CPU")
    for name, out in got.items():
        print(f"{name}: {sum(x != y for x, y in zip(out, got['this tree']))} file changes differ from this tree")


if __name__ == "__main__":
    main()
