"""What memory-steered ranking costs per search: the warm searcher's page alone vs the whole fused
list (rank.DEEP hits) plus ``rank.rerank`` over the shard and its notes overlay.

Queries: the masked subjects of the first N qualifying commits after C (common.py), on the store at
C that benchmarks/retrieval_memory.py builds. Each query is run once first (its vector cached), then
timed: ``text`` = searcher.search(limit=11); ``ranked`` = searcher.search(limit=rank.DEEP) +
rerank (fresh ShardSignals per query, as the tool makes one per call). p50/p95 in ms.

Usage: .venv/bin/python benchmarks/rank_latency.py [REPO] [--n 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import common as C  # noqa: E402
from retrieval_memory import EVAL_AT, OUT  # noqa: E402


def main() -> int:
    from stratum import rank as R
    from stratum import signals as SG
    from stratum.tools import Tools

    ap = argparse.ArgumentParser()
    ap.add_argument("repo", nargs="?", default="flask")
    ap.add_argument("--n", type=int, default=200)
    args = ap.parse_args()
    print(__doc__.split("Usage:")[0])
    print(f"command: {' '.join(sys.argv)}\nmachine: {C.machine()}\n")
    repo = (HERE / ".repos" / args.repo).resolve()
    c = C.resolve_commit(repo, EVAL_AT[args.repo])
    _, store = C.store_at(repo, c, out=OUT, num_cpus=1)
    tasks, _ = C.make_tasks(C.load_history(repo), c, C.window_shas(repo, c), C.paths_at(repo, c), limit=args.n)
    tools = Tools.open([str(store)])
    sh = next(iter(tools.memory))
    ov = tools.memory.overlay(sh)
    text, ranked = [], []
    for t in tasks:
        sh.warm.search(t.query, limit=11, extra_docs=ov.search_docs())
    for t in tasks:
        t0 = time.perf_counter()
        sh.warm.search(t.query, limit=11, extra_docs=ov.search_docs())
        t1 = time.perf_counter()
        page = sh.warm.search(t.query, limit=R.DEEP, extra_docs=ov.search_docs())
        R.rerank(R.candidates_of(page.items), SG.ShardSignals(sh, ov))
        t2 = time.perf_counter()
        text.append((t1 - t0) * 1e3)
        ranked.append((t2 - t1) * 1e3)
    tools.close()
    q = lambda xs, p: statistics.quantiles(xs, n=100)[p - 1]  # noqa: E731
    print(f"{args.repo}: {len(tasks)} queries, {len(sh)} nodes")
    print("| search | p50 ms | p95 ms |\n|---|---|---|")
    print(f"| text page (limit 11) | {statistics.median(text):.2f} | {q(text, 95):.2f} |")
    print(f"| whole fused list + rerank | {statistics.median(ranked):.2f} | {q(ranked, 95):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
