"""E3 (paper F3, "structure sees only half"): are co-edited files linked in the code structure?

Paper: across 852 commits / 3,695 co-edited file pairs (Django, Flask, scikit-learn, requests),
76.5% of co-edited pairs have no direct import edge; with transitive import reachability and test
links (test_x <-> x) 47.3% are still disconnected; co-edited pairs are 26x more likely than random
pairs to share an import edge (23.5% vs 0.9%).

Definitions (printed with every run):
- commits: non-merge commits reachable from HEAD changing 2..--max-files files (pipeline.history;
  renames followed), of which at least two are source files (languages we parse) that still exist
  at HEAD; --last N keeps the newest N such commits (0: all).
- co-edited pair: two distinct such source files (current paths) changed by one commit. Pairs are
  counted once per repository (unique pairs); per-commit occurrences are also reported.
- structure (HEAD snapshot, pipeline.parse + pipeline.imports + pipeline.testlinks, as indexed):
  * direct import: a imports b or b imports a;
  * transitive: b reachable from a, or a from b, along import edges;
  * + tests: transitive, or a test link between the two (test_x <-> x, found by name or by what
    the test imports; pipeline.testlinks);
  * disconnected: neither. (Letting paths run through test links both ways would connect almost
    every pair through the package __init__ that tests import, so test links count only directly.)
- random control: as many pairs as co-edited ones, drawn uniformly (seed --seed) from all pairs of
  source files at HEAD; the same four checks.
- ratio: share of co-edited pairs with a direct import edge / the same share for random pairs.

Usage: .venv/bin/python benchmarks/e3_cochange_structure.py REPO [REPO...] [--max-files 30] [--last 0]
The commits used go to benchmarks/results/e3_<name>_commits.csv, the pairs to e3_<name>_pairs.csv.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from collections import deque
from itertools import combinations
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from e2_bugfix_selection import head_snapshot  # noqa: E402

from pipeline import languages  # noqa: E402
from pipeline.history import mine  # noqa: E402


def reach(adj: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = {start}, deque([start])
    while todo:
        for n in adj.get(todo.popleft(), ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


class Structure:
    def __init__(self, imports: set[tuple[str, str]], tests: set[tuple[str, str]]):
        self.direct = imports | {(b, a) for a, b in imports}
        self.tests = tests | {(b, a) for a, b in tests}
        self.imp: dict[str, set[str]] = {}
        for a, b in imports:
            self.imp.setdefault(a, set()).add(b)
        self._reach: dict[str, set[str]] = {}

    def reach(self, a: str) -> set[str]:
        if a not in self._reach:
            self._reach[a] = reach(self.imp, a)
        return self._reach[a]

    def classify(self, a: str, b: str) -> dict[str, bool]:
        direct = (a, b) in self.direct
        trans = b in self.reach(a) or a in self.reach(b)
        withtests = trans or (a, b) in self.tests
        return {"direct": direct, "transitive": trans, "with_tests": withtests, "disconnected": not withtests}


def shares(pairs: list[tuple[str, str]], st: Structure) -> dict[str, float]:
    if not pairs:
        return {k: float("nan") for k in ("direct", "transitive", "with_tests", "disconnected")}
    cls = [st.classify(a, b) for a, b in pairs]
    return {k: sum(c[k] for c in cls) / len(cls) for k in cls[0]}


def run(repo: Path, max_files: int, last: int, seed: int, out_dir: Path) -> dict:
    t0 = time.perf_counter()
    res = mine(repo)
    snap = head_snapshot(repo)
    present_src = {p for p in snap.source}
    files: dict[str, list[dict]] = {}
    for fc in res.file_changes.to_pylist():
        files.setdefault(fc["sha"], []).append(fc)
    used = []
    for c in res.commits.to_pylist():                         # newest first
        changed = files.get(c["sha"], [])
        if c["is_merge"] or not (2 <= len(changed) <= max_files):
            continue
        src = sorted({x["current_path"] for x in changed if x["current_path"] in present_src})
        if len(src) < 2:
            continue
        used.append({"sha": c["sha"], "date": c["committed_at"].date().isoformat(),
                     "subject": c["message"].split("\n", 1)[0][:120], "files": len(changed), "source_files": src})
        if last and len(used) >= last:
            break
    occurrences = [p for u in used for p in combinations(u["source_files"], 2)]
    pairs = sorted(set(occurrences))
    st = Structure(snap.imports, snap.tests)
    co = shares(pairs, st)
    co_occ = shares(occurrences, st)
    rng = random.Random(seed)
    universe = sorted(snap.source)
    rand = []
    if len(universe) >= 2:
        for _ in range(len(pairs)):
            a, b = rng.sample(universe, 2)
            rand.append((min(a, b), max(a, b)))
    rnd = shares(rand, st)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / f"e3_{repo.name}_commits.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["sha", "date", "subject", "files", "source_files"])
        for u in used:
            w.writerow([u["sha"], u["date"], u["subject"], u["files"], " ".join(u["source_files"])])
    with open(out_dir / f"e3_{repo.name}_pairs.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["a", "b", "direct", "transitive", "with_tests"])
        for a, b in pairs:
            c = st.classify(a, b)
            w.writerow([a, b, int(c["direct"]), int(c["transitive"]), int(c["with_tests"])])
    return {
        "repo": repo.name, "head": res.head, "commits_used": len(used), "pairs": len(pairs),
        "pair_occurrences": len(occurrences), "source_files": len(universe), "import_edges": len(snap.imports),
        "test_links": len(snap.tests), "co": co, "co_occurrences": co_occ, "random": rnd,
        "direct_ratio": (co["direct"] / rnd["direct"]) if rnd["direct"] else None,
        "languages": sorted({languages.language_for_path(p) for p in universe}),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def pct(x) -> str:
    return "-" if x != x else f"{100 * x:.1f}%"


def main() -> int:
    ap = argparse.ArgumentParser(description="E3: co-edited pairs vs code structure")
    ap.add_argument("repos", nargs="*", default=[str(HERE / ".repos" / n) for n in ("flask", "requests", "werkzeug")])
    ap.add_argument("--max-files", type=int, default=30)
    ap.add_argument("--last", type=int, default=0, help="newest N qualifying commits (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(HERE / "results"))
    args = ap.parse_args()
    print(__doc__.split("Usage:")[0])
    print(f"max files per commit: {args.max_files}; last: {args.last or 'all'}; seed: {args.seed}\n"
          f"command: {' '.join(sys.argv)}\n")
    results = []
    for r in args.repos:
        s = run(Path(r).resolve(), args.max_files, args.last, args.seed, Path(args.out))
        results.append(s)
        print(json.dumps(s))
    print("\n| repo | commits | co-edited pairs | no direct import | not transitively reachable "
          "| disconnected (transitive + tests) | random: disconnected | direct import: co-edited vs random | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in results:
        ratio = f"{s['direct_ratio']:.1f}x" if s["direct_ratio"] else "-"
        print(f"| {s['repo']} | {s['commits_used']} | {s['pairs']} | {pct(1 - s['co']['direct'])} | "
              f"{pct(1 - s['co']['transitive'])} | {pct(s['co']['disconnected'])} | {pct(s['random']['disconnected'])} | "
              f"{pct(s['co']['direct'])} vs {pct(s['random']['direct'])} | {ratio} |")
    tot_pairs = sum(s["pairs"] for s in results)
    if len(results) > 1 and tot_pairs:
        keys = ("direct", "transitive", "disconnected")
        w = {k: sum(s["co"][k] * s["pairs"] for s in results) / tot_pairs for k in keys}
        wr = {k: sum(s["random"][k] * s["pairs"] for s in results) / tot_pairs for k in keys}
        print(f"| all (pair-weighted) | {sum(s['commits_used'] for s in results)} | {tot_pairs} | "
              f"{pct(1 - w['direct'])} | {pct(1 - w['transitive'])} | {pct(w['disconnected'])} | "
              f"{pct(wr['disconnected'])} | {pct(w['direct'])} vs {pct(wr['direct'])} | "
              f"{(w['direct'] / wr['direct']) if wr['direct'] else float('nan'):.1f}x |")
    print("paper: 852 commits, 3,695 pairs; 76.5% no direct import; 47.3% disconnected; 23.5% vs 0.9% (26x)")
    Path(args.out, "e3_summary.json").write_text(json.dumps({"command": " ".join(sys.argv), "results": results},
                                                            indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
