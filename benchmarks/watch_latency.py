"""Watch latency: from `git commit` to the first answer that reflects the commit, `stratum watch` running.

Definitions (printed at the start of every run):
- **repository copy**: benchmarks/.repos/<repo> is copied (with its .git) to a temp directory;
  commits are made only in the copy. It is indexed once cold (`stratum index`) before timing.
- **watch**: one `stratum watch <copy> --store <store> --interval I --debounce D` process, started
  before the rounds (its start-up index finds the store up to date), running throughout.
- **round**: a new function `watch_probe_<round>_<nonce>` (with a docstring) is appended to one
  tracked file (alternating src/flask/helpers.py and src/flask/cli.py), then `git commit -am`.
  The clock starts when `git commit` returns.
- **publish**: the store's manifest.json names a newer version (looked at before each Tools try).
- **answer (Tools)**: `Tools.search(<probe name>)` in this process, over the same store, with
  `Tools.reload()` before each try (what a server's reload loop does every `reload_interval`,
  2 s by default; a server adds up to that interval), every 20 ms; reflected = the probe function
  is among the hits.
- **answer (CLI)**: after the Tools answer, one `stratum search <probe name> --store <store> --json`
  process (interpreter start and imports included) that finds the probe: what a user sees as the
  next answer when each command is its own process (it opens the published version).
- **index s**: the seconds `stratum watch` prints for that re-index (in its warm process).
- **hooks** (--hooks): the same rounds with `stratum hooks install` and no watch: each commit
  starts a detached `stratum hooks run` (fresh process: imports and model load included; it
  waits 0.3 s for more hooks first).
- p50 / max over the rounds of each configuration.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

STRATUM = [sys.executable, "-m", "stratum.cli"]
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "b@example.com", "GIT_CONFIG_GLOBAL": "/dev/null"}
FILES = ("src/flask/helpers.py", "src/flask/cli.py")
TICK = 0.02


def definitions() -> str:
    return __doc__.split("Definitions (printed at the start of every run):\n", 1)[1].strip()


def _version(store: Path) -> int:
    try:
        return json.loads((store / "manifest.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return 0


def _found(resp, name: str) -> bool:
    return any(getattr(it, "qualname", "") == name or name in (getattr(it, "id", "") or "") for it in resp.items)


class WatchProc:
    def __init__(self, repo: Path, store: Path, interval: float, debounce: float, env: dict):
        self.p = subprocess.Popen([*STRATUM, "watch", str(repo), "--store", str(store), "--interval", str(interval),
                                   "--debounce", str(debounce), "--json"], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
        self.runs: list[dict] = []
        self.cv = threading.Condition()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.p.stdout:
            try:
                d = json.loads(line)
            except ValueError:
                continue
            with self.cv:
                self.runs.append(d)
                self.cv.notify_all()

    def wait_runs(self, n: int, timeout: float = 120) -> dict:
        with self.cv:
            if not self.cv.wait_for(lambda: len(self.runs) >= n, timeout):
                raise RuntimeError(f"stratum watch printed {len(self.runs)} runs, expected {n}")
            return self.runs[n - 1]

    def stop(self) -> None:
        self.p.terminate()
        self.p.wait(timeout=60)


def _round(repo: Path, store: Path, tools, sid: str, k: int, env: dict) -> dict:
    """One commit, then poll until published and until a Tools answer reflects it; then a CLI answer."""
    name = f"watch_probe_{k}_{os.getpid()}_{int(time.time() * 1000) % 100000}"
    with open(repo / FILES[k % len(FILES)], "a") as fh:
        fh.write(f'\n\ndef {name}(value):\n    """Probe added by the watch latency benchmark."""\n'
                 f'    return value\n')
    v0 = _version(store)
    subprocess.run(["git", "-C", str(repo), "commit", "-qam", f"probe {k}"], env=env, check=True)
    t0 = time.perf_counter()
    published = answered = None
    while time.perf_counter() - t0 < 60:
        if published is None and _version(store) > v0:
            published = time.perf_counter() - t0
        tools.reload()
        if _found(tools.search(sid, name, page_size=5), name):
            answered = time.perf_counter() - t0
            break
        time.sleep(TICK)
    if answered is None:
        raise RuntimeError(f"round {k}: no answer reflected {name} within 60 s")
    t = time.perf_counter()
    p = subprocess.run([*STRATUM, "search", name, "--store", str(store), "--json", "--page-size", "5"],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    cli = time.perf_counter() - t
    cli_ok = p.returncode == 0 and any(i.get("qualname") == name for i in json.loads(p.stdout)["items"])
    return {"round": k, "publish_s": published if published is not None else answered, "tools_s": answered,
            "cli_process_s": cli, "cli_found": cli_ok}


def _log(label: str, row: dict, log) -> None:
    idx = f", index {row['index_s']:.2f}s" if row.get("index_s") is not None else ""
    log(f"  {label} round {row['round']}: publish {row['publish_s']:.2f}s, Tools answer {row['tools_s']:.2f}s, "
        f"CLI process {row['cli_process_s']:.2f}s (found: {row['cli_found']}){idx}")


def measure(repo: Path, store: Path, interval: float, debounce: float, rounds: int, env: dict, log=print) -> list:
    from stratum.tools import Tools

    w = WatchProc(repo, store, interval, debounce, env)
    out = []
    try:
        w.wait_runs(1)
        tools = Tools.open([str(store)])
        sid = tools.open_session(author="bench").data["session"]
        for k in range(rounds):
            row = _round(repo, store, tools, sid, k, env)
            row["index_s"] = w.wait_runs(k + 2)["seconds"]
            _log(f"watch interval {interval} debounce {debounce}", row, log)
            out.append(row)
            time.sleep(0.3)
        tools.close()
    finally:
        w.stop()
    return out


def measure_hooks(repo: Path, store: Path, rounds: int, env: dict, log=print) -> list:
    """The same rounds with `stratum hooks install` instead of watch: a fresh process per commit."""
    from stratum.tools import Tools

    subprocess.run([*STRATUM, "hooks", "install", str(repo), "--store", str(store)], env=env, check=True,
                   stdout=subprocess.DEVNULL, cwd=ROOT)
    out = []
    tools = Tools.open([str(store)])
    sid = tools.open_session(author="bench").data["session"]
    try:
        for k in range(100, 100 + rounds):
            row = _round(repo, store, tools, sid, k, env)
            row["index_s"] = None
            _log("hooks", row, log)
            out.append(row)
            time.sleep(1.0)          # let the runner exit before the next commit
    finally:
        tools.close()
        subprocess.run([*STRATUM, "hooks", "uninstall", str(repo)], env=env, stdout=subprocess.DEVNULL, cwd=ROOT)
    return out


def _median_or_dash(xs) -> str:
    xs = [x for x in xs if x is not None]
    return f"{statistics.median(xs):.2f}" if xs else "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--repo", default="flask")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--configs", default="0.5:1.0,0.1:0.2", help="interval:debounce pairs, comma-separated")
    ap.add_argument("--hooks", action="store_true", help="also measure `stratum hooks install` (no watch)")
    ap.add_argument("--out", default=None, help="write the markdown table here")
    ap.add_argument("--json", default=None, help="write the raw rows here")
    a = ap.parse_args()
    print("Definitions:\n" + definitions() + "\n", flush=True)
    src = HERE / ".repos" / a.repo
    env = {**os.environ, **GIT_ENV, "RAY_USAGE_STATS_ENABLED": "0"}
    env.setdefault("RAY_TMPDIR", str(ROOT / ".tmp" / "ray"))
    rows: dict[str, list] = {}
    with tempfile.TemporaryDirectory(prefix="watch-bench-") as tmp:
        repo, store = Path(tmp) / a.repo, Path(tmp) / "store"
        shutil.copytree(src, repo, symlinks=True)
        t = time.perf_counter()
        subprocess.run([*STRATUM, "index", str(repo), "--store", str(store), "--json"], env=env, check=True,
                       stdout=subprocess.DEVNULL, cwd=ROOT)
        print(f"cold index of the copy: {time.perf_counter() - t:.1f}s", flush=True)
        for cfg in a.configs.split(","):
            interval, debounce = (float(x) for x in cfg.split(":"))
            rows[cfg] = measure(repo, store, interval, debounce, a.rounds, env)
        if a.hooks:
            rows["hooks"] = measure_hooks(repo, store, a.rounds, env)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg()[:2])
    lines = [f"- **Command:** `python benchmarks/watch_latency.py {' '.join(sys.argv[1:])}`".rstrip(),
             f"- **Date:** {when}",
             f"- **Machine:** {platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} CPUs, "
             f"Python {platform.python_version()}; load average at the end {load} (shared machine)",
             f"- **Repository:** {a.repo}, {a.rounds} rounds per configuration", "",
             "| interval s | debounce s | publish p50 s | publish max s | Tools answer p50 s | Tools answer max s "
             "| CLI process p50 s | watch index p50 s | within 3 s |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for cfg, rs in rows.items():
        interval, debounce = cfg.split(":") if cfg != "hooks" else ("hooks", "(settle 0.3)")
        ans = [r["tools_s"] for r in rs]
        ok = sum(1 for r in rs if r["tools_s"] <= 3.0)
        lines.append(f"| {interval} | {debounce} | {statistics.median(r['publish_s'] for r in rs):.2f} | "
                     f"{max(r['publish_s'] for r in rs):.2f} | {statistics.median(ans):.2f} | {max(ans):.2f} | "
                     f"{statistics.median(r['cli_process_s'] for r in rs):.2f} | "
                     f"{_median_or_dash([r['index_s'] for r in rs])} | {ok}/{len(rs)} |")
    table = "\n".join(lines)
    print("\n" + table)
    if a.out:
        Path(a.out).write_text(table + "\n")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
