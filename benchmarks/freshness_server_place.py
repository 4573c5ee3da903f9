"""`server_place` from a linked worktree, A/B: git processes and time per --server query's look.

Definitions:
- worktree: benchmarks/.repos/flask copied with its .git, `git worktree add -b wtb <copy>-wt`
  (its 236 files) and one uncommitted edit in it (so the edits line is built).
- one run: a process with PYTHONPATH=<tree> and cwd the worktree, STRATUM_CACHE a fresh temp dir,
  calling `stratum.cli.server_place("", "", "")` M times: "unchanged": nothing moves between calls
  (the first call, the cache's first look, left out); "edited": a file is rewritten (its size
  new each time) 0.1 s before each call, so every look is a miss (the walk's cost on top of git).
- git processes: counted by a `git` first on PATH that logs each invocation.
- trees: A = a copy of the commit to compare (`git archive`, its path in $STRATUM_BENCH_A), B = this tree, B = the working tree; runs interleaved A B, B A.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MAIN = Path(__file__).resolve().parent.parent
TREES = {"A": Path(os.environ.get("STRATUM_BENCH_A", str(MAIN / ".tmp" / "bench_a"))), "B": MAIN}   # A: a copy of the commit to compare


def worker(mode: str, m: int) -> None:
    from stratum.cli import server_place

    log = Path(os.environ["H4_GITLOG"])
    edited = Path("src/flask/helpers.py")
    original = edited.read_bytes()
    server_place("", "", "")
    before = len(log.read_text().splitlines())
    lat = []
    try:
        for i in range(m):
            if mode == "edited":
                edited.write_bytes(original + b"#" * (i + 1))
                time.sleep(0.1)
            t0 = time.perf_counter()
            p = server_place("", "", "")
            lat.append((time.perf_counter() - t0) * 1e6)
            assert p.branch == "wtb" and p.said, p
    finally:
        edited.write_bytes(original + b"# uncommitted\n")
    print(json.dumps({"lat": lat, "git": len(log.read_text().splitlines()) - before}))


def main() -> None:
    m, rounds = int(sys.argv[1]), int(sys.argv[2])
    tmp = Path(tempfile.mkdtemp(prefix="h4place-"))
    repo, wt = tmp / "flask", tmp / "flask-wt"
    shutil.copytree(MAIN / "benchmarks/.repos/flask", repo, symlinks=True)
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "-q", "-b", "wtb", str(wt)], check=True)
    (wt / "src/flask/helpers.py").write_bytes((wt / "src/flask/helpers.py").read_bytes() + b"# uncommitted\n")
    time.sleep(0.2)
    real = shutil.which("git")
    (tmp / "bin").mkdir()
    (tmp / "bin" / "git").write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "$H4_GITLOG"\nexec "{real}" "$@"\n')
    (tmp / "bin" / "git").chmod(0o755)
    got = {(k, mode): {"lat": [], "git": 0, "n": 0} for mode in ("unchanged", "edited") for k in TREES}
    for r in range(rounds):
        for mode in ("unchanged", "edited"):
            for k in (("A", "B") if r % 2 == 0 else ("B", "A")):
                log = tmp / "git.log"
                log.write_text("")
                cache = Path(tempfile.mkdtemp(dir=tmp))
                e = {**os.environ, "PYTHONPATH": str(TREES[k]), "H4_GITLOG": str(log), "STRATUM_CACHE": str(cache),
                     "PATH": f"{tmp / 'bin'}:{os.environ['PATH']}", "GIT_CONFIG_GLOBAL": "/dev/null"}
                out = subprocess.run([sys.executable, __file__, "worker", mode, str(m)], env=e, check=True,
                                     capture_output=True, text=True, cwd=str(wt)).stdout
                one = json.loads(out.strip().splitlines()[-1])
                g = got[(k, mode)]
                g["lat"] += one["lat"]
                g["git"] += one["git"]
                g["n"] += m
    print(__doc__)
    print(f"command: python {' '.join(sys.argv)}  date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  "
          f"load: {os.getloadavg()[0]:.2f}")
    print("| between queries | tree | queries | git processes per query | p50 us | p95 us |")
    print("|---|---|---|---|---|---|")
    for (k, mode), g in got.items():
        q = statistics.quantiles(g["lat"], n=100)
        print(f"| {mode} | {k} | {g['n']} | {g['git'] / g['n']:.2f} | {statistics.median(g['lat']):.0f} | {q[94]:.0f} |")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        worker(sys.argv[2], int(sys.argv[3]))
    else:
        main()
