"""Index speed as a user meets it: `stratum index` cold, with no change, and after a one-file commit.

Definitions (printed at the start of every run):
- **repository copy**: each clone in benchmarks/.repos/<name> is copied (with its .git) to a temp
  directory first; commits are made only in the copy, never in benchmarks/.repos.
- **run**: one `stratum index <copy> --store <tmp store> --json` in a fresh process (imports,
  model load and Ray start, if any, included), default settings unless --args says otherwise.
- **cold**: the first run into an empty store (parse, full history mining, embedding, write).
- **no-change**: a second run right after, nothing changed.
- **one-file commit**: a function appended to one tracked Python file (the first under src/, else
  the first tracked .py file), committed, then a run.
- **wall**: elapsed seconds of the process; **CPU**: its user+system seconds including the
  children it waited for (git, and Ray's when Ray runs), from wait4; **peak RSS**: the largest
  resident set of the process or one of those children (ru_maxrss), MiB.
- **engine**: what the run report says ran the stages (in-process or Ray, and why).
- **multi** (--multi): the same repositories cold in ONE `stratum index A B C --store-root DIR`
  run, in-process one after another (the default without a cluster) and with `--ray` (a local
  Ray, one task per repository, concurrently on the machine's cores); wall as above; CPU counts
  only the processes the driver waited for, so with Ray it leaves out the workers' CPU.
- **threshold** (--threshold): in-process parse rate (MB/s, one core) over the repositories'
  sources, and the cost of starting a local Ray to its first finished task; two cores win the
  start back once parsing alone would take 2 x start, i.e. at 2 x start x rate megabytes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

REPOS = HERE / ".repos"
STRATUM = [sys.executable, "-m", "stratum.cli"]
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "b@example.com", "GIT_CONFIG_GLOBAL": "/dev/null"}


def definitions() -> str:
    return __doc__.split("Definitions (printed at the start of every run):\n", 1)[1].strip()


def run_measured(cmd: list[str], env: dict, ok_codes: tuple[int, ...] = (0,)) -> dict:
    """Wall, CPU (self + waited children) and peak RSS of one process, from wait4."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    out = p.stdout.read() if p.stdout else b""
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in ok_codes:
        raise SystemExit(f"{' '.join(cmd)} failed with {p.returncode}")
    rep = json.loads(out)
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_mib": ru.ru_maxrss / 1024, "report": rep}


def one_file_commit(repo: Path) -> str:
    files = subprocess.run(["git", "-C", str(repo), "ls-files", "*.py"], capture_output=True, text=True,
                           check=True).stdout.split()
    target = next((f for f in files if f.startswith("src/")), files[0])
    with open(repo / target, "a") as fh:
        fh.write("\n\ndef _bench_added(x):\n    \"\"\"Added by benchmarks/index_speed.py.\"\"\"\n    return x + 1\n")
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "-C", str(repo), "commit", "-qam", "bench: one-file change"], check=True, env=env)
    return target


def bench_repo(name: str, extra: list[str], tmp: Path, env: dict) -> dict:
    copy = tmp / name
    shutil.copytree(REPOS / name, copy, symlinks=True)
    store = tmp / f"{name}.store"
    cmd = [*STRATUM, "index", str(copy), "--store", str(store), "--json", *extra]
    cold = run_measured(cmd, env)
    same = run_measured(cmd, env)
    changed = one_file_commit(copy)
    one = run_measured(cmd, env)
    r = cold["report"]
    return {"repo": name, "commit": subprocess.run(["git", "-C", str(REPOS / name), "rev-parse", "--short=10", "HEAD"],
                                                   capture_output=True, text=True).stdout.strip(),
            "nodes": sum(r["nodes"].values()), "files": r["files_parsed"], "commits": r["history"].get("commits_total"),
            "engine": r.get("engine", ""), "changed_file": changed,
            "cold": _row(cold), "no_change": _row(same), "one_file": _row(one)}


def _row(m: dict) -> dict:
    rep = m["report"]
    return {"wall": round(m["wall"], 2), "cpu": round(m["cpu"], 2), "rss_mib": round(m["rss_mib"]),
            "stages": {k: round(v, 2) for k, v in rep["seconds"].items()},
            "embedded": rep["embedded"], "parsed": rep["files_parsed"]}


def multi(names: list[str], extra: list[str], tmp: Path, env: dict) -> dict:
    """One multi-repository run, sequential in-process vs one Ray task per repository."""
    out = {}
    for mode, flags in (("in-process", ["--no-ray"]), ("ray", ["--ray"])):
        copies = []
        for name in names:
            dest = tmp / f"multi-{mode}" / name
            shutil.copytree(REPOS / name, dest, symlinks=True)
            copies.append(str(dest))
        cmd = [*STRATUM, "index", *copies, "--store-root", str(tmp / f"multi-{mode}-stores"), "--json", *flags, *extra]
        m = run_measured(cmd, env, ok_codes=(0,))
        out[mode] = {"wall": round(m["wall"], 2), "cpu": round(m["cpu"], 2), "rss_mib": round(m["rss_mib"]),
                     "per_repo_s": {Path(o["repo"]).name: round(o["seconds"], 2) for o in m["report"]["repositories"]},
                     "ok": m["report"]["ok"]}
    return out


