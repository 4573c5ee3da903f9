"""A server's first queries over many unmerged notes: what a search pays the first time it meets a note.

    python benchmarks/notes_first_touch.py [--case n10000] [--wait 3]

Definitions (printed):
- store: a notes_scale.py case (benchmarks/.out/notes/runs/CASE: flask with N unmerged notes; run
  notes_scale.py once first to make them), opened fresh with ``Tools.open``.
- query vectors: the 40 notes_scale.QUERIES are embedded first (untimed), so what is timed is the
  search, not the model.
- first search: one search right after opening (it indexes the unmerged notes: tokens, vectors,
  and starts computing their ranking facts).
- first pass: the 40 queries once each, WAIT seconds after the first search (each query's first
  meeting with its notes); second pass: the same 40 again. p50 ms of each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", default="n10000")
    ap.add_argument("--wait", type=float, default=3.0)
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):")[1].strip(), "\n", flush=True)

    import notes_scale as NS
    from stratum.tools import Tools

    from stratum import notethreads

    notethreads.prepare_kernels()                     # as stratum serve does
    t = Tools.open([str(NS.OUT / "runs" / args.case)])
    s = t.open_session(author="bench", budget=10 ** 9).data["session"]
    searcher = next(iter(t.memory)).warm.searcher
    for q in NS.QUERIES:
        searcher.embed_query(q)
    t0 = time.perf_counter()
    t.search(s, "first search after opening")
    first = (time.perf_counter() - t0) * 1e3
    time.sleep(args.wait)

    def one_pass() -> float:
        lat = []
        for q in NS.QUERIES:
            t1 = time.perf_counter()
            t.search(s, q)
            lat.append((time.perf_counter() - t1) * 1e3)
        return statistics.median(lat)

    p1, p2 = one_pass(), one_pass()
    print(f"case {args.case}, load average {os.getloadavg()[0]:.2f}: first search {first:.0f} ms; "
          f"first pass ({args.wait:g} s later) p50 {p1:.2f} ms; second pass p50 {p2:.2f} ms")
    t.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
