"""A nightly `stratum index` as an operator runs it (cron, a pod): the report into a log it must not
wipe, forks whose checkout folder moved, a damaged store, a run killed with SIGKILL, an empty list,
a repository that fails on its first run. Real git repositories, the real CLI (its ``main`` or a
process of its own)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stratum.cli import main
from stratum.store import Store
from tests.gitrepo import Repo, git, release, stuck_refs

pytestmark = pytest.mark.xdist_group("ray")   # a local Ray cluster: one worker starts them, in turn (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--no-ray", "--no-embed"]
ENV = {**os.environ, "RAY_TMPDIR": str(ROOT / ".tmp" / "ray"), "RAY_USAGE_STATS_ENABLED": "0"}


def _repo(path: Path, files: dict[str, str] | None = None) -> Repo:
    r = Repo(path)
    r.commit("one", files or {"pkg/a.py": "def f():\n    return 1\n"})
    return r


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratum.cli", *args], cwd=ROOT, env=ENV, text=True,
                          timeout=180, **kw)


def test_report_to_stdout_appended_to_a_log_is_appended_once_and_the_log_kept(tmp_path):
    """`--report /dev/stdout >> nightly.log` had renamed a new file over the log (/dev/stdout is
    /proc/self/fd/1, the log itself): the previous nights' lines were gone."""
    a, b = _repo(tmp_path / "a"), _repo(tmp_path / "b")
    log = tmp_path / "nightly.log"
    log.write_text("=== previous nights ===\n")
    inode = log.stat().st_ino
    for args in ([str(a.path), str(b.path), "--store-root", str(tmp_path / "s")],       # several
                 [str(a.path), "--store", str(tmp_path / "one")]):                       # one
        with open(log, "a") as out:
            p = _cli("index", *args, *FAST, "--report", "/dev/stdout", stdout=out, stderr=subprocess.PIPE)
        assert p.returncode == 0, p.stderr
    text = log.read_text()
    assert log.stat().st_ino == inode and [x.name for x in tmp_path.iterdir() if "nightly" in x.name] == ["nightly.log"]
    assert text.startswith("=== previous nights ===\n")
    first = text.index("{")
    several, end = json.JSONDecoder().raw_decode(text, first)          # the final report, once: no "running" one
    assert several["finished"] and [r["state"] for r in several["repositories"]] == ["ok", "ok"]
    assert "indexed 2 of 2 repositories" in text[end:]
    one, _ = json.JSONDecoder().raw_decode(text, text.index("{", text.index("indexed 2 of 2")))
    assert one["version"] == 1 and "state" not in one                  # the run report, not "running"
    assert text.count('"finished"') == 1


def test_report_to_stdout_into_a_pipe_arrives(tmp_path):
    """Through a pipe (`| jq`), /proc/self/fd/1 names no file: the run failed writing a temp file there."""
    a = _repo(tmp_path / "a")
    p = _cli("index", str(a.path), "--store", str(tmp_path / "s"), *FAST, "--report", "/dev/stdout",
             capture_output=True)
    assert p.returncode == 0, p.stderr
    report, _ = json.JSONDecoder().raw_decode(p.stdout)
    assert report["version"] == 1