def threshold(names: list[str]) -> dict:
    """In-process parse rate and the local Ray start cost (see the definitions)."""
    from pipeline.files import discover, read_source
    from pipeline.job import _parse_batch
    from stratum.config import ParseConfig

    cfg = ParseConfig()
    items = []
    for name in names:
        root = REPOS / name
        for f in discover(root, cfg).files:
            src = read_source(root, f, cfg)
            if src.data is not None:
                items.append((f.path, src.data))
    mb = sum(len(b) for _, b in items) / 1e6
    _parse_batch("warm", items[:5], cfg)
    t = time.process_time()
    _parse_batch("bench", items, cfg)
    cpu = time.process_time() - t
    code = ("import time, ray; t=time.perf_counter(); ray.init(num_cpus=2, object_store_memory=128<<20, "
            "include_dashboard=False, log_to_driver=False); ray.get(ray.remote(lambda: 1).remote()); "
            "print(time.perf_counter()-t)")
    starts = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                   env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}).stdout.strip().splitlines()[-1])
              for _ in range(3)]
    start = sorted(starts)[1]
    rate = mb / cpu
    return {"parse_mb": round(mb, 2), "parse_cpu_s": round(cpu, 2), "parse_mb_per_s": round(rate, 2),
            "ray_start_s": [round(s, 2) for s in starts], "ray_start_median_s": round(start, 2),
            "break_even_mb": round(2 * start * rate, 1)}


def markdown(rows: list[dict], thr: dict | None, command: str, model: str, mul: dict | None = None) -> str:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    import platform

    load = os.getloadavg()
    lines = ["# Index speed", "",
             "`stratum index` as a user runs it, in a fresh process per run, measured by "
             "`benchmarks/index_speed.py` (its definitions are printed at the start of every run and "
             "repeated in its docstring).", "",
             f"- **Command:** `{command}`",
             f"- **Date:** {now}",
             f"- **Machine:** {platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} CPUs, "
             f"Python {platform.python_version()}; load average at the end {load[0]:.1f} / {load[1]:.1f} "
             "(shared with other sessions: wall times include contention)",
             f"- **Embedding model:** {model}", "",
             "| repo | commit | nodes | commits | engine | cold wall s | cold CPU s | peak RSS MiB | "
             "no-change wall s | one-file commit wall s |",
             "|---|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['repo']} | {r['commit']} | {r['nodes']:,} | {r['commits']:,} | {r['engine'].split(' (')[0]} | "
                     f"{r['cold']['wall']:.2f} | {r['cold']['cpu']:.2f} | {r['cold']['rss_mib']} | "
                     f"{r['no_change']['wall']:.2f} | {r['one_file']['wall']:.2f} |")
    lines += ["", "Stage seconds inside the process (from the run report; the rest of the wall time is "
              "interpreter start and imports):", "",
              "| repo | run | " + " | ".join(["discover", "parse", "link", "history", "notes", "embed", "write", "total"]) + " |",
              "|---|---|" + "---:|" * 8]
    for r in rows:
        for k in ("cold", "no_change", "one_file"):
            s = r[k]["stages"]
            lines.append(f"| {r['repo']} | {k} | " + " | ".join(f"{s.get(x, 0):.2f}" for x in
                         ("discover", "parse", "link", "history", "notes", "embed", "write", "total")) + " |")
    if mul:
        lines += ["", "## Many repositories in one run", "",
                  "All of the repositories above, cold, in one `stratum index A B C --store-root DIR` "
                  "(peak RSS: the largest single process):", "",
                  "| mode | wall s | CPU s | peak RSS MiB | seconds per repository |", "|---|---:|---:|---:|---|"]
        for mode, m in mul.items():
            per = ", ".join(f"{k} {v:.1f}" for k, v in m["per_repo_s"].items())
            lines.append(f"| {mode} | {m['wall']:.2f} | {m['cpu']:.2f} | {m['rss_mib']} | {per} |")
    if thr:
        lines += ["", "## In-process or Ray: the threshold", "",
                  f"In-process parsing ran {thr['parse_mb_per_s']} MB/s on one core ({thr['parse_mb']} MB of "
                  f"these repositories in {thr['parse_cpu_s']} CPU s); a local Ray took {thr['ray_start_s']} s "
                  f"(median {thr['ray_start_median_s']} s) from `ray.init` to its first finished task. With two "
                  f"cores, Ray wins the start back once parsing alone would take twice the start: at "
                  f"~{thr['break_even_mb']} MB of source to parse."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--repos", nargs="+", default=["flask", "werkzeug", "requests"])
    ap.add_argument("--args", default="", help="extra `stratum index` arguments, e.g. '--no-embed'")
    ap.add_argument("--threshold", action="store_true", help="also measure the in-process/Ray threshold")
    ap.add_argument("--multi", action="store_true", help="also one multi-repository run, in-process vs Ray")
    ap.add_argument("--out", default=None, help="write the markdown page here (e.g. docs/bench/index_speed.md)")
    ap.add_argument("--json", default=str(HERE / "results" / "index_speed.json"))
    args = ap.parse_args(argv)
    print(definitions(), flush=True)
    from stratum.config import EmbedConfig

    model = EmbedConfig().model if "--no-embed" not in args.args else "none (--no-embed)"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": str(ROOT)}
    rows = []
    with tempfile.TemporaryDirectory(prefix="index_speed_") as tmp:
        for name in args.repos:
            row = bench_repo(name, args.args.split(), Path(tmp), env)
            print(json.dumps(row), flush=True)
            rows.append(row)
        mul = multi(args.repos, args.args.split(), Path(tmp), env) if args.multi else None
        if mul:
            print(json.dumps(mul), flush=True)
    thr = threshold(args.repos) if args.threshold else None
    if thr:
        print(json.dumps(thr))
    command = "python benchmarks/index_speed.py " + " ".join(argv if argv is not None else sys.argv[1:])
    page = markdown(rows, thr, command.strip(), model, mul)
    print(page)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"rows": rows, "threshold": thr, "multi": mul, "model": model}, indent=1))
    if args.out:
        Path(args.out).write_text(page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
