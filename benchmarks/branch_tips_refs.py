"""The cost of the same-HEAD "up to date" check of the branches a note merge asked of
(``RunReport.branch_tips``, ``storestate.up_to_date``) in a repository with many refs.

Definitions (printed): a two-commit repository made with git under .tmp, plus N tags and N
remote-tracking refs packed (``git pack-refs --all``); the time of ``BranchHeld.moved(tips)`` for one
recorded branch, reading every ref (``BranchHeld(repo)``, the first version) and reading only the
refs the recorded names may be (``BranchHeld(repo, only=tips)``, what ``up_to_date`` does); the
median of 5 calls each, in turn.

Run: .venv/bin/python benchmarks/branch_tips_refs.py [--refs 50000]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--refs", type=int, default=50000, help="tags, and as many remote-tracking refs")
    n = ap.parse_args().refs
    print(__doc__.split("Run:")[0].strip(), "\n")
    from pipeline.branchheld import BranchHeld
    from tests.gitrepo import Repo, git

    (ROOT / ".tmp").mkdir(exist_ok=True)
    r = Repo(Path(tempfile.mkdtemp(dir=ROOT / ".tmp")) / "repo")
    r.commit("init", {"a.py": "def a():\n    return 1\n"})
    git(r.path, "branch", "release-1")
    head = r.commit("more", {"b.py": "def b():\n    return 2\n"})
    pr = Path(r.path, ".git", "packed-refs")
    pr.write_text("# pack-refs with: peeled fully-peeled sorted\n"
                  + "".join(f"{head} refs/tags/t{i}\n" for i in range(n))
                  + "".join(f"{head} refs/remotes/origin/pr/{i}\n" for i in range(n)))
    subprocess.run(["git", "-C", str(r.path), "pack-refs", "--all"], check=True)
    tips = {"release-1": BranchHeld(r.path).tip("release-1")}
    every, only = [], []
    for _ in range(5):
        t = time.perf_counter()
        assert not BranchHeld(r.path).moved(tips)
        every.append(time.perf_counter() - t)
        t = time.perf_counter()
        assert not BranchHeld(r.path, only=list(tips)).moved(tips)
        only.append(time.perf_counter() - t)
    print(f"| refs | every ref read | only the recorded names' refs | ratio |\n|---|---|---|---|\n"
          f"| {2 * n:,} | {statistics.median(every):.3f} s | {statistics.median(only):.4f} s | "
          f"{statistics.median(every) / statistics.median(only):.0f}x |")


if __name__ == "__main__":
    main()
