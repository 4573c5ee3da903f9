"""A nightly run whose disk fills up or which is stopped (an operations probe, session 23): a
repository that fails for space is failed and what it wrote removed, so the next ones still run; a
report that cannot be rewritten while the run goes on does not end the job, and one that cannot be
written at the end is an error of its own (exit 4); a failed or stopped run leaves only what it
published. A full disk is a file size limit here (``RLIMIT_FSIZE``: writes past it fail with EFBIG,
as writes to a full volume fail with ENOSPC), set in the CLI's own process; the real CLI, real git
repositories, the real index job."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pipeline.job import index_repository
from stratum.cli import main
from stratum.config import IndexConfig
from tests.gitrepo import Repo, git, release, stuck_refs

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--no-ray", "--no-embed"]
ENV = {**os.environ, "RAY_TMPDIR": str(ROOT / ".tmp" / "ray"), "RAY_USAGE_STATS_ENABLED": "0"}
CFG = IndexConfig(ray=False, num_cpus=1)


def _cli(*args: str, limit: int | None = None) -> subprocess.CompletedProcess:
    """The CLI in a process of its own; ``limit``: no file it writes may grow past this many bytes."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return subprocess.run([sys.executable, "-m", "stratum.cli", *args], cwd=ROOT, env=ENV, text=True,
                          capture_output=True, timeout=180, preexec_fn=cap if limit else None)


def _tiny(path: Path, folders: int = 0) -> Repo:
    r = Repo(path)
    files = {"a.py": "def f():\n    return 1\n"}
    files.update({f"p{i}/mod.py": f"def g{i}():\n    return {i}\n" for i in range(folders)})
    r.commit("one", files)
    return r


