"""Notes at scale for one code tree, for side-by-side runs of two trees (issue 12.4).

Definition (printed as JSON): in-process ``Tools.search`` p50 (page size 10) of the code tree ROOT
over notes_scale.py's 40 queries x 3 rounds, on notes_scale.py's stores with 0 and 10,000 unmerged
notes (``benchmarks/.out/notes/runs/n0`` and ``n10000``: run ``notes_scale.py --counts 0,10000``
once to make them), the two cases interleaved per query after one warm-up pass, the notes' kernels
prepared as ``stratum serve`` prepares them: the same as notes_scale.py's search p50. Run it once
per tree in turn (A B A B ...: ``git worktree add /tmp/wt-old <commit>`` for the other tree) and
take the medians of the ratios and of the per-pair ratios.

Run: .venv/bin/python benchmarks/notes_scale_pair.py ROOT
"""

import json
import statistics
import sys
import time
from pathlib import Path

root = str(Path(sys.argv[1]).resolve())
sys.path.insert(0, root)
import stratum  # noqa: E402  (ROOT's, before notes_scale puts this tree first)
import stratum.tools  # noqa: E402,F401

sys.path.insert(1, str(Path(__file__).resolve().parent))
import notes_scale as NS  # noqa: E402
from stratum import notethreads  # noqa: E402
from stratum.tools import Tools  # noqa: E402

assert stratum.__file__.startswith(root), stratum.__file__
notethreads.prepare_kernels()
cases = {}
for n in (0, 10000):
    t = Tools.open([str(NS.OUT / "runs" / f"n{n}")])
    s = t.open_session(author="bench").data["session"]
    for q in NS.QUERIES:
        t.search(s, q, page_size=10)
    cases[n] = (t, s, [])
for _ in range(3):
    for q in NS.QUERIES:
        for n, (t, s, acc) in cases.items():
            a = time.perf_counter()
            t.search(s, q, page_size=10)
            acc.append(time.perf_counter() - a)
out = {n: statistics.median(acc) * 1e3 for n, (_, _, acc) in cases.items()}
print(json.dumps({"root": root, "p50_ms": out, "ratio": out[10000] / out[0]}))
