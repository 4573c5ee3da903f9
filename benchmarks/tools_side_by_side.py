"""In-process tool latency of two versions of the code, side by side, on the same store.

    python benchmarks/tools_side_by_side.py --store PATH [--baseline COMMIT] [--calls 200] [--rounds 4]
                                           [--notes 0 50] [--only stratum/tools.py ...]

Why: issue 11 split ``stratum/tools.py`` by concern (memory, sessions, render) and issue 12.3 made
get/walk/prefetch items carry the notes about them; neither may make the tools slower beyond noise.

Definitions (printed with the results):
- sides: the ``stratum`` package at ``--baseline`` (``git archive`` into a scratch directory) and the
  working tree's; each side runs in its own Python process over its own copy of the store. With
  ``--only FILES`` the baseline is the working tree with just those files as they were at the
  baseline commit (the change alone, not everything other work committed since).
- workload: the grpc_latency workload (benchmarks/grpc_latency.workload, seed 7): get = code node
  ids at level api; walk = file ids, all edge kinds, out, page 20; search = node names and summary
  words, page 10 (the same queries were asked in warm-up, so their vectors are cached: search
  without embedding); plus get of file ids at level full (where a file's notes and its symbols'
  notes are gathered) and tree of the root, depth 2, page 50.
- notes: before timing, each side writes N rca notes about random files and symbols (the same
  seed, both sides): 0 shows the cost of the new code with nothing to attach; N > 0 adds it.
- rounds: A then B, ``--rounds`` times (ABAB...), so load from other processes falls on both; each
  round times ``--calls`` calls per tool after 20 warm-up calls. p50 / p99 over all rounds, ms.
- sessions have a 10^9-token budget: this measures the tools, not eviction.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BASELINE = "178f527~1"      # the commit before the tools split


def _worker(store: str, calls: int, notes: int) -> None:
    """Runs inside one side's process: time every tool, print one JSON line."""
    from stratum.tools import Tools          # first: this side's stratum (PYTHONPATH), before
    sys.path.insert(0, str(ROOT / "benchmarks"))   # grpc_latency puts the working tree on the path
    from grpc_latency import time_calls, workload

    print(f"side: {Tools.__module__} from {sys.modules['stratum.tools'].__file__}", file=sys.stderr)

    tools = Tools.open([store])
    s = tools.open_session(author="bench", budget=10 ** 9).data["session"]
    sh = tools.shards.shards[0]
    kinds, ids = sh.col("kind"), sh.col("id")
    files = [i for i, k in enumerate(kinds) if k == "file"]
    code = [i for i, k in enumerate(kinds) if k in ("file", "class", "function", "method")]
    rng = random.Random(11)
    for n in range(notes):
        tools.remember(s, "rca", f"bench note {n}: the cause is in this code", about=[ids[rng.choice(code)]])
    w = workload(tools, calls)
    w["get (file, full)"] = [{"target": ids[i], "level": "full"} for i in random.Random(5).choices(files, k=calls)]
    w["tree"] = [{"path": "", "depth": 2, "page_size": 50}] * calls
    for a in w["search"]:                      # the query vectors are cached from here on
        tools.search(s, **a)
    out = {}
    for name, args in w.items():
        fn = getattr(tools, name.split(" ")[0])
        ms = time_calls(fn, s, args)
        out[name] = ms
    print(json.dumps(out))
    tools.close()


def _side(code_root: Path, store: Path, calls: int, notes: int, tmp: Path) -> dict:
    copy = tmp / f"store-{os.getpid()}-{time.monotonic_ns()}"
    shutil.copytree(store, copy, ignore=shutil.ignore_patterns("deltalog"))
    env = {**os.environ, "PYTHONPATH": f"{code_root}{os.pathsep}{ROOT}"}
    p = subprocess.run([sys.executable, __file__, "--worker", str(copy), "--calls", str(calls),
                        "--notes", str(notes)], env=env, capture_output=True, text=True, cwd=code_root)
    shutil.rmtree(copy, ignore_errors=True)
    if p.returncode != 0:
        raise SystemExit(f"side {code_root} failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _baseline_tree(commit: str, tmp: Path, only: list[str]) -> Path:
    dst = tmp / "baseline"
    dst.mkdir()
    if only:
        shutil.copytree(ROOT / "stratum", dst / "stratum", ignore=shutil.ignore_patterns("__pycache__"))
        for rel in only:
            old = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{rel}"], capture_output=True)
            if old.returncode == 0:
                (dst / rel).write_bytes(old.stdout)
            else:                                   # new since the baseline: absent there
                (dst / rel).unlink(missing_ok=True)
        return dst
    data = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit, "stratum"],
                          capture_output=True, check=True).stdout
    with tarfile.open(fileobj=__import__("io").BytesIO(data)) as tf:
        tf.extractall(dst, filter="data")
    return dst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store")
    ap.add_argument("--baseline", default=DEFAULT_BASELINE)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--notes", type=int, nargs="+", default=[0])
    ap.add_argument("--only", nargs="*", default=[], help="baseline = working tree with only these files reverted")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        _worker(a.worker, a.calls, a.notes[0])
        return
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from grpc_latency import machine, pct

    print(__doc__.split("Definitions")[1].strip().lstrip("(printed with the results):").strip())
    print(f"\nmachine: {machine()}; load average {os.getloadavg()[0]:.1f}; store {a.store}; "
          f"baseline {a.baseline}{' (only ' + ' '.join(a.only) + ')' if a.only else ''}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        base = _baseline_tree(a.baseline, tmp, a.only)
        for notes in a.notes:
            res: dict[str, dict[str, list[float]]] = {"baseline": {}, "now": {}}
            for _ in range(a.rounds):
                for side, root in (("baseline", base), ("now", ROOT)):
                    for tool, ms in _side(root, Path(a.store), a.calls, notes, tmp).items():
                        res[side].setdefault(tool, []).extend(ms)
            print(f"\n{notes} unmerged notes | baseline p50 / p99 ms | now p50 / p99 ms | p50 now / baseline")
            print("|---|---|---|---|")
            for tool in res["now"]:
                b, n = res["baseline"].get(tool), res["now"][tool]
                bs = f"{pct(b, 50):.3f} / {pct(b, 99):.3f}" if b else "-"
                ratio = f"{pct(n, 50) / pct(b, 50):.2f}" if b else "-"
                print(f"| {tool} | {bs} | {pct(n, 50):.3f} / {pct(n, 99):.3f} | {ratio} |")


if __name__ == "__main__":
    main()
