"""What `walk FILE --edge notes` costs beside many unmerged notes about other files (session 22: its
symbols' withdrawn notes were found by a pass over every unmerged note; now by path).

Definitions (printed): a repository of 100 files (pkg/m0.py ... m99.py, three functions each),
indexed without embeddings; pkg/m0.py holds three notes (an rca superseded by another, an insight);
then N unmerged "insight" notes about the other files' functions are appended to the delta log as
``remember`` writes them (no vectors). Cost: the fastest and the median of 40 in-process
``Tools.walk(session, "pkg/m0.py", edges=["notes"])`` calls after one untimed call (the by-path map
is built once per change of the log), for N = 200 and N = 10,000 on the same store.

Run: .venv/bin/python benchmarks/walk_notes_scale.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("RAY_TMPDIR", str(ROOT / ".tmp" / "ray"))


def main() -> int:
    from pipeline.job import index_repository
    from stratum.config import EmbedConfig, IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo
    from tests.integration.test_notes22_walk_scale import FILES, _append

    print(__doc__.split("Run:")[0].strip(), "\n")
    with tempfile.TemporaryDirectory() as tmp:
        r = Repo(Path(tmp) / "repo")
        body = "".join(f"def f{j}(x):\n    return x + {j}\n\n\n" for j in range(3))
        r.commit("init", {"pkg/__init__.py": "", **{f"pkg/m{i}.py": body for i in range(FILES)}})
        store = Path(tmp) / "store"
        index_repository(r.path, store, IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False)))
        t = Tools.open([str(store)], embedder=None)
        try:
            s = t.open_session(author="agent").data["session"]
            old = t.remember(s, "rca", "f0 adds before checking x", ["pkg/m0.py::f0"]).data["note_id"]
            t.remember(s, "rca", "f0 adds before it checks x is a number", ["pkg/m0.py::f0"], supersedes=[old])
            t.remember(s, "insight", "f1 is pure", ["pkg/m0.py::f1"])
            sh = next(iter(t.memory))
            print("| unmerged notes about other files | fastest ms | median ms | items |\n|---:|---:|---:|---:|")
            done = 0
            for n in (200, 10_000):
                _append(store, sh, done, n - done)
                done = n
                t.memory.overlay(sh).refresh()
                items = len(t.walk(s, "pkg/m0.py", edges=["notes"]).items)
                times = []
                for _ in range(40):
                    t0 = time.perf_counter()
                    t.walk(s, "pkg/m0.py", edges=["notes"])
                    times.append((time.perf_counter() - t0) * 1e3)
                print(f"| {n:,} | {min(times):.2f} | {statistics.median(times):.2f} | {items} |")
        finally:
            t.close()
    print(f"load average (1 min): {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
