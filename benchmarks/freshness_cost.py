"""Freshness cost per call: `get` (and a 10-hit `search`) with and without the freshness check.

Definitions (printed at the start of every run):
- **repository copy**: benchmarks/.repos/<repo> copied (with its .git) to a temp directory, indexed
  once with `stratum index <copy> --store <store>`; every edit or commit is made in the copy only.
- **targets**: the first N function/method nodes of the store (path::qualname), in row order; one
  timed pass calls `Tools.get(session, target, "api")` on each, in-process, after one untimed pass.
- **off**: `Tools.open([store])` (no freshness callback: the envelope still carries the indexed
  commit, read from the manifest, and no warning).
- **on, cached**: `Tools.open([store], freshness=gitio.freshness)` as the CLI and servers open it:
  the git view is cached per store, re-probed at most every 0.5 s; per call a stat of each returned
  file (an unstaged edit moves neither HEAD nor the index).
- **on, probe every call**: the same with `memory.freshness.probe_seconds = 0` (the stat probe of
  HEAD, the ref, packed-refs and the index on every call): the worst case of a busy server.
- **on, stale**: probe every call, after one commit that changes a file none of the targets is in
  and an uncommitted edit in another (the warnings are built on every answer).
- **git view**: one `GitFreshness.view` (rev-parse, rev-list, diff, status): what a state change
  costs, once per state; p50 of 10 runs, clean and stale.
- p50 / p95 per call in microseconds, over R rounds of all targets (configurations interleaved).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# commits in the copy: a fixed identity, no user config
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false"]


def _q(xs: list[float], p: int) -> float:
    return statistics.quantiles(xs, n=100)[p - 1] if len(xs) > 1 else xs[0]


def main() -> int:
    import platform

    ap = argparse.ArgumentParser()
    ap.add_argument("repo", nargs="?", default="flask")
    ap.add_argument("--n", type=int, default=200, help="targets")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed at the start of every run):\n", 1)[1].strip())
    print(f"\ncommand: {' '.join(sys.argv)}\nmachine: {platform.node()} ({os.cpu_count()} cores visible, "
          f"Python {platform.python_version()}, {platform.machine()})\ndate: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    os.environ.setdefault("RAY_TMPDIR", str(ROOT / ".tmp" / "ray"))
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}
    tmp = Path(tempfile.mkdtemp(prefix="fresh-", dir=ROOT / ".tmp"))
    try:
        repo, store = tmp / args.repo, tmp / "store"
        shutil.copytree(HERE / ".repos" / args.repo, repo, symlinks=True)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "stratum.cli", "index", str(repo), "--store", str(store), "--json"], env=env, check=True,
                       stdout=subprocess.DEVNULL, cwd=ROOT)
        print(f"indexed {args.repo} in {time.perf_counter() - t0:.1f} s")
        run(repo, store, args, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def run(repo: Path, store: Path, args, env: dict) -> None:
    from pipeline.gitio import GitFreshness, freshness
    from stratum.tools import Tools

    off = Tools.open([str(store)])
    sh = next(iter(off.memory))
    kinds, paths, quals = sh.col("kind"), sh.col("path"), sh.col("qualname")
    targets = [f"{paths[r]}::{quals[r]}" for r in range(len(sh)) if kinds[r] in ("function", "method")][:args.n]
    cached = Tools.open([str(store)], freshness=freshness, embedder=off.memory.embedder)
    every = Tools.open([str(store)], freshness=freshness, embedder=off.memory.embedder)
    every.memory.freshness.probe_seconds = 0
    configs = {"off": off, "on, cached": cached, "on, probe every call": every}
    sessions = {k: t.open_session(budget=10**9).data["session"] for k, t in configs.items()}
    queries = ["url routing rule", "request context teardown", "json provider", "blueprint registration",
               "template rendering", "session cookie", "cli command", "config from file"]

    def timed(name: str, t: Tools, out: dict) -> None:
        s = sessions[name]
        for tg in targets:
            t0 = time.perf_counter_ns()
            t.get(s, tg, "api")
            out.setdefault(("get", name), []).append((time.perf_counter_ns() - t0) / 1e3)
        for q in queries:
            t0 = time.perf_counter_ns()
            t.search(s, q, page_size=10)
            out.setdefault(("search", name), []).append((time.perf_counter_ns() - t0) / 1e3)

    res: dict = {}
    for name, t in configs.items():          # warm-up: caches, vectors, the first git view
        timed(name, t, {})
    for _ in range(args.rounds):
        for name, t in configs.items():
            timed(name, t, res)
    # stale: a commit elsewhere and an uncommitted edit, then probe every call again
    target_files = {tg.split("::")[0] for tg in targets}
    others = [p for p in subprocess.run(["git", "-C", str(repo), "ls-files", "*.py"], capture_output=True,
                                        text=True, check=True).stdout.split() if p not in target_files]
    with open(repo / others[0], "a") as f:
        f.write("\n# freshness benchmark: committed\n")
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qam", "bench: freshness"], env=env, check=True)
    with open(repo / others[1], "a") as f:
        f.write("\n# freshness benchmark: uncommitted\n")
    sessions["on, stale"] = sessions["on, probe every call"]
    timed("on, stale", every, {})
    probe = every.get(sessions["on, stale"], targets[0], "api").envelope
    assert probe.stale, probe.warnings
    for _ in range(args.rounds):
        timed("on, stale", every, res)

    print(f"{args.repo}: {len(sh)} nodes, {len(targets)} get targets, {len(queries)} search queries, "
          f"{args.rounds} rounds\n")
    print("| call | freshness | p50 us | p95 us | p50 over off |\n|---|---|---|---|---|")
    for call in ("get", "search"):
        base = statistics.median(res[(call, "off")])
        for name in ("off", "on, cached", "on, probe every call", "on, stale"):
            xs = res[(call, name)]
            med = statistics.median(xs)
            print(f"| {call} | {name} | {med:.0f} | {_q(xs, 95):.0f} | {med - base:+.0f} us ({med / base:.2f}x) |")
    g = GitFreshness()
    views, probes = [], []
    for _ in range(10):
        t0 = time.perf_counter()
        g.view(str(repo), sh.manifest.indexed_commit)
        views.append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter_ns()
        g.probe(str(repo))
        probes.append((time.perf_counter_ns() - t0) / 1e3)
    print(f"\ngit view (stale state, once per state): p50 {statistics.median(views):.1f} ms; "
          f"stat probe: p50 {statistics.median(probes):.0f} us")
    print(f"example warnings: {probe.warnings}")
    for t in configs.values():
        t.close()


if __name__ == "__main__":
    raise SystemExit(main())
