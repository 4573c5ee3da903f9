"""Branch overlays: build time for a branch with 1, 10 and 100 changed files, and search latency of a
branch session (base + overlay) against a default-branch session (base only).

Definitions (printed at the start of every run):
- **repository copy**: benchmarks/.repos/<repo> copied (with its .git) to a temp directory, indexed
  once in-process (`pipeline.job.index_repository`, no Ray: what `stratum index` runs); branches are made in the copy only.
- **a branch with N changed files**: from the indexed commit, one commit that appends to each of the
  first N tracked files (Python files first, in `git ls-files` order, then .rst/.md/.txt/.html):
  a new function `overlay_bench_<round>_<i>` (with a docstring) to a Python file, a line of text to
  the others. Each round uses fresh names, so each build is a new commit (never the cache).
- **build**: wall time of `pipeline.overlay.build(store, branch)` in this process (the model already
  loaded by one untimed build): git diff + cat-file, parse, link, embed (vectors of unchanged text from
  the base's cache), Lance write, warm indexes, atomic rename; then **open**: loading it as a shard
  (`StoreOverlay.load`), the rest of what `open_session(branch=...)` costs; **cached**: a second
  `build` of the same branch (the overlay is reused). Median of R rounds.
- **search**: in-process `Tools.search(session, q, page_size=10)` over 8 fixed queries, p50 / p95 per
  call in microseconds over R rounds after one untimed pass; *base*: a session without a branch;
  *base + overlay (N)*: a session opened with `branch=` on the N-file branch.
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

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false"]
QUERIES = ["url routing rule", "request context teardown", "json provider", "blueprint registration",
           "template rendering", "session cookie", "cli command", "overlay_bench function docstring"]
SIZES = (1, 10, 100)


def _q(xs: list[float], p: int) -> float:
    return statistics.quantiles(xs, n=100)[p - 1] if len(xs) > 1 else xs[0]


def _git(repo: Path, env: dict, *args: str) -> str:
    return subprocess.run([*GIT, "-C", str(repo), *args], env=env, check=True, capture_output=True,
                          text=True).stdout


def make_branch(repo: Path, env: dict, base: str, name: str, n: int, tag: str) -> None:
    """Branch NAME at BASE with one commit changing the first N files (Python first)."""
    files = _git(repo, env, "ls-files").split()
    py = [f for f in files if f.endswith(".py")]
    text = [f for f in files if f.rsplit(".", 1)[-1] in ("rst", "md", "txt", "html")]
    chosen = (py + text)[:n]
    if len(chosen) < n:
        raise SystemExit(f"the repository has only {len(chosen)} changeable files, {n} asked")
    _git(repo, env, "checkout", "-q", "-B", name, base)
    for i, f in enumerate(chosen):
        with open(repo / f, "a") as fh:
            if f.endswith(".py"):
                fh.write(f"\n\ndef overlay_bench_{tag}_{i}():\n    \"\"\"Overlay benchmark function {i} "
                         f"of round {tag}.\"\"\"\n    return {i}\n")
            else:
                fh.write(f"\nOverlay benchmark line {i} of round {tag}.\n")
    _git(repo, env, "commit", "-qam", f"bench: {n} files ({tag})")
    _git(repo, env, "checkout", "-q", base)


def main() -> int:
    import platform

    ap = argparse.ArgumentParser()
    ap.add_argument("repo", nargs="?", default="flask")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--model", default="", help="embedding model of the store (default: the configured one)")
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed at the start of every run):\n", 1)[1].strip())
    print(f"\ncommand: {' '.join(sys.argv)}\nmachine: {platform.node()} ({os.cpu_count()} cores visible, "
          f"Python {platform.python_version()}, {platform.machine()})\n"
          f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    os.environ.setdefault("RAY_TMPDIR", str(ROOT / ".tmp" / "ray"))
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}
    (ROOT / ".tmp").mkdir(exist_ok=True)
    from pipeline.job import index_repository
    from stratum.config import EmbedConfig, IndexConfig

    tmp = Path(tempfile.mkdtemp(prefix="overlay-", dir=ROOT / ".tmp"))
    try:
        shutil.copytree(HERE / ".repos" / args.repo, tmp / args.repo, symlinks=True)
        cfg = IndexConfig(ray=False, embed=EmbedConfig(model=args.model)) if args.model else IndexConfig(ray=False)
        rep = index_repository(tmp / args.repo, tmp / "store", cfg)
        print(f"indexed {args.repo} in {rep.seconds['total']:.1f} s (in-process, no Ray)")
        run(tmp / args.repo, tmp / "store", args, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def run(repo: Path, store: Path, args, env: dict) -> None:
    from pipeline.overlay import build, builder
    from stratum.branchview import StoreOverlay
    from stratum.store import Store
    from stratum.tools import Tools

    base = _git(repo, env, "rev-parse", "HEAD").strip()
    before = Store(store).manifest()
    make_branch(repo, env, base, "warmup", 1, "w")
    build(store, "warmup")                       # loads the parser and the model once (untimed)
    times: dict[int, dict[str, list[float]]] = {n: {"build": [], "open": [], "cached": []} for n in SIZES}
    for r in range(args.rounds):
        for n in SIZES:
            name = f"bench-{n}-{r}"
            make_branch(repo, env, base, name, n, f"{r}")
            t0 = time.perf_counter()
            info = build(store, name)
            times[n]["build"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            StoreOverlay.load(str(store), info)
            times[n]["open"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            assert build(store, name)["cached"]
            times[n]["cached"].append(time.perf_counter() - t0)
    after = Store(store).manifest()
    assert (after.version, after.datasets) == (before.version, before.datasets), "the base store changed"

    print(f"\n{args.repo}: overlay build, median of {args.rounds} rounds\n")
    print("| changed files | build s | open s | build + open s | cached build s |\n|---|---|---|---|---|")
    for n in SIZES:
        b, o, c = (statistics.median(times[n][k]) for k in ("build", "open", "cached"))
        print(f"| {n} | {b:.3f} | {o:.3f} | {b + o:.3f} | {c:.4f} |")

    tools = Tools.open([str(store)], overlay_builder=builder())
    sessions = {"base": tools.open_session(budget=10**9).data["session"]}
    for n in (10, 100):
        sessions[f"base + overlay ({n})"] = tools.open_session(budget=10**9, branch=f"bench-{n}-0").data["session"]
    res: dict[str, list[float]] = {}

    def timed(name: str, out: dict) -> None:
        for q in QUERIES:
            t0 = time.perf_counter_ns()
            tools.search(sessions[name], q, page_size=10)
            out.setdefault(name, []).append((time.perf_counter_ns() - t0) / 1e3)

    for name in sessions:
        timed(name, {})
    for _ in range(args.rounds):
        for name in sessions:
            timed(name, res)
    print(f"\n{args.repo}: search, {len(QUERIES)} queries x {args.rounds} rounds\n")
    print("| session | p50 us | p95 us | p50 over base |\n|---|---|---|---|")
    b50 = statistics.median(res["base"])
    for name, xs in res.items():
        med = statistics.median(xs)
        print(f"| {name} | {med:.0f} | {_q(xs, 95):.0f} | {med / b50:.2f}x |")


if __name__ == "__main__":
    raise SystemExit(main())
