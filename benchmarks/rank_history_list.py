"""A per-file history keyword list (H) beside the hand fusion, on the PAST window only.

Why: benchmarks/acc5_vocab.py found that 11.7% of the evaluation tasks share a discriminating word
with an answer file only through that file's past commit messages, and the rankings put those
answers in the top 5 only ~60% of the time: each past commit is its own mined node, so a file's
history votes as many small documents, each matching a query word or not. This tries the
bug-localisation literature's other reading of history: one BM25 document per file, the text of
every mined fix/change node about it concatenated (what its history says about it, as a whole),
its hits fused like the whole-file list F: ``h / (RRF_K + rank)``.

Setup: rank_diagnosis.py's (its Task features, stores at C', the qualifying commits between C' and
the evaluation index commit C; the evaluation window is never loaded). H's documents: the day-one
mined nodes (all <= C': ``Setup.day1``), their ``full`` text per file they are about; files H ranks
that the fusion lacks join the candidates with H alone. The weight h is chosen by LORO (fit on two
repositories' pasts by MRR over the grid GRID, score the third), the rule stated before any result
was read; adopted only if the held-out Acc@5 gain's 95% paired bootstrap interval (2,000
resamples, seed 0) excludes 0 with MRR not worse, in both conditions.

Usage: .venv/bin/python benchmarks/rank_history_list.py [--n 200]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import common as C  # noqa: E402
import rank_diagnosis as D  # noqa: E402
import retrieval_memory as RM  # noqa: E402

GRID = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)   # run 1 stopped at 3.0 (chosen in 5 of 6 folds): widened once
DEPTH = 50


def history_docs(s) -> tuple[list[str], list[str]]:
    """(paths, one document per file: its mined nodes' texts, oldest first)."""
    by: dict[str, list[str]] = defaultdict(list)
    for d in sorted(s.day1, key=lambda d: d.time):
        for f in d.files:
            by[f].append(d.node.get("full") or "")
    paths = sorted(by)
    return paths, ["\n".join(by[p]) for p in paths]


def with_h(t, hits: list[str], file_paths: set[str]) -> None:
    """Give task ``t`` an H column (1 / (RRF_K + rank)); H's files the candidates lack join with H alone."""
    from stratum.rank import RRF_K

    h = {f: 1.0 / (RRF_K + j) for j, f in enumerate(hits, 1)}
    new = [f for f in h if f not in set(t.files) and f in file_paths]
    if new:
        t.files = t.files + new
        t.X = np.vstack([t.X, np.zeros((len(new), t.X.shape[1]))])
        t.y = np.concatenate([t.y, np.array([f in t.targets for f in new])])
    t.H = np.array([h.get(f, 0.0) for f in t.files])


def ranks(tasks, w: np.ndarray, hw: float) -> list:
    return [t.rank(t.X @ w + hw * t.H) for t in tasks]


def mrr_of(rs) -> float:
    return D.metrics(rs)["mrr"]


def loro(tasks, w: np.ndarray) -> tuple[list, dict]:
    held, chosen = [None] * len(tasks), {}
    for r in D.REPOS:
        tr = [t for t in tasks if t.repo != r]
        hw = max(GRID, key=lambda g: (mrr_of(ranks(tr, w, g)), -g))
        chosen[r] = hw
        for i, t in enumerate(tasks):
            if t.repo == r:
                held[i] = t.rank(t.X @ w + hw * t.H)
    return held, chosen


def boot(a: list, b: list, k: int | None, n: int = 2000) -> tuple[float, float, float]:
    """Mean of metric(a) - metric(b) per task (k: hit@k, None: reciprocal rank), 95% interval."""
    def m(r):
        return (1.0 / r if r else 0.0) if k is None else float(bool(r and r <= k))
    d = np.array([m(x) - m(y) for x, y in zip(a, b)])
    rng = np.random.default_rng(0)
    means = [d[rng.integers(0, len(d), len(d))].mean() for _ in range(n)]
    return float(d.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main() -> int:
    from stratum import rank as R
    from stratum.filetext import FileText

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200)
    args = ap.parse_args()
    print(__doc__.split("Usage:")[0])
    print(f"command: {' '.join(sys.argv)}\nmachine: {C.machine()}\n")
    W = R.DEFAULT_WEIGHTS
    by: dict[str, list] = {label: [] for label in D.CONDS}
    for r in D.REPOS:
        cut = C.resolve_commit((HERE / ".repos" / r).resolve(), RM.EVAL_AT[r])
        cut_time = next(x.time for x in C.load_history(HERE / ".repos" / r) if x.sha == cut)
        s = RM.setup(r, RM.PAST_AT[r], args.n, before=cut_time)
        s.prior = D._priors(s, 365.0)
        paths, docs = history_docs(s)
        ht = FileText(paths, docs)
        col = s.shard.col
        file_paths = {col("path")[i] for i in range(len(s.shard)) if col("kind")[i] == "file"}
        print(f"{r}: {len(s.tasks)} past tasks; H over {len(paths)} files from {len(s.day1)} mined nodes")
        for qs in RM.run_queries(s, list(D.CONDS.values())):
            hits = ht.hits(qs["day1"].t.query, DEPTH)
            for label, cond in D.CONDS.items():
                w = W.only(*RM.DAY_ONE, "file_text") if label == "day one" else W
                t = D.Task(s, qs[cond], w)
                with_h(t, hits, file_paths)
                by[label].append(t)
        RM.save_cache(s)
        s.tools.close()
    for label, tasks in by.items():
        w0 = D.vec(T=1, A=W.symbols, N=W.notes if label == "all" else 0.0, M=W.mined, Ch=W.changes,
                   Co=W.cochange, G=W.graph, F=W.file_text)
        base = ranks(tasks, w0, 0.0)
        print(f"\n== {label} ({len(tasks)} past tasks)")
        print(f"  default (with F)           {D.fmt(D.metrics(base))}")
        print(f"  H alone (its own order)    {D.fmt(D.metrics([t.rank(t.H) for t in tasks]))}")
        for g in GRID[1:]:
            print(f"  + H x{g:<4}                 {D.fmt(D.metrics(ranks(tasks, w0, g)))}")
        held, chosen = loro(tasks, w0)
        print(f"  + H, weight by LORO {chosen}: {D.fmt(D.metrics(held))}")
        for name, k in (("Acc@5", 5), ("MRR", None), ("Acc@10", 10)):
            mean, lo, hi = boot(held, base, k)
            print(f"    held out minus default, {name}: {mean:+.3f} [{lo:+.3f}, {hi:+.3f}]")
        for r in D.REPOS:
            idx = [i for i, t in enumerate(tasks) if t.repo == r]
            print(f"    {r}: default {D.fmt(D.metrics([base[i] for i in idx]))}; held out {D.fmt(D.metrics([held[i] for i in idx]))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
