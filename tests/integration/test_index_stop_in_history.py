"""A stop (SIGTERM, a watch stopping) that lands while the index job mines a long history ends the
run within a second or two, before its publish: the mine had run on to its end (7-9 s here, minutes
on a big repository), past a pod's 30 s grace period, while `stratum index` had already said it
stopped. The history here is slow for git to read, not long to build: each commit deletes 900
files and adds 900 others, so git's rename detection compares every pair."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

from pipeline.history import RunStopped, mine
from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.store import Store
from stratum.tools import Tools
from tests.gitrepo import GIT_ENV, git, sample_python_repo

pytestmark = pytest.mark.slow        # a history git reads in ~7 s, three stops of it (~12 s)

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, **GIT_ENV, "RAY_TMPDIR": str(ROOT / ".tmp" / "ray"), "RAY_USAGE_STATS_ENABLED": "0"}
FILES, ROUNDS = 900, 24              # git log -M reads this in ~7 s on a quiet 2-core machine


def slow_history(repo: Path, files: int = FILES, rounds: int = ROUNDS) -> None:
    """Append ``rounds`` commits to main, each replacing ``files`` data files by as many new ones
    (then one that deletes the last set: HEAD's tree, what the index parses, stays the code)."""
    out, prev = [], None
    for r in range(rounds + 1):
        ops = [f"D data/r{prev}/f{i}.txt\n" for i in range(files)] if prev is not None else []
        if r < rounds:
            for i in range(files):
                body = "".join(f"v{r}_{i}_{j} = {(r * 7919 + i * 104729 + j * 31) % 1000003}\n" for j in range(20))
                ops.append(f"M 644 inline data/r{r}/f{i}.txt\ndata {len(body)}\n{body}")
        msg = f"data round {r}\n"
        out.append(f"commit refs/heads/main\ncommitter Ada <ada@example.com> {1706000000 + r} +0000\n"
                   f"data {len(msg)}\n{msg}" + ("from refs/heads/main^0\n" if r == 0 else "") + "".join(ops) + "\n")
        prev = r
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input="".join(out).encode(), check=True,
                   env=ENV)
    git(repo, "reset", "-q", "--hard", "main")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """(repo, store, version 1's manifest): the shop indexed, then a slow history committed on top."""
    base = tmp_path_factory.mktemp("stop")
    r = sample_python_repo(base / "shop")
    store = base / "store"
    index_repository(r.path, store, IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False)))
    slow_history(r.path)
    return r.path, store, Store(store).manifest()


def _lines_until(p: subprocess.Popen, prefix: str, timeout: float = 90) -> list[str]:
    """stderr lines of ``p`` up to the first starting with ``prefix`` (all of them if it never comes)."""
    seen: list[str] = []
    found = threading.Event()

    def read() -> None:
        for line in p.stderr or ():
            seen.append(line)
            if line.startswith(prefix):
                found.set()
                return
    threading.Thread(target=read, daemon=True).start()
    found.wait(timeout)
    return seen


@contextlib.contextmanager
def stratum(*args: str, **popen) -> Iterator[subprocess.Popen]:
    """A `stratum` process (killed on the way out if still running)."""
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", *args], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                         text=True, **popen)
    try:
        yield p
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def sigterm(p: subprocess.Popen, after: float) -> tuple[str, str, float]:
    """SIGTERM ``p`` ``after`` seconds from now: (its stdout, its stderr, seconds it took to exit)."""
    time.sleep(after)
    p.send_signal(signal.SIGTERM)
    t = time.monotonic()
    out, err = p.communicate(timeout=60)
    return out, err or "", time.monotonic() - t


