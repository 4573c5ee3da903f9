"""One-file commit re-index (issue 13: flask <= 1.5 s), optionally A/B against an older commit.

Definitions (printed at the start of every run):
- **repository copy**: benchmarks/.repos/<name> copied (with .git) to a temp directory, one copy and
  one store per side; commits are made only in the copies.
- **setup**: a cold `stratum index` into each store, then one warm-up round (not counted).
- **round**: per side, a function appended to the first tracked .py file under src/ (else the
  first), `git commit -qam`, then `stratum index <copy> --store <store> --json` in a fresh process
  (`python -c "...; from stratum.cli import main; sys.exit(main())"`, the side's code first on
  sys.path; what `python -m stratum.cli` and the `stratum` script run); sides interleaved A B A B so load changes hit both alike.
- **no change**: right after each round's index, the same command again (nothing changed: it must
  report up to date), its process's wall and CPU seconds.
- **wall**: the commit's seconds plus the index process's elapsed seconds; **index wall**: the
  process alone; **CPU**: the index process's user+system seconds with its children (wait4);
  **peak**: its largest resident set, MiB; stage seconds are from its run report. Medians over
  the rounds; min-max shown for wall.
- **A** (--base COMMIT): the `stratum` and `pipeline` packages of that commit (`git archive`);
  with --only PATH ..., the working tree's packages with just those paths taken from that commit
  (one change measured while others' work in the same tree is on both sides); **B**: the working tree. Both run with bytecode caching on (PYTHONDONTWRITEBYTECODE dropped from
  the environment), as an installed package does: the setup run writes each side's .pyc files.
- **same results** (with --base): side B's copy and store after the setup (so B's re-index meets a
  store of its own making, with whatever B records for its shortcuts), one more commit, then two
  copies of that state; A's code indexes one, B's the other. Every dataset both published
  versions name must be row-for-row equal (`Table.equals`, same order), and both must name the same
  datasets; the run stops otherwise, unless --different says B's output differs by design (a new
  kind of edge): the differences are printed and the figures are the cost of that change.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics as st
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.index_speed import GIT_ENV, REPOS, one_file_commit, run_measured  # noqa: E402

STAGES = ("discover", "parse", "history", "notes", "embed", "write", "total")


def index_cmd(code: Path, copy: Path, store: Path) -> list[str]:
    start = f"import sys; sys.path.insert(0, {str(code)!r}); from stratum.cli import main; sys.exit(main())"
    return [sys.executable, "-c", start, "index", str(copy), "--store", str(store), "--json"]


def side(tmp: Path, name: str, tag: str, code: Path) -> dict:
    copy, store = tmp / f"{name}-{tag}", tmp / f"{name}-{tag}.store"
    subprocess.run(["cp", "-a", str(REPOS / name), str(copy)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update({**GIT_ENV, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": str(ROOT)})
    cmd = index_cmd(code, copy, store)
    run_measured(cmd, env)
    return {"tag": tag, "code": code, "copy": copy, "store": store, "cmd": cmd, "env": env, "runs": []}


def published_tables(store: Path) -> dict:
    """Every dataset the published manifest names, read at its version."""
    from stratum.store import Store

    st_ = Store(store)
    snap = st_.snapshot()
    return {name: snap.read(name) for name in sorted(snap.manifest.datasets)}


def same_results(tmp: Path, a: dict, b: dict) -> list[str]:
    """A's and B's code re-index the same store copy after the same commit: the differences."""
    base = tmp / "check"
    base.mkdir()
    subprocess.run(["cp", "-a", str(b["copy"]), str(base / "repo")], check=True)
    subprocess.run(["cp", "-a", str(b["store"]), str(base / "store")], check=True)
    one_file_commit(base / "repo")
    out = {}
    for s in (a, b):
        d = tmp / f"check-{s['tag']}"
        subprocess.run(["cp", "-a", str(base), str(d)], check=True)
        run_measured(index_cmd(s["code"], d / "repo", d / "store"), s["env"])
        out[s["tag"]] = published_tables(d / "store")
    ta, tb = out[a["tag"]], out[b["tag"]]
    diffs = [f"datasets differ: {sorted(ta)} vs {sorted(tb)}"] if sorted(ta) != sorted(tb) else []
    for name in sorted(set(ta) & set(tb)):
        if not ta[name].equals(tb[name]):
            diffs.append(f"{name}: {ta[name].num_rows} vs {tb[name].num_rows} rows, not equal")
    print("same results:", "yes, " + ", ".join(f"{n} {t.num_rows:,} rows" for n, t in ta.items())
          if not diffs else "; ".join(diffs), flush=True)
    return diffs


def one_round(s: dict) -> dict:
    t = time.perf_counter()
    one_file_commit(s["copy"])
    commit = time.perf_counter() - t
    m = run_measured(s["cmd"], s["env"])
    if m["report"].get("up_to_date"):
        raise SystemExit("the commit was not seen: the run reported up to date")
    same = run_measured(s["cmd"], s["env"])
    if not same["report"].get("up_to_date"):
        raise SystemExit("the run after it was not up to date")
    return {"wall": commit + m["wall"], "index_wall": m["wall"], "cpu": m["cpu"], "rss": m["rss_mib"],
            "stages": m["report"]["seconds"], "same_wall": same["wall"], "same_cpu": same["cpu"]}


def row(s: dict, label: str) -> str:
    r = s["runs"]
    w = [x["wall"] for x in r]
    med = {k: st.median(x[k] for x in r) for k in ("index_wall", "cpu", "rss", "same_cpu")}
    sw = [x["same_wall"] for x in r]
    stages = " | ".join(f"{st.median(x['stages'].get(k, 0.0) for x in r):.2f}" for k in STAGES)
    return (f"| {label} | {st.median(w):.2f} ({min(w):.2f}-{max(w):.2f}) | {med['index_wall']:.2f} | "
            f"{med['cpu']:.2f} | {med['rss']:.0f} | {stages} | {st.median(sw):.2f} ({min(sw):.2f}-{max(sw):.2f}) | "
            f"{med['same_cpu']:.2f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--repo", default="flask")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--different", action="store_true",
                    help="with --base: B publishes other tables by design (a new edge kind): measure anyway, "
                         "printing the differences")
    ap.add_argument("--base", default=None, help="also run this older commit's code (A) against the tree (B)")
    ap.add_argument("--only", nargs="+", default=None, metavar="PATH",
                    help="with --base: A is the working tree with only these paths from the base commit")
    args = ap.parse_args(argv)
    print(__doc__.split("Definitions (printed at the start of every run):\n", 1)[1].strip(), flush=True)
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="one_file_") as tmpd:
        tmp = Path(tmpd)
        sides = []
        if args.base:
            base = tmp / "base-code"
            base.mkdir()
            if args.only:
                for pkg in ("stratum", "pipeline"):
                    shutil.copytree(ROOT / pkg, base / pkg, ignore=shutil.ignore_patterns("__pycache__"))
                for rel in args.only:        # a path the base lacks is left out of A
                    if (base / rel).is_dir():
                        shutil.rmtree(base / rel)
                    elif (base / rel).exists():
                        (base / rel).unlink()
            arch = subprocess.run(["git", "-C", str(ROOT), "archive", args.base, *(args.only or ["stratum", "pipeline"])],
                                  capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(base)], input=arch, check=True)
            sides.append(side(tmp, args.repo, "A", base))
        sides.append(side(tmp, args.repo, "B", ROOT))
        if args.base and (diff := same_results(tmp, *sides)):
            if not args.different:
                raise SystemExit("A and B published different tables: the speed comparison is void")
            print("different results, as --different says B's output differs by design: the figures "
                  "below are the cost of that change, not of the same work:", "; ".join(diff))
        for i in range(args.runs + 1):
            for s in sides:
                r = one_round(s)
                if i:
                    s["runs"].append(r)
                print(s["tag"], i, f"{r['wall']:.2f}", flush=True)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = os.getloadavg()
    print(f"\n{args.repo}, {args.runs} rounds, {when}, load average at the end {load[0]:.1f} / {load[1]:.1f} / "
          f"{load[2]:.1f} (1 / 5 / 15 min; at the start {load0[0]:.1f})\n")
    print("| code | wall s median (min-max) | index wall s | CPU s | peak MiB | "
          + " | ".join(STAGES) + " | no-change wall s (min-max) | no-change CPU s |")
    print("|---|" + "---:|" * (6 + len(STAGES)))
    for s in sides:
        label = f"A: {args.base}" + (f" ({' '.join(args.only)} only)" if args.only else "")
        print(row(s, label if s["tag"] == "A" else "B: working tree"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