def _big(path: Path, n: int = 3000) -> Repo:
    """A repository whose index holds files of a few hundred KB (its nodes dataset, its warm indexes)."""
    r = Repo(path)
    r.commit("one", {f"pkg/m{k}.py": "".join(f'def fn_{k}_{i}(x):\n    """Step {i} of the {k}th pipeline."""\n'
                                              f"    return x + {i}\n\n" for i in range(n // 3))
                     for k in range(3)})
    return r


def _files(store: Path) -> set[str]:
    """What a store holds on disk, but Lance's hint of a dataset's newest version (it reads its
    version listing without it) and the readers' hold files."""
    return {str(p.relative_to(store)) for p in store.rglob("*")
            if p.is_file() and p.name != "latest_version_hint.json" and p.parent.name != "readers"}


def test_a_repository_failing_for_space_leaves_no_store_and_the_next_one_is_indexed(tmp_path):
    """Its first run had left its data and indexes (20 MB on the probe's volume) beside the lock,
    so the next repositories on that volume failed for space too."""
    big, tiny = _big(tmp_path / "big"), _tiny(tmp_path / "tiny")
    stores, report = tmp_path / "stores", tmp_path / "stores" / "nightly.report.json"
    stores.mkdir()
    p = _cli("index", str(big.path), str(tiny.path), "--store-root", str(stores), *FAST, "--report", str(report),
             limit=64 << 10)
    assert p.returncode == 1, p.stderr                          # some failed, the others were indexed
    rep = json.loads(report.read_text())
    assert rep["finished"] and [r["state"] for r in rep["repositories"]] == ["failed", "ok"]
    assert "File too large" in rep["repositories"][0]["error"]["message"]
    assert sorted(x.name for x in stores.iterdir()) == ["nightly.report.json", "tiny"]     # no big/ left
    assert f"FAILED {big.path}" in p.stdout and f"ok {tiny.path}" in p.stdout


def test_a_later_run_failing_for_space_leaves_only_the_published_version(tmp_path):
    """Only the failed run's own files go: its Lance versions, its warm folder; the store serves
    its last version and the next run publishes the next number."""
    big = _big(tmp_path / "big", n=300)
    store = tmp_path / "s"
    assert _cli("index", str(big.path), "--store", str(store), *FAST).returncode == 0
    before = _files(store)
    big.commit("grow", {"pkg/more.py": "".join(f"def more_{i}(y):\n    return y * {i}\n\n" for i in range(4000))})
    p = _cli("index", str(big.path), "--store", str(store), *FAST, limit=64 << 10)
    assert p.returncode == 1 and "File too large" in p.stderr
    assert _files(store) == before
    assert json.loads((store / "manifest.json").read_text())["version"] == 1
    p = _cli("index", str(big.path), "--store", str(store), *FAST)
    assert p.returncode == 0, p.stderr
    assert json.loads((store / "manifest.json").read_text())["version"] == 2


def test_a_report_that_cannot_be_rewritten_mid_run_does_not_stop_it_and_a_lost_final_one_is_exit_4(tmp_path):
    """The report shares the full volume: its rewrite after the first repository failed, and the
    whole job ended there ("stratum: error: No space left on device", exit 1), the second never
    tried, the file left saying the first was `running`. Here the report outgrows the limit once
    the first repository's outcome (listed under 12 of its folders) is in."""
    one, two = _tiny(tmp_path / "one", folders=12), _tiny(tmp_path / "two")
    listed = [str(one.path)] + [str(one.path / f"p{i}") for i in range(12)] + [str(two.path)]
    report = tmp_path / "r.json"
    p = _cli("index", *listed, "--store-root", str(tmp_path / "s"), *FAST, "--report", str(report),
             limit=32 << 10)
    assert p.returncode == 4, p.stderr
    assert p.stderr.count("stratum: warning: cannot rewrite the report") == 1     # said once
    assert f"stratum: error: cannot write the report {report} (File too large)" in p.stderr
    assert "the file there was removed" in p.stderr and not report.exists()
    assert "indexed 14 of 14 repositories" in p.stdout and f"ok {two.path}" in p.stdout
    assert (tmp_path / "s" / "two" / "manifest.json").is_file()                  # the second ran


def test_a_final_report_to_a_full_device_is_its_own_error(tmp_path, capsys):
    """/dev/full fails every write with ENOSPC: the run's outcome is the summary, exit 4."""
    one, two = _tiny(tmp_path / "one"), _tiny(tmp_path / "two")
    assert main(["index", str(one.path), str(two.path), "--store-root", str(tmp_path / "s"), *FAST,
                 "--report", "/dev/full"]) == 4
    out, err = capsys.readouterr()
    assert "indexed 2 of 2 repositories" in out
    assert "stratum: error: cannot write the report /dev/full (No space left on device)" in err
    assert main(["index", str(one.path), "--store", str(tmp_path / "one-store"), *FAST, "--report", "/dev/full"]) == 4
    out, err = capsys.readouterr()
    assert f"indexed {one.path}" in out and "cannot write the report /dev/full" in err


def _stuck(path: Path) -> tuple[Repo, Path]:
    """A repository whose refs are a FIFO nobody writes: git hangs reading them, once the index
    run holds its store's lock (its root commits are read there)."""
    r = _tiny(path)
    git(r.path, "pack-refs", "--all")
    return r, stuck_refs(r.path)


def _stop_when_locked(args: list[str], lock: Path, fifo: Path) -> int:
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", *args], cwd=ROOT, env=ENV,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and p.poll() is None and not lock.exists():
            time.sleep(0.02)
        time.sleep(0.3)
        p.send_signal(signal.SIGTERM)
        return p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
        release(fifo)


def test_a_first_run_stopped_by_sigterm_leaves_no_store_folder(tmp_path):
    """It left `DIR/<name>/` (and a --store folder) holding only `lock`."""
    stuck, fifo = _stuck(tmp_path / "stuck")
    other = _tiny(tmp_path / "other")
    stores = tmp_path / "stores"
    assert _stop_when_locked(["index", str(stuck.path), str(other.path), "--store-root", str(stores), *FAST],
                             stores / "stuck" / "lock", fifo) == 143
    assert not (stores / "stuck").exists()
    fifo = stuck_refs(stuck.path)       # release() left an empty file there: stuck again
    assert _stop_when_locked(["index", str(stuck.path), "--store", str(tmp_path / "one"), *FAST],
                             tmp_path / "one" / "lock", fifo) == 143
    assert not (tmp_path / "one").exists()


class _StopAt:
    """A caller's progress (``watch`` passes its own) that sets the run's stop flag as a stage starts."""

    def __init__(self, stage: str):
        self.stage, self.flag = stage, threading.Event()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage == self.stage:
            self.flag.set()


def _stopped_at_notes(r, store) -> None:
    from pipeline.history import RunStopped

    stop = _StopAt("notes")
    with pytest.raises(RunStopped):
        index_repository(r.path, store, CFG, progress=stop, stop=stop.flag)


def test_a_stopped_run_leaves_only_what_was_published(tmp_path):
    """Stopped after its history datasets were written: on a first run the store folder it made
    goes; on a later run only its own Lance versions do."""
    r = _tiny(tmp_path / "r")
    store = tmp_path / "s"
    _stopped_at_notes(r, store)
    assert not store.exists()
    index_repository(r.path, store, CFG)
    before = _files(store)
    r.commit("two", {"b.py": "def h():\n    return 2\n"})
    _stopped_at_notes(r, store)
    assert _files(store) == before
    assert index_repository(r.path, store, CFG).version == 2


def test_an_empty_repository_is_up_to_date_on_its_second_run(tmp_path):
    """A repository with no commits published a new version of nothing on every run."""
    r = Repo(tmp_path / "empty")
    store = tmp_path / "s"
    assert index_repository(r.path, store, CFG).version == 1
    again = index_repository(r.path, store, CFG)
    assert again.up_to_date and again.version == 1
    assert "HEAD has no commit yet, the work tree is clean" in " ".join(again.messages)
    assert json.loads((store / "manifest.json").read_text())["version"] == 1
    r.commit("first", {"a.py": "def f():\n    return 1\n"})
    assert index_repository(r.path, store, CFG).version == 2


def test_keep_1_beside_a_reader_keeps_its_version_and_the_newest(tmp_path):
    """`--keep 1` with a server on version 1 kept [1, 5, 6]: the run's own hold on its previous
    version counted as a reader's."""
    from stratum.store import Store

    r = _tiny(tmp_path / "r")
    store = tmp_path / "s"
    assert main(["index", str(r.path), "--store", str(store), *FAST, "--keep", "0"]) == 0
    server = Store(store).snapshot()                # a reader on version 1
    for i in range(2, 4):
        r.commit(f"c{i}", {"a.py": f"def f():\n    return {i}\n"})
        assert main(["index", str(r.path), "--store", str(store), *FAST, "--keep", "0"]) == 0
    r.commit("c4", {"a.py": "def f():\n    return 4\n"})
    assert main(["index", str(r.path), "--store", str(store), *FAST, "--keep", "1", "--json"]) == 0
    assert sorted(p.name for p in (store / "indexes").iterdir()) == ["v000001", "v000004"]
    assert server.read("nodes").num_rows > 0        # the reader's version still reads