def test_report_in_a_missing_folder_or_a_folder_is_refused_before_anything_runs(tmp_path, capsys):
    a = _repo(tmp_path / "a")
    assert main(["index", str(a.path), "--store", str(tmp_path / "s"), *FAST,
                 "--report", str(tmp_path / "no" / "r.json")]) == 2
    assert f"--report {tmp_path / 'no' / 'r.json'}: folder {tmp_path / 'no'} does not exist" in capsys.readouterr().err
    assert main(["index", str(a.path), "--store", str(tmp_path / "s"), *FAST, "--report", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def _forks(base: Path, own: bool) -> tuple[Path, Path]:
    """Two clones of one upstream under base/old (zeta, omega); with ``own``, a commit of each's own."""
    up = _repo(base / "old" / "upstream", {"core.py": "def base():\n    return 1\n"})
    for name in ("zeta", "omega"):
        git(base / "old", "clone", "-q", str(up.path), name)
        if own:
            (base / "old" / name / f"{name}.py").write_text(f"def {name}_only():\n    return 2\n")
            git(base / "old" / name, "add", "-A")
            git(base / "old" / name, "commit", "-qm", name)
    return base / "old" / "zeta", base / "old" / "omega"


def _note(store: Path, text: str, about: str, capsys) -> None:
    assert main(["remember", "rca", text, "--about", about, "--store", str(store)]) == 0
    capsys.readouterr()


def test_forks_whose_folder_moved_keep_their_own_stores_and_notes(tmp_path, capsys):
    """Forks share their root commit: the first moved store sharing one was taken, so the two
    forks' stores (and notes) swapped when their checkout folder moved."""
    zeta, omega = _forks(tmp_path, own=True)
    stores = tmp_path / "stores"
    assert main(["index", str(zeta), str(omega), "--store-root", str(stores), *FAST]) == 0
    _note(stores / "zeta", "ZETA note", "zeta.py", capsys)
    _note(stores / "omega", "OMEGA note", "omega.py", capsys)
    shutil.move(tmp_path / "old", tmp_path / "new")
    assert main(["index", str(tmp_path / "new" / "zeta"), str(tmp_path / "new" / "omega"),
                 "--store-root", str(stores), *FAST]) == 0
    capsys.readouterr()
    for name in ("zeta", "omega"):
        assert Store(stores / name).manifest().repo_path == str(tmp_path / "new" / name)
        assert main(["notes", "list", "--store", str(stores / name)]) == 0
        listed = capsys.readouterr().out
        assert f"{name.upper()} note" in listed and "orphaned" not in listed
    assert sorted(p.name for p in stores.iterdir()) == ["omega", "zeta"]


def test_a_moved_clone_that_could_be_either_store_is_refused_never_guessed(tmp_path, capsys):
    """Two clones at the same commit, moved and renamed: either store could be either's. Each fails
    saying so and what to run; neither store is touched."""
    zeta, omega = _forks(tmp_path, own=False)
    stores = tmp_path / "stores"
    assert main(["index", str(zeta), str(omega), "--store-root", str(stores), *FAST]) == 0
    (tmp_path / "new").mkdir()
    shutil.move(zeta, tmp_path / "new" / "z2")
    shutil.move(omega, tmp_path / "new" / "o2")
    capsys.readouterr()
    rc = main(["index", str(tmp_path / "new" / "z2"), str(tmp_path / "new" / "o2"), "--store-root", str(stores),
               *FAST, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1
    for r in out["repositories"]:
        assert r["state"] == "failed" and "more than one store under" in r["error"]["message"]
        assert f"--store {stores}/NAME" in r["error"]["message"]
    assert {Store(stores / n).manifest().version for n in ("zeta", "omega")} == {1}
    assert sorted(p.name for p in stores.iterdir()) == ["omega", "zeta"]
    # told which, once, the store-root run finds it from then on
    assert main(["index", str(tmp_path / "new" / "z2"), "--store", str(stores / "zeta"), *FAST]) == 0
    capsys.readouterr()
    rc = main(["index", str(tmp_path / "new" / "z2"), "--store-root", str(stores), *FAST, "--json"])
    assert rc == 0 and json.loads(capsys.readouterr().out)["repositories"][0]["store"] == str(stores / "zeta")


def test_moved_clones_at_one_commit_keep_the_stores_of_their_folder_names(tmp_path, capsys):
    zeta, omega = _forks(tmp_path, own=False)
    stores = tmp_path / "stores"
    assert main(["index", str(zeta), str(omega), "--store-root", str(stores), *FAST]) == 0
    shutil.move(tmp_path / "old", tmp_path / "new")
    assert main(["index", str(tmp_path / "new" / "zeta"), str(tmp_path / "new" / "omega"),
                 "--store-root", str(stores), *FAST]) == 0
    for name in ("zeta", "omega"):
        assert Store(stores / name).manifest().repo_path == str(tmp_path / "new" / name)


def test_a_damaged_manifest_under_a_store_root_fails_with_the_way_out(tmp_path, capsys):
    """It was given a new `<name>-2` store, exit 0, the notes left in the damaged one. Two
    repositories of one name: the damaged store is found as its own one's (by its manifest's
    copies), whatever the order of the list."""
    one, two = _repo(tmp_path / "a" / "yrepo"), _repo(tmp_path / "b" / "yrepo")
    stores = tmp_path / "st"
    assert main(["index", str(one.path), str(two.path), "--store-root", str(stores), *FAST]) == 0
    manifest = stores / "yrepo-2" / "manifest.json"
    manifest.write_bytes(manifest.read_bytes()[:100])
    capsys.readouterr()
    rc = main(["index", str(two.path), str(one.path), "--store-root", str(stores), *FAST])
    out = capsys.readouterr().out
    assert rc == 1
    assert f"FAILED {two.path}: manifest {manifest} is unreadable" in out and "`stratum repair`" in out
    assert f"ok {one.path}: up to date" in out
    assert sorted(p.name for p in stores.iterdir()) == ["yrepo", "yrepo-2"]


@pytest.mark.parametrize("engine,expected", [("--no-ray", ["running", "queued"]),
                                             ("--ray", ["running", "queued"])])     # one CPU: the other waits its turn
def test_a_run_killed_with_sigkill_leaves_a_report_saying_which_repository_was_running(tmp_path, engine, expected):
    """The report file was rewritten only as repositories finished: the one being indexed read
    `not_run`. The first repository hangs (its refs are a FIFO nobody writes) until the kill."""
    stuck, other = _repo(tmp_path / "stuck"), _repo(tmp_path / "other")
    git(stuck.path, "pack-refs", "--all")
    fifo = stuck_refs(stuck.path)
    report = tmp_path / "r.json"
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", "index", str(stuck.path), str(other.path),
                          "--store-root", str(tmp_path / "s"), "--report", str(report), "--no-embed", engine,
                          "--num-cpus", "1"],
                         cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and p.poll() is None:
            try:
                if [r["state"] for r in json.loads(report.read_text())["repositories"]] == expected:
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        time.sleep(0.3)                                  # it waits on the FIFO for good
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
        release(fifo)
    rep = json.loads(report.read_text())
    assert [r["state"] for r in rep["repositories"]] == expected
    assert not rep["finished"]


def test_a_repos_file_listing_none_is_refused(tmp_path, capsys, monkeypatch):
    """It indexed the current folder (`or ["."]`)."""
    listing = tmp_path / "repos.txt"
    listing.write_text("# nothing tonight\n\n")
    monkeypatch.chdir(tmp_path)
    assert main(["index", "--repos-file", str(listing), *FAST]) == 2
    assert f"no repositories listed in {listing}" in capsys.readouterr().err
    assert not (tmp_path / ".stratum").exists()


@pytest.mark.parametrize("many", [True, False])
def test_a_repository_failing_its_first_run_leaves_no_store_folder(tmp_path, capsys, many):
    """A stray `stores/<name>/` holding only `lock` was left behind."""
    broken = _repo(tmp_path / "broken")
    for d in (broken.path / ".git" / "objects").iterdir():
        if len(d.name) == 2:
            shutil.rmtree(d)
    if many:
        rc = main(["index", str(broken.path), str(_repo(tmp_path / "good").path), "--store-root",
                   str(tmp_path / "s"), *FAST])
        assert rc == 1 and "FAILED" in capsys.readouterr().out
        assert [p.name for p in (tmp_path / "s").iterdir()] == ["good"]
    else:
        assert main(["index", str(broken.path), "--store", str(tmp_path / "one"), *FAST]) == 1
        assert not (tmp_path / "one").exists()
