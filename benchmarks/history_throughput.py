"""History mining throughput: our miner vs the bare `git log` it reads, and vs pydriller.

Definitions (printed at start):
- bare git log: `git <gitio.history_log_args(HEAD)>` with stdout to /dev/null; the exact command
  the miner streams (all commits, -z --raw --numstat -M, merges without diffs).
- mine: pipeline.history.mine(repo) end to end: the same git log, parsed into Arrow tables, plus
  HEAD's file list and rename following (current_path).
- ratio: mine wall time / bare git log wall time, measured back to back in the same run, median of
  --runs pairs (goal: <= 2). CPU seconds (user+sys of this process and its git children) are
  printed too: they do not depend on what else the machine is running.
- without line counts: the same pair with HistoryConfig(line_counts=False) (git log --raw, no
  --numstat: git compares trees, never blob contents); file lists, types and renames identical.
- pydriller: Repository(repo).traverse_commits(), reading for every modified file its path,
  change type, added and deleted lines (the information our file_changes hold), over the first
  --pydriller-max commits of its traversal (oldest first; 0: all). commits/s are compared, per
  wall second and per CPU second (pydriller's long-lived git helpers may be missing from its CPU
  count, which can only flatter it).
- symbols (with --symbols): pipeline.symbols over the whole history, one batch: commits/s over
  the eligible commits (non-merge, <= 30 files, touching a parsed language).

Usage: .venv/bin/python benchmarks/history_throughput.py [--repos flask requests werkzeug]
       [--runs 3] [--pydriller-max 0] [--symbols]
Repositories are clones under benchmarks/.repos/<name>. Results: benchmarks/results/history_throughput.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pipeline import gitio  # noqa: E402
from pipeline.history import mine  # noqa: E402
from stratum.config import HistoryConfig  # noqa: E402


def cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def timed(fn):
    c0, t0 = cpu(), time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0, cpu() - c0


def bare_git(repo: Path, line_counts: bool = True) -> None:
    subprocess.run(["git", "-C", str(repo), *gitio.history_log_args("HEAD", line_counts=line_counts)],
                   stdout=subprocess.DEVNULL, check=True)


def pydriller_rate(repo: Path, limit: int) -> dict:
    from pydriller import Repository

    n = files = 0
    c0, t0 = cpu(), time.perf_counter()
    for c in Repository(str(repo)).traverse_commits():
        for m in c.modified_files:
            files += 1
            (m.new_path or m.old_path, m.change_type, m.added_lines, m.deleted_lines)
        n += 1
        if limit and n >= limit:
            break
    dt, dc = time.perf_counter() - t0, cpu() - c0
    return {"commits": n, "file_changes": files, "seconds": round(dt, 2), "cpu_s": round(dc, 2),
            "commits_per_s": round(n / dt, 1), "commits_per_cpu_s": round(n / dc, 1)}


def symbols_cost(repo: Path, res) -> dict:
    from pipeline import symbols

    cfg = HistoryConfig()
    batches = symbols.plan(res.file_changes, res.commits, cfg)
    eligible = sum(len(b) for b in batches)
    t0 = time.perf_counter()
    parts = [symbols.changed_symbols(repo, b) for b in batches]
    t1 = time.perf_counter()
    import pyarrow as pa

    changes = pa.concat_tables(parts) if parts else symbols.SYMBOL_CHANGES.empty_table()
    table = symbols.compute(changes, res.file_changes, res.commits, cfg, res.head_paths)
    t2 = time.perf_counter()
    return {"eligible_commits": eligible, "symbol_changes": changes.num_rows, "pairs": table.num_rows,
            "diff_and_parse_s": round(t1 - t0, 2), "pairs_s": round(t2 - t1, 2),
            "commits_per_s": round(eligible / max(t1 - t0, 1e-9), 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repos", nargs="+", default=["flask", "requests", "werkzeug"])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pydriller-max", type=int, default=0, help="commits pydriller traverses (0: all)")
    ap.add_argument("--symbols", action="store_true", help="also measure symbol-level co-change")
    ap.add_argument("--out", default=str(HERE / "results" / "history_throughput.json"))
    args = ap.parse_args()
    print(__doc__.split("Usage:")[0])
    print(f"machine: {platform.platform()}, {os.cpu_count()} cpus, python {platform.python_version()}, "
          f"{subprocess.run(['git', '--version'], capture_output=True, text=True).stdout.strip()}")
    print(f"command: {' '.join(sys.argv)}\n")
    results = []
    for name in args.repos:
        repo = HERE / ".repos" / name
        if not (repo / ".git").exists():
            print(f"skip {name}: clone it to {repo}")
            continue
        bare_git(repo)                                           # warm the page cache
        mine(repo)
        pairs, fast = [], []
        no_counts = HistoryConfig(line_counts=False)
        for _ in range(args.runs):
            _, gw, gc = timed(lambda: bare_git(repo))
            res, mw, mc = timed(lambda: mine(repo))
            pairs.append((gw, gc, mw, mc))
            _, gw, gc = timed(lambda: bare_git(repo, line_counts=False))
            _, mw, mc = timed(lambda: mine(repo, no_counts))
            fast.append((gw, gc, mw, mc))
        gw = statistics.median(p[0] for p in pairs)
        mw = statistics.median(p[2] for p in pairs)
        row = {
            "repo": name, "head": res.head, "commits": res.counters["commits"],
            "file_changes": res.counters["file_changes"],
            "git_wall_s": round(gw, 3), "mine_wall_s": round(mw, 3),
            "git_cpu_s": round(statistics.median(p[1] for p in pairs), 3),
            "mine_cpu_s": round(statistics.median(p[3] for p in pairs), 3),
            "ratio_wall": round(statistics.median(p[2] / p[0] for p in pairs), 2),
            "ratio_cpu": round(statistics.median(p[3] / p[1] for p in pairs), 2),
            "mine_commits_per_s": round(res.counters["commits"] / mw, 1),
            "mine_commits_per_cpu_s": round(res.counters["commits"] / statistics.median(p[3] for p in pairs), 1),
            "git_commits_per_s": round(res.counters["commits"] / gw, 1),
            "runs": [[round(x, 3) for x in p] for p in pairs],
            "no_line_counts": {
                "git_wall_s": round(statistics.median(p[0] for p in fast), 3),
                "mine_wall_s": round(statistics.median(p[2] for p in fast), 3),
                "ratio_wall": round(statistics.median(p[2] / p[0] for p in fast), 2),
                "ratio_cpu": round(statistics.median(p[3] / p[1] for p in fast), 2),
                "mine_commits_per_s": round(res.counters["commits"] / statistics.median(p[2] for p in fast), 1),
                "mine_commits_per_cpu_s": round(res.counters["commits"] / statistics.median(p[3] for p in fast), 1),
                "runs": [[round(x, 3) for x in p] for p in fast],
            },
        }
        row["pydriller"] = pydriller_rate(repo, args.pydriller_max)
        row["speedup_vs_pydriller"] = round(row["mine_commits_per_s"] / row["pydriller"]["commits_per_s"], 1)
        row["speedup_vs_pydriller_cpu"] = round(row["mine_commits_per_cpu_s"] / row["pydriller"]["commits_per_cpu_s"], 1)
        nc = row["no_line_counts"]
        nc["speedup_vs_pydriller"] = round(nc["mine_commits_per_s"] / row["pydriller"]["commits_per_s"], 1)
        nc["speedup_vs_pydriller_cpu"] = round(nc["mine_commits_per_cpu_s"] / row["pydriller"]["commits_per_cpu_s"], 1)
        if args.symbols:
            row["symbols"] = symbols_cost(repo, res)
        results.append(row)
        print(json.dumps(row))
    print("\n| repo | commits | file changes | git log s (CPU s) | mine s (CPU s) | ratio wall | ratio CPU "
          "| mine commits/s (per CPU s) | pydriller commits/s (per CPU s) | speedup wall | speedup CPU |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        d = r["pydriller"]
        print(f"| {r['repo']} | {r['commits']} | {r['file_changes']} | {r['git_wall_s']} ({r['git_cpu_s']}) | "
              f"{r['mine_wall_s']} ({r['mine_cpu_s']}) | {r['ratio_wall']} | {r['ratio_cpu']} | "
              f"{r['mine_commits_per_s']} ({r['mine_commits_per_cpu_s']}) | {d['commits_per_s']} "
              f"({d['commits_per_cpu_s']}; {d['commits']} commits) | {r['speedup_vs_pydriller']}x | "
              f"{r['speedup_vs_pydriller_cpu']}x |")
    print("\nwithout line counts (HistoryConfig(line_counts=False): git log --raw, no --numstat):")
    print("| repo | git log s | mine s | ratio wall | ratio CPU | mine commits/s (per CPU s) | speedup vs pydriller wall | CPU |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        nc = r["no_line_counts"]
        print(f"| {r['repo']} | {nc['git_wall_s']} | {nc['mine_wall_s']} | {nc['ratio_wall']} | {nc['ratio_cpu']} | "
              f"{nc['mine_commits_per_s']} ({nc['mine_commits_per_cpu_s']}) | {nc['speedup_vs_pydriller']}x | "
              f"{nc['speedup_vs_pydriller_cpu']}x |")
    if args.symbols:
        print("\n| repo | eligible commits | symbol changes | pairs | diff+parse s | commits/s |")
        print("|---|---|---|---|---|---|")
        for r in results:
            s = r["symbols"]
            print(f"| {r['repo']} | {s['eligible_commits']} | {s['symbol_changes']} | {s['pairs']} | "
                  f"{s['diff_and_parse_s']} | {s['commits_per_s']} |")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"command": " ".join(sys.argv), "machine": platform.platform(),
                                          "cpus": os.cpu_count(), "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
