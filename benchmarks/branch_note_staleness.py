"""Branch-session answer cost with stale multi-target notes (per-target staleness, session 25).

Definitions: a repository of 20 modules x 10 functions; 200 rca notes, each about 3 functions in 3
modules (one of them ``f0``); a branch ``feat`` that changes every module's ``f0``, so every note is
stale on one target and fresh on two. In a branch session: ``search`` (page of 10), ``get`` of a
file and ``get`` of a function, each timed 10 times after one warm call; printed: the median, and
how many times a note was placed (``stratum.placement.place``) per answer (a placement is work the
overlay keeps, so a warm answer should place none). ``--code PATH`` runs another checkout's code (a
``git worktree`` of an older commit) for a side-by-side figure.

    .venv/bin/python benchmarks/branch_note_staleness.py [--code PATH] [--work DIR]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
G = ["git", "-c", "user.name=r", "-c", "user.email=r@x"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", default=str(HERE.parent), help="the checkout whose code runs")
    ap.add_argument("--work", default=str(HERE / ".out" / "branch_note_staleness"))
    args = ap.parse_args()
    sys.path.insert(0, args.code)
    from pipeline.job import index_repository
    from pipeline.overlay import builder
    from stratum import placement
    from stratum.config import EmbedConfig, IndexConfig
    from stratum.tools import Tools

    cfg = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
    w = Path(args.work)
    shutil.rmtree(w, ignore_errors=True)
    repo = w / "repo"
    repo.mkdir(parents=True)

    def write(rate: int) -> None:
        for m in range(20):
            (repo / f"m{m}.py").write_text("".join(f"def f{i}(x):\n    return x * {rate if i == 0 else i}\n\n\n"
                                                   for i in range(10)))

    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    write(1)
    subprocess.run([*G, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*G, "-C", str(repo), "commit", "-qm", "i"], check=True)
    store = str(w / "store")
    index_repository(str(repo), store, cfg)
    t = Tools.open([store], overlay_builder=builder(cfg))
    sid = t.open_session(author="a").data["session"]
    for n in range(200):
        m = n % 20
        t.remember(sid, "rca", f"widget gadget bug number {n}",
                   [f"m{m}.py::f0", f"m{(m + 1) % 20}.py::f{1 + n % 9}", f"m{(m + 2) % 20}.py::f{1 + (n + 3) % 9}"])
    subprocess.run([*G, "-C", str(repo), "checkout", "-q", "-b", "feat"], check=True)
    write(7)
    subprocess.run([*G, "-C", str(repo), "commit", "-qam", "c"], check=True)
    subprocess.run([*G, "-C", str(repo), "checkout", "-q", "main"], check=True)
    calls = [0]
    orig = placement.place

    def counting(*a, **k):              # counts, then places as the code does
        calls[0] += 1
        return orig(*a, **k)

    placement.place = counting
    import stratum.branchcode as bc
    bc.placement.place = counting
    b = t.open_session(branch="feat").data["session"]
    for name, fn in (("search", lambda: t.search(b, "widget gadget bug", page_size=10)),
                     ("get m3.py", lambda: t.get(b, "m3.py", level="summary")),
                     ("get m3.py::f0", lambda: t.get(b, "m3.py::f0", level="summary"))):
        fn()
        calls[0] = 0
        ts = []
        for _ in range(10):
            s = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - s)
        print(f"{name}: median {statistics.median(ts) * 1000:.1f} ms, placements per answer {calls[0] / 10:.0f}")
    t.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
