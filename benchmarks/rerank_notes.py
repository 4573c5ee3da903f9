"""The rerank's cost per search with and without unmerged notes, and the whole tool's search p50.

Definitions (printed):
- stores: the notes_scale.py cases (benchmarks/.out/notes/runs/n0 and n10000: flask with 0 and
  10,000 unmerged notes; run benchmarks/notes_scale.py once first to make them).
- queries: notes_scale.QUERIES (40 natural-language questions about flask), each searched once
  first (query vector and per-note caches warm), then:
- rerank ms/query: ``rank.rerank`` over the query's fused list (``warm.search`` limit rank.DEEP,
  with the overlay's notes), a fresh ``ShardSignals`` per query as the tool makes one; the best of 5
  passes over all queries, divided by the number of queries.
- search p50: ``Tools.search`` (page size 10), 5 passes, median over all calls.
The load average is printed; compare the two stores within one run.

Usage: .venv/bin/python benchmarks/rerank_notes.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from notes_scale import QUERIES  # noqa: E402


def main() -> int:
    from stratum import rank, signals
    from stratum.tools import Tools

    print(__doc__.split("Usage:")[0])
    print(f"load average at start {os.getloadavg()[0]:.1f}")
    for n in (0, 10000):
        store = HERE / ".out" / "notes" / "runs" / f"n{n}"
        if not store.is_dir():
            print(f"missing {store}: run benchmarks/notes_scale.py first")
            return 2
        t = Tools.open([str(store)])
        s = t.open_session(author="bench").data["session"]
        for q in QUERIES:
            t.search(s, q, page_size=10)
        ov = next(iter(t.overlays.values()))
        ov.index.wait_graph()
        sh = ov.shard
        lists = [rank.candidates_of(sh.warm.search(q, limit=rank.DEEP, offset=0, extra_docs=ov.search_docs()).items)
                 for q in QUERIES]
        passes = []
        for _ in range(5):
            t0 = time.perf_counter()
            for c in lists:
                rank.rerank(c, signals.ShardSignals(sh, ov, extra=ov.rank_infos))
            passes.append((time.perf_counter() - t0) * 1e3 / len(lists))
        calls = []
        for _ in range(5):
            for q in QUERIES:
                t0 = time.perf_counter()
                t.search(s, q, page_size=10)
                calls.append((time.perf_counter() - t0) * 1e3)
        print(f"| {n:,} unmerged notes | rerank {min(passes):.2f} ms/query | search p50 {statistics.median(calls):.2f} ms "
              f"| candidates/query {sum(map(len, lists)) / len(lists):.1f} |")
        t.close()
    print(f"load average at end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