def test_sigterm_in_the_history_stage_stops_at_once_and_the_store_serves_the_last_index(indexed, tmp_path):
    repo, store, before = indexed
    report = tmp_path / "r.json"
    with stratum("index", str(repo), "--store", str(store), "--no-embed", "--no-ray", "--report", str(report),
                 stderr=subprocess.PIPE) as p:
        seen = _lines_until(p, "history: started")
        assert seen and seen[-1].startswith("history: started"), seen     # parsed, now waiting for the mine
        _, err, took = sigterm(p, 0.3)
    err = "".join(seen) + err
    assert p.returncode == 143, err
    assert took < 3.0, f"exit took {took:.1f}s after SIGTERM"
    # the stop came while the job still waited for the mine (not after it, in a later stage)
    assert "history: stopped after 0 of 1 items" in err and f"index of {repo} stopped by SIGTERM" in err, err
    got = json.loads(report.read_text())
    assert got["state"] == "interrupted" and got["interrupted"] == "SIGTERM", got
    after = Store(store).manifest()
    assert (after.version, after.history_watermark, after.indexed_commit) == \
        (before.version, before.history_watermark, before.indexed_commit)
    t = Tools.open([str(store)])
    try:
        sid = t.open_session(author="agent").data["session"]
        r = t.search(sid, "discount code rounding")
        assert r.envelope.commit == before.indexed_commit
        assert any(i.path == "shop/pricing.py" for i in r.items), r.items
    finally:
        t.close()
    assert not [x for x in os.listdir(store) if x.endswith(".tmp")]


def test_the_miner_stops_at_its_flag_and_ends_git(indexed):
    repo, _, _ = indexed
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    t = time.monotonic()
    with pytest.raises(RunStopped):
        mine(repo, stop=stop)
    assert time.monotonic() - t < 2.0
    mine_gits = subprocess.run(["pgrep", "-f", f"git -C {repo} .*log -z"], capture_output=True, text=True)
    assert mine_gits.stdout == "", "the miner's git log outlived the stop"


def test_watch_stopped_during_its_first_index_exits_at_once_without_publishing(indexed, tmp_path):
    repo, _, _ = indexed
    store = tmp_path / "fresh"                       # a first run: it mines the whole slow history
    with stratum("watch", str(repo), "--store", str(store), "--no-embed", "--no-ray", stderr=subprocess.STDOUT) as p:
        assert p.stdout is not None and p.stdout.readline().startswith("watching")
        out, _, took = sigterm(p, 2.5)               # inside the first index (its mine takes ~7 s)
    assert p.returncode == 0, out
    assert took < 3.0, f"exit took {took:.1f}s after SIGTERM"
    assert "stopped after 0 index run(s); the run under way (start) was stopped before its publish" in out, out
    assert not (store / "manifest.json").exists()


DRIVER = """
import os, signal, sys
from stratum.store import Store
real = Store.publish

def publish(self, *a, **k):     # the signal lands as the manifest is switched (a real switch follows)
    os.kill(os.getpid(), signal.SIGTERM)
    return real(self, *a, **k)

Store.publish = publish
from stratum.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_signal_while_the_version_is_published_reports_the_published_run(tmp_path):
    """A probe: SIGTERM 5-30 ms after 'write: done' exited 143 with the report 'interrupted' while
    the manifest had moved to the new version (published, the merged log retired)."""
    import json

    from stratum.store import Store
    from tests.gitrepo import Repo

    r = Repo(tmp_path / "repo")
    r.commit("init", {"a.py": "def alpha():\n    return 1\n"})
    store, report = tmp_path / "store", tmp_path / "report.json"
    got = subprocess.run([sys.executable, "-c", DRIVER, "index", str(r.path), "--store", str(store), "--no-ray",
                          "--no-embed", "--report", str(report)], cwd=ROOT, env=ENV, capture_output=True, text=True,
                         timeout=300)
    assert got.returncode == 0, got.stderr
    assert json.loads(report.read_text()).get("state", "ok") != "interrupted"
    assert Store(store).manifest().version == 1
    assert "SIGTERM arrived while the new version was published" in got.stderr
