"""Edits of a returned file, A/B: what each answer after an edit or an undo costs, and says.

Definitions:
- repository copy: benchmarks/.repos/flask copied with its .git to a temp dir, indexed once
  (`stratum index --no-embed --no-ray`, the tree under test B's code); both trees read that store.
- trees: A = a copy of the commit to compare (`git archive`, its path in $STRATUM_BENCH_A), B = this tree, B = the working tree (this session's changes).
- one run: a process with PYTHONPATH=<tree>: Tools.open([store], freshness=GitFreshness()); one
  untimed get (the first git look); then N answers, each after a write of the returned file:
  even i a new edit (a comment line appended, its size new each time), odd i the original bytes
  (an editor's undo); `Tools.get(session, TARGET, "api")` timed (the stat, and git or the hash).
- git processes: every git process the run started, counted by a `git` first on PATH that logs
  each invocation and execs the real one (the first untimed answer's look is left out).
- wrong: answers whose warnings are not what git says (edit: "uncommitted changes in <file>
  (returned here)"; undo: none).
- rounds interleaved A B, B A, ... (2 cores shared with other work: timings are noisy).
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
FILE = "src/flask/helpers.py"
TARGET = f"{FILE}::get_debug_flag"
SAID = f"uncommitted changes in {FILE} (returned here)"


def worker(repo: str, store: str, n: int) -> None:
    from pipeline.gitio import GitFreshness
    from stratum.tools import Tools

    log = Path(os.environ["H4_GITLOG"])
    path = Path(repo) / FILE
    original = path.read_bytes()
    t = Tools.open([store], freshness=GitFreshness())
    s = t.open_session(author="bench").data["session"]
    t.get(s, TARGET, "api")
    before = len(log.read_text().splitlines())
    lat, wrong = [], 0
    try:
        for i in range(n):
            edit = i % 2 == 0
            path.write_bytes(original + (b"\n# edit " + b"x" * (i + 1) + b"\n" if edit else b""))
            t0 = time.perf_counter()
            w = t.get(s, TARGET, "api").envelope.warnings
            lat.append((time.perf_counter() - t0) * 1e6)
            wrong += (w != [SAID]) if edit else (w != [])
    finally:
        path.write_bytes(original)
        t.close()
    print(json.dumps({"lat": lat, "wrong": wrong, "git": len(log.read_text().splitlines()) - before}))


def main() -> None:
    n, rounds = int(sys.argv[1]), int(sys.argv[2])
    tmp = Path(tempfile.mkdtemp(prefix="h4bench-"))
    repo, store = tmp / "flask", tmp / "store"
    shutil.copytree(MAIN / "benchmarks/.repos/flask", repo, symlinks=True)
    env = {**os.environ, "PYTHONPATH": str(MAIN), "GIT_CONFIG_GLOBAL": "/dev/null"}
    subprocess.run([sys.executable, "-m", "stratum.cli", "index", str(repo), "--store", str(store), "--no-embed",
                    "--no-ray"], env=env, check=True, stdout=subprocess.DEVNULL)
    real = shutil.which("git")
    (tmp / "bin").mkdir()
    (tmp / "bin" / "git").write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "$H4_GITLOG"\nexec "{real}" "$@"\n')
    (tmp / "bin" / "git").chmod(0o755)
    got: dict[str, dict] = {k: {"lat": [], "wrong": 0, "git": 0, "answers": 0} for k in TREES}
    for r in range(rounds):
        for k in (("A", "B") if r % 2 == 0 else ("B", "A")):
            log = tmp / f"git-{k}-{r}.log"
            log.write_text("")
            e = {**env, "PYTHONPATH": str(TREES[k]), "H4_GITLOG": str(log), "PATH": f"{tmp / 'bin'}:{os.environ['PATH']}"}
            out = subprocess.run([sys.executable, __file__, "worker", str(repo), str(store), str(n)], env=e,
                                 check=True, capture_output=True, text=True, cwd=str(TREES[k])).stdout
            one = json.loads(out.strip().splitlines()[-1])
            g = got[k]
            g["lat"] += one["lat"]
            g["wrong"] += one["wrong"]
            g["git"] += one["git"]
            g["answers"] += n
    print(__doc__)
    print(f"command: python {' '.join(sys.argv)}  date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  "
          f"load: {os.getloadavg()[0]:.2f}")
    print("| tree | answers | wrong | git processes | per answer | p50 us | p95 us |")
    print("|---|---|---|---|---|---|---|")
    for k, g in got.items():
        q = statistics.quantiles(g["lat"], n=100)
        print(f"| {k} | {g['answers']} | {g['wrong']} | {g['git']} | {g['git'] / g['answers']:.2f} | "
              f"{statistics.median(g['lat']):.0f} | {q[94]:.0f} |")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        worker(*sys.argv[2:4], int(sys.argv[4]))
    else:
        main()
