"""`stratum index A B ...` says what it indexed, where, and how it ended (the org-wide nightly probe):
a listed folder is its repository (one store, run after run), a folder its repository ignores or
does not track is no repository, an up-to-date repository keeps its node count, git's own reason
is said, and a run that could not start or was stopped says so in its exit code, log and report."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from stratum.cli import main
from stratum.cli.index import NOTHING_RAN, SOME_FAILED
from stratum.store import Store
from tests.gitrepo import Repo

pytestmark = pytest.mark.xdist_group("ray")   # a local Ray cluster: one worker starts them, in turn (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--no-ray", "--no-embed"]


def _repo(path: Path) -> Repo:
    r = Repo(path)
    r.commit("one", {"pkg/a.py": "def f():\n    return 1\n", "README.md": "# r\n"})
    return r


def _index(capsys, *args: str) -> tuple[int, dict]:
    rc = main(["index", *args, *FAST, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_a_listed_folder_is_its_repository_with_one_store_run_after_run(tmp_path, capsys):
    good = _repo(tmp_path / "good")
    stores = tmp_path / "stores"
    runs = [_index(capsys, str(good.path / "pkg"), str(good.path), "--store-root", str(stores)) for _ in range(3)]
    assert [p.name for p in stores.iterdir()] == ["good"]          # not pkg, pkg-2, pkg-3
    for rc, out in runs:
        assert rc == 0
        assert {r["store"] for r in out["repositories"]} == {str(stores / "good")}       # absolute
        assert {r["root"] for r in out["repositories"]} == {str(good.path)}
    assert Store(stores / "good").manifest().version == 1
    last = runs[-1][1]["repositories"][0]
    assert last["report"]["up_to_date"] and sum(last["report"]["nodes"].values()) >= 3
    assert f"pkg is inside {good.path}: indexing {good.path}" in last["report"]["messages"][0]
    rc = main(["index", str(good.path / "pkg"), str(good.path), "--store-root", str(stores), *FAST])
    text = capsys.readouterr().out
    assert rc == 0 and f"pkg (inside {good.path}: indexed that repository): up to date (version 1, " in text
    assert " 0 nodes" not in text


def test_a_moved_clone_keeps_its_store_under_a_store_root(tmp_path, capsys):
    _repo(tmp_path / "old" / "svc")
    stores = tmp_path / "stores"
    assert _index(capsys, str(tmp_path / "old" / "svc"), "--store-root", str(stores))[0] == 0
    (tmp_path / "new").mkdir()
    shutil.move(tmp_path / "old" / "svc", tmp_path / "new" / "svc")
    (tmp_path / "new" / "svc" / "b.py").write_text("x = 1\n")
    rc, out = _index(capsys, str(tmp_path / "new" / "svc"), "--store-root", str(stores))
    assert rc == 0 and out["repositories"][0]["store"] == str(stores / "svc")
    assert [p.name for p in stores.iterdir()] == ["svc"]
    assert Store(stores / "svc").manifest().repo_path == str(tmp_path / "new" / "svc")


def test_a_folder_the_enclosing_repository_ignores_or_does_not_track_is_no_repository(tmp_path, capsys):
    outer = Repo(tmp_path / "outer")
    outer.commit("one", {".gitignore": "scratch/\n", "src/m.py": "x = 1\n"})
    for folder in ("scratch", "fresh"):
        (outer.path / folder).mkdir()
        (outer.path / folder / "x.py").write_text("y = 2\n")
    good = _repo(tmp_path / "good")
    stores = tmp_path / "stores"
    rc, out = _index(capsys, str(outer.path / "scratch"), str(outer.path / "fresh"), str(good.path),
                     "--store-root", str(stores))
    assert rc == SOME_FAILED
    scratch, fresh, ok = out["repositories"]
    assert scratch["state"] == "failed" and scratch["error"]["type"] == "NotARepository"
    assert f"is not a git repository: it is inside {outer.path}, which ignores it" in scratch["error"]["message"]
    assert f"is not a git repository: it is inside {outer.path}, which tracks no file in it" in fresh["error"]["message"]
    assert ok["state"] == "ok"
    assert sorted(p.name for p in stores.iterdir()) == ["good"]     # nothing of outer was indexed


@pytest.mark.skipif(os.geteuid() != 0, reason="makes a repository owned by another user (chown)")
def test_git_says_why_it_cannot_read_a_repository(tmp_path, capsys):
    foreign = _repo(tmp_path / "foreign")
    subprocess.run(["chown", "-R", "65534:65534", str(foreign.path)], check=True)
    rc, out = _index(capsys, str(foreign.path), str(_repo(tmp_path / "good").path), "--store-root",
                     str(tmp_path / "stores"))
    msg = out["repositories"][0]["error"]["message"]
    assert rc == SOME_FAILED and "dubious ownership" in msg and "safe.directory" in msg
    assert "not inside a git repository" not in msg


def test_no_cluster_answering_is_its_own_exit_code_with_a_report_and_no_done_line(tmp_path):
    a, b = _repo(tmp_path / "a"), _repo(tmp_path / "b")
    report = tmp_path / "r.json"
    # a process of its own, as a user runs it: in the test process another test's Ray may be up,
    # and a library caller already joined to a cluster keeps it
    env = {**os.environ, "RAY_TMPDIR": str(ROOT / ".tmp" / "ray"), "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    out = subprocess.run([sys.executable, "-m", "stratum.cli", "index", str(a.path), str(b.path), "--store-root",
                          str(tmp_path / "s"), "--no-embed", "--ray-address", "127.0.0.1:1", "--report", str(report)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    rc = out.returncode
    assert rc == NOTHING_RAN != SOME_FAILED, (out.stdout, out.stderr)
    assert "done (" not in out.stderr and "indexed none of 2 repositories: no Ray cluster answers" in out.stdout
    rep = json.loads(report.read_text())
    assert not rep["ok"] and rep["error"]["code"] == "unavailable"
    assert [r["state"] for r in rep["repositories"]] == ["not_run", "not_run"]


@pytest.mark.parametrize("engine", ["--no-ray", "--ray"])
def test_sigterm_after_the_first_repository_leaves_a_report_and_log_saying_what_finished(tmp_path, engine):
    """The second repository hangs (its refs are a FIFO nobody writes: a stuck mount) until SIGTERM.
    On Ray too (the nightly's path): ray.init had replaced the run's SIGTERM handler with its own
    sys.exit(15), so the run ended 15 with its report still saying "running"."""
    first = _repo(tmp_path / "first")
    stuck = _repo(tmp_path / "stuck")
    subprocess.run(["git", "-C", str(stuck.path), "pack-refs", "--all"], check=True)
    fifo = stuck.path / ".git" / "packed-refs"
    fifo.unlink()
    os.mkfifo(fifo)
    report = tmp_path / "r.json"
    env = {**os.environ, "RAY_TMPDIR": str(ROOT / ".tmp" / "ray"), "RAY_USAGE_STATS_ENABLED": "0"}
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", "index", str(first.path), str(stuck.path),
                          "--store-root", str(tmp_path / "s"), "--report", str(report), "--no-embed", engine,
                          "--num-cpus", "1"],
                         cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err_lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [err_lines.put(ln) for ln in p.stderr or ()] + [err_lines.put("")],
                     daemon=True).start()
    try:
        seen = []
        while not seen or seen[-1] and not seen[-1].startswith("repositories: 1/"):   # a log line per repository
            try:
                seen.append(err_lines.get(timeout=60))
            except queue.Empty:
                break
        assert seen[-1].startswith(f"repositories: 1/2 ok {first.path}: "), seen
        assert json.loads(report.read_text())["repositories"][0]["state"] == "ok"   # written as it finished
        # the second repository is under way once it waits on the FIFO, which it then does for
        # good: a signal sent at the line itself could land before it started (then "not run")
        time.sleep(1.0)
        p.send_signal(signal.SIGTERM)
        out = p.stdout.read() if p.stdout else ""
        p.wait(timeout=60)
        err = "".join(iter(err_lines.get, ""))
    finally:
        if p.poll() is None:
            p.kill()
        try:                            # a git still waiting on the FIFO gets its end of file
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass                        # no reader left
    assert p.returncode == 143
    assert "repositories: stopped after 1 of 2 items" in err and "done (" not in err
    assert "stopped by SIGTERM" in out and f"INTERRUPTED {stuck.path}" in out
    rep = json.loads(report.read_text())
    assert rep["interrupted"] == "SIGTERM" and not rep["ok"] and not rep["finished"]
    assert [r["state"] for r in rep["repositories"]] == ["ok", "interrupted"]
    assert Store(tmp_path / "s" / "first").manifest().version == 1


def test_a_repos_file_that_is_not_utf8_is_read_as_linux_paths(tmp_path, capsys):
    parent = tmp_path / os.fsdecode(b"caf\xe9")
    good = _repo(parent / "shop")
    listing = tmp_path / "repos.txt"
    listing.write_bytes(b"# nightly\n" + os.fsencode(good.path) + b"\nmissing\xff\n")
    rc = main(["index", "--repos-file", str(listing), "--store-root", str(tmp_path / "stores"), *FAST])
    text, log = capsys.readouterr()
    assert rc == SOME_FAILED
    assert log.count("repositories: started (2 items)") == 1 and log.count("repositories: done (2 items") == 1
    assert "ok " + str(tmp_path) + "/caf\\xe9/shop: " in text and "missing\\xff does not exist" in text
    assert Store(tmp_path / "stores" / "shop").manifest().version == 1
    listing.write_bytes(b"shop\n\0\n")
    assert main(["index", "--repos-file", str(listing), "--store-root", str(tmp_path / "stores"), *FAST]) == 2
    assert "line 2 holds a NUL byte" in capsys.readouterr().err


def test_a_report_that_is_a_fifo_or_a_symlink_stays_one(tmp_path, capsys):
    """--report names a FIFO (a collector reads it) or a symlink: the atomic rewrite had put a file
    in the FIFO's place (its reader got nothing; as root it did the same to /dev/stdout) and over
    the link. A stream gets the final report once; a link's target is rewritten."""
    a, b = _repo(tmp_path / "a"), _repo(tmp_path / "b")
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    try:
        rc = main(["index", str(a.path), str(b.path), "--store-root", str(tmp_path / "s"), "--report", str(fifo), *FAST])
    finally:
        # a reader still waiting (nothing written) is let go. Asked only while it was alive, this
        # failed under load (ENXIO: no reader) when the reader had its report and had closed its end
        # but had not ended yet; a writer opened and closed after the report is harmless to it
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass                        # no reader left: it has what was written
    reader.join(10)
    assert rc == 0 and fifo.is_fifo()
    rep = json.loads(got[0])
    assert rep["finished"] and [r["state"] for r in rep["repositories"]] == ["ok", "ok"]
    target = tmp_path / "reports" / "nightly.json"
    target.parent.mkdir()
    link = tmp_path / "report.json"
    link.symlink_to(target)
    assert main(["index", str(a.path), "--report", str(link), *FAST]) == 0
    assert link.is_symlink() and json.loads(target.read_text())["repo"] == str(a.path)
    capsys.readouterr()
