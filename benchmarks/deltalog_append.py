"""Delta-log append latency and throughput, with and without group commit, threads and processes.

Definitions (printed with the results):
- latency: wall time of one ``DeltaLog.append`` call, from call to return (the record is durable:
  written and fdatasync'ed), one writer thread, notes of ~600 bytes of JSON; p50 / p99 / mean.
- throughput: acknowledged records per second of wall time, W writers x N appends each.
  "threads, group commit": W threads share one DeltaLog; concurrent appends share one fdatasync.
  "threads, sync per append": same, but every append does its own write + fdatasync under the lock.
  "processes": W OS processes, each its own DeltaLog (own segment), one thread each; wall time
  includes interpreter start-up (~0.1 s), measured from spawn to the last exit.
- syncs: fdatasync calls issued; records/sync shows the batching.
- "no sync" rows turn durability off (sync=False) only to show what the sync costs; never used.
- scan: ``DeltaLog.scan()`` over everything written, records per second (checksums verified).

Usage: python benchmarks/deltalog_append.py [--dir DIR] [--n 500] [--writers 8]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stratum.deltalog import DeltaLog  # noqa: E402

BODY = {"kind": "rca", "text": "The checkout total ignores per-item discounts: cart.total() sums prices "
        "before apply_discounts() runs, so the fix belongs in total(), not in the payment gateway. " * 2,
        "about": [{"given": "shop/cart.py::total", "node_id": "0" * 20, "content_hash": "1" * 40,
                   "path": "shop/cart.py", "qualname": "total", "kind": "function"}],
        "author": "claude-sonnet", "session": "s1", "tags": ["checkout"], "supersedes": [],
        "created_at": "2026-11-30T10:00:00+00:00"}

CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[3])
from stratum.deltalog import DeltaLog
import json
body = json.loads(sys.argv[4])
log = DeltaLog(sys.argv[1])
for _ in range(int(sys.argv[2])):
    log.append("note", body)
print(log.fsyncs)
"""


def latency(d: Path, n: int, sync: bool) -> dict:
    log = DeltaLog(d, sync=sync)
    log.append("note", BODY)                 # segment creation is not part of the steady state
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        log.append("note", BODY)
        ts.append(time.perf_counter() - t)
    ts.sort()
    return {"p50_ms": ts[len(ts) // 2] * 1e3, "p99_ms": ts[int(len(ts) * 0.99) - 1] * 1e3,
            "mean_ms": statistics.fmean(ts) * 1e3, "syncs": log.fsyncs - (1 if sync else 0)}


def threads(d: Path, writers: int, n: int, group: bool, sync: bool = True) -> dict:
    log = DeltaLog(d, group_commit=group, sync=sync)
    log.append("note", BODY)
    base = log.fsyncs

    def work():
        for _ in range(n):
            log.append("note", BODY)

    ts = [threading.Thread(target=work) for _ in range(writers)]
    t = time.perf_counter()
    for th in ts:
        th.start()
    for th in ts:
        th.join()
    dt = time.perf_counter() - t
    syncs = log.fsyncs - base
    return {"records": writers * n, "seconds": dt, "per_s": writers * n / dt, "syncs": syncs}


def processes(d: Path, writers: int, n: int) -> dict:
    import json

    t = time.perf_counter()
    ps = [subprocess.Popen([sys.executable, "-c", CHILD, str(d), str(n), str(ROOT), json.dumps(BODY)],
                           stdout=subprocess.PIPE, text=True) for _ in range(writers)]
    syncs = sum(int(p.communicate()[0].strip()) for p in ps)
    dt = time.perf_counter() - t
    return {"records": writers * n, "seconds": dt, "per_s": writers * n / dt, "syncs": syncs}


def scan(d: Path) -> dict:
    t = time.perf_counter()
    rep = DeltaLog(d).scan()
    dt = time.perf_counter() - t
    return {"records": len(rep.records), "seconds": dt, "per_s": len(rep.records) / dt,
            "mb": rep.bytes / 1e6, "damage": len(rep.damage)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=None, help="where to write (default: a temp dir under .tmp/)")
    ap.add_argument("--n", type=int, default=500, help="appends per writer")
    ap.add_argument("--writers", type=int, default=8)
    a = ap.parse_args()
    base = Path(a.dir) if a.dir else Path(tempfile.mkdtemp(prefix="bench-deltalog-", dir=ROOT / ".tmp"))
    fs = subprocess.run(["df", "-T", str(base)], capture_output=True, text=True).stdout.splitlines()[-1].split()
    print(__doc__.split("Usage:")[0].strip())
    print(f"\nmachine: {platform.node()} {platform.machine()} {os.cpu_count()} cpus, python {platform.python_version()}, "
          f"dir {base} on {fs[1]} ({fs[0]})")
    print(f"command: python benchmarks/deltalog_append.py --n {a.n} --writers {a.writers}\n")

    lat = latency(base / "lat-sync", a.n, True)
    lat_ns = latency(base / "lat-nosync", a.n, False)
    print("| single writer, one append at a time | p50 ms | p99 ms | mean ms | syncs |")
    print("|---|---|---|---|---|")
    print(f"| durable (fdatasync) | {lat['p50_ms']:.2f} | {lat['p99_ms']:.2f} | {lat['mean_ms']:.2f} | {lat['syncs']} |")
    print(f"| no sync (cost reference) | {lat_ns['p50_ms']:.3f} | {lat_ns['p99_ms']:.3f} | {lat_ns['mean_ms']:.3f} | 0 |")

    w, n = a.writers, a.n
    rows = [("threads, group commit", threads(base / "tg", w, n, True)),
            ("threads, sync per append", threads(base / "ts", w, n, False)),
            ("processes (one segment each)", processes(base / "pr", w, n)),
            ("threads, no sync (cost reference)", threads(base / "tn", w, n, True, sync=False))]
    ref = rows[1][1]["per_s"]
    print(f"\n| {w} writers x {n} appends | records/s | seconds | syncs | records/sync | vs sync per append |")
    print("|---|---|---|---|---|---|")
    for name, r in rows:
        per_sync = f"{r['records'] / r['syncs']:.1f}" if r["syncs"] else "-"
        print(f"| {name} | {r['per_s']:.0f} | {r['seconds']:.2f} | {r['syncs']} | {per_sync} | "
              f"{r['per_s'] / ref:.2f}x |")
    s = scan(base / "tg")
    print(f"\nscan: {s['records']} records ({s['mb']:.1f} MB) in {s['seconds']:.3f} s = {s['per_s']:.0f} records/s, "
          f"{s['damage']} damaged regions")


if __name__ == "__main__":
    main()
