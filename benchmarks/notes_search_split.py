"""Where one ``Tools.search`` goes with and without unmerged notes (issue 12), part by part.

    python benchmarks/notes_search_split.py [--stores n0 n10000] [--rounds 5]

Definitions (printed):
- stores: ``benchmarks/.out/notes/runs/<name>`` (the flask stores of notes_scale.py with 0, 1,000
  and 10,000 unmerged notes); queries: notes_scale.QUERIES, page size 10, one session a store.
- two untimed rounds over every store, a 1 s pause (the overlay's background work), then ROUNDS
  rounds, the stores in turn per query.
- parts: wall time inside each named function during one search, summed over its calls
  (perf_counter around it; nested parts are inside their parent): ``searcher`` =
  ``HybridSearcher.search`` (in it ``fuse``, ``note_ann``, ``note_kw``), ``rerank`` (in it
  ``hits`` and ``rank_files``), ``items`` (the page's items), ``respond``. p50 of each.
- ratio: the p50 search of each store over the first store's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stores", nargs="+", default=["n0", "n10000"])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):")[1].strip(), "\n", flush=True)

    import os

    from notes_scale import QUERIES
    from stratum import noteindex, rank, search
    from stratum import tools as T

    acc: dict[str, float] = {}

    def wrap(owner, name, label):
        f = getattr(owner, name)

        def timed(*a, **k):
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                acc[label] = acc.get(label, 0.0) + time.perf_counter() - t
        setattr(owner, name, timed)

    parts = [(search.HybridSearcher, "search", "searcher"), (search.HybridSearcher, "_fuse", "fuse"),
             (noteindex.NoteIndex, "ann_hits", "note_ann"), (noteindex.NoteIndex, "keyword_hits", "note_kw"),
             (rank, "rerank", "rerank"), (rank, "_rank_files", "rank_files"), (rank, "_hits", "hits"),
             (T.Tools, "_item", "items"), (T.Tools, "_respond", "respond")]
    for owner, name, label in parts:
        if hasattr(owner, name):
            wrap(owner, name, label)
    tl = {n: T.Tools.open([str(ROOT / "benchmarks/.out/notes/runs" / n)]) for n in args.stores}
    sid = {n: t.open_session(author="bench", budget=10**9).data["session"] for n, t in tl.items()}
    lat: dict[str, list[float]] = {n: [] for n in tl}
    got: dict[str, dict[str, list[float]]] = {n: {} for n in tl}
    for r in range(args.rounds + 2):
        if r == 2:
            time.sleep(1.0)
        for q in QUERIES:
            for n, t in tl.items():
                acc.clear()
                t0 = time.perf_counter()
                t.search(sid[n], q)
                if r >= 2:
                    lat[n].append((time.perf_counter() - t0) * 1e3)
                    for k, v in acc.items():
                        got[n].setdefault(k, []).append(v * 1e3)
    print(f"load average {os.getloadavg()[0]:.2f}")
    labels = [label for _, _, label in parts if label in next(iter(got.values()))]
    print("| store | search p50 ms | x first | " + " | ".join(labels) + " |")
    print("|---|---:|---:|" + "---:|" * len(labels))
    first = statistics.median(next(iter(lat.values())))
    for n in tl:
        p = statistics.median(lat[n])
        print(f"| {n} | {p:.3f} | {p / first:.2f} | " +
              " | ".join(f"{statistics.median(got[n][k]):.3f}" for k in labels) + " |")
    for t in tl.values():
        t.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
