"""`stratum watch` and `stratum hooks` as a user runs them: real git, real index, real CLI."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from stratum.config import default_store_path

from tests.gitrepo import GIT_ENV, git, sample_python_repo

pytestmark = pytest.mark.slow        # CLI processes and real waits (~25 s for the file)

COUPON = ('\n\ndef apply_coupon(total: float, code: str) -> float:\n'
          '    """Take a coupon code off the order total."""\n    return total * 0.9\n')
ENV = {**os.environ, **GIT_ENV}


def stratum(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratum.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120, env=ENV)


def search_paths(store: Path, query: str) -> list[str]:
    p = stratum("search", query, "--json", "--store", str(store))
    assert p.returncode == 0, p.stderr
    return [i.get("qualname") or i["path"] for i in json.loads(p.stdout)["items"]]


class Watch:
    """`stratum watch` in the background; its lines arrive on a queue."""

    def __init__(self, repo: Path, store: Path, *extra: str):
        self.p = subprocess.Popen([sys.executable, "-m", "stratum.cli", "watch", str(repo), "--store", str(store),
                                   "--interval", "0.1", *extra], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, env=ENV)
        self.lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        for line in self.p.stdout:
            self.lines.put(line.rstrip("\n"))

    def next_run(self, timeout: float = 60) -> str:
        """The next line reporting an index run (skipping the banner)."""
        end = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            if " in " in line and not line.startswith("watching"):
                return line

    def quiet_for(self, seconds: float) -> list[str]:
        out, end = [], time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                out.append(self.lines.get(timeout=max(0.01, end - time.monotonic())))
            except queue.Empty:
                break
        return out

    def stop(self) -> tuple[int, str]:
        self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(timeout=30)
        self._reader.join(timeout=10)        # its last lines are on the queue before they are read
        rest = []
        while not self.lines.empty():
            rest.append(self.lines.get())
        return rc, "\n".join(rest)


@pytest.fixture
def shop(tmp_path):
    return sample_python_repo(tmp_path / "shop"), tmp_path / "store"


def test_watch_makes_the_next_answer_reflect_a_commit(shop):
    repo, store = shop
    w = Watch(repo.path, store, "--debounce", "0.2")
    try:
        assert "start: v1 published" in w.next_run()
        assert "apply_coupon" not in search_paths(store, "apply coupon code")
        repo.commit("coupons", {"shop/pricing.py": (repo.path / "shop/pricing.py").read_text() + COUPON})
        line = w.next_run()
        assert "HEAD -> refs/heads/main: v2 published" in line, line
        assert "apply_coupon" in search_paths(store, "apply coupon code")
        p = stratum("get", "shop/pricing.py::apply_coupon", "--json", "--store", str(store))
        assert p.returncode == 0 and json.loads(p.stdout)["items"][0]["qualname"] == "apply_coupon"
    finally:
        rc, rest = w.stop()
    assert rc == 0 and "stopped after 2 index run(s)" in rest


def test_a_checkout_storm_is_one_reindex(shop):
    repo, store = shop
    for b in ("b1", "b2", "b3"):
        git(repo.path, "branch", b)
    git(repo.path, "checkout", "-q", "b1")
    repo.commit("b1 coupons", {"shop/pricing.py": (repo.path / "shop/pricing.py").read_text() + COUPON})
    git(repo.path, "checkout", "-q", "main")
    w = Watch(repo.path, store, "--debounce", "0.8")
    try:
        w.next_run()                                        # the start-up index
        for b in ("b1", "b2", "b3", "main", "b1"):          # five checkouts in a row
            git(repo.path, "checkout", "-q", b)
            time.sleep(0.1)
        first = w.next_run()
        later = [x for x in w.quiet_for(3.0) if " in " in x]
        assert "HEAD -> refs/heads/b1: v2 published" in first, first
        assert later == [], later                           # one re-index for the whole storm
        assert "apply_coupon" in search_paths(store, "apply coupon code")
    finally:
        rc, _ = w.stop()
    assert rc == 0


def test_a_failing_index_is_reported_and_watching_goes_on(shop):
    from stratum.store import Store

    repo, store = shop
    w = Watch(repo.path, store, "--debounce", "0.2")
    try:
        w.next_run()
        with Store(store).writer_lock():                    # another run holds the store
            repo.commit("coupons", {"shop/pricing.py": (repo.path / "shop/pricing.py").read_text() + COUPON})
            failed = w.next_run()
            assert "index failed" in failed and "another index run holds" in failed and "still watching" in failed
        line = w.next_run()                                 # retried once the lock is free: a retry
        while "index failed" in line:                       # may have failed again before the release
            assert "another index run holds" in line, line
            line = w.next_run()
        assert "v2 published" in line, line
        assert w.p.poll() is None
    finally:
        rc, _ = w.stop()
    assert rc == 0


def test_watch_outside_a_repository_is_a_clean_error(tmp_path):
    p = stratum("watch", str(tmp_path), "--store", str(tmp_path / "s"))
    assert p.returncode == 2 and "not inside a git repository" in p.stderr and "Traceback" not in p.stderr
    p = stratum("hooks", "install", str(tmp_path))
    assert p.returncode == 2 and "not inside a git repository" in p.stderr


def _published(store: Path) -> int:
    m = store / "manifest.json"
    return json.loads(m.read_text())["version"] if m.exists() else 0


def _wait_version(store: Path, at_least: int, timeout: float = 60) -> int:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = _published(store)
        if v >= at_least and not (store / "hooks.dirty").exists() and _runner_idle(store):
            return v
        time.sleep(0.2)
    log = (store / "hooks.log").read_text() if (store / "hooks.log").exists() else "(no log)"
    raise AssertionError(f"store never reached v{at_least}; hooks.log:\n{log}")


def _runner_idle(store: Path) -> bool:
    import fcntl

    lock = store / "hooks.lock"
    if not lock.exists():
        return True
    with open(lock) as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(f, fcntl.LOCK_UN)
        return True


def test_hooks_index_after_commit_and_keep_an_existing_hook(shop):
    repo, store = shop
    hook = repo.path / ".git" / "hooks" / "post-commit"
    mine = "#!/bin/sh\necho \"$(git rev-parse HEAD)\" >> \"$(git rev-parse --git-dir)/../committed.txt\"\n"
    hook.write_text(mine)
    hook.chmod(0o755)
    git(repo.path, "commit", "-q", "--allow-empty", "-m", "before install")
    assert (repo.path / "committed.txt").read_text().count("\n") == 1

    p = stratum("hooks", "install", str(repo.path), "--store", str(store))
    assert p.returncode == 0, p.stderr
    assert "existing hook kept" in p.stdout
    assert stratum("hooks", "status", str(repo.path)).stdout.strip() == \
        "installed: post-commit, post-checkout, post-merge, post-applypatch, post-rewrite; post-commit first runs the hook that was there " \
        "(post-commit.stratum-chained)"

    t = time.monotonic()
    repo.commit("coupons", {"shop/pricing.py": (repo.path / "shop/pricing.py").read_text() + COUPON})
    assert time.monotonic() - t < 5                         # git was not kept waiting for the index
    assert (repo.path / "committed.txt").read_text().count("\n") == 2     # the user's hook still ran
    v = _wait_version(store, 1)
    assert "apply_coupon" in search_paths(store, "apply coupon code")
    assert "published" in (store / "hooks.log").read_text()

    p = stratum("hooks", "uninstall", str(repo.path))
    assert p.returncode == 0 and "previous hook restored" in p.stdout
    assert hook.read_text() == mine
    assert not (repo.path / ".git" / "hooks" / "post-checkout").exists()
    repo.commit("after uninstall", {"shop/extra.py": "X = 1\n"})
    time.sleep(1.5)
    assert _published(store) == v                           # no hook of ours fired
    assert (repo.path / "committed.txt").read_text().count("\n") == 3


def test_hooks_coalesce_a_checkout_storm(shop):
    repo, store = shop
    assert stratum("index", str(repo.path), "--store", str(store)).returncode == 0
    for b in ("b1", "b2"):
        git(repo.path, "branch", b)
    git(repo.path, "checkout", "-q", "b1")
    repo.commit("b1 coupons", {"shop/pricing.py": (repo.path / "shop/pricing.py").read_text() + COUPON})
    git(repo.path, "checkout", "-q", "main")
    assert stratum("hooks", "install", str(repo.path), "--store", str(store)).returncode == 0
    for b in ("b1", "b2", "main", "b2", "b1"):
        git(repo.path, "checkout", "-q", b)
    _wait_version(store, 2)
    time.sleep(0.5)
    _wait_version(store, 2)
    runs = [x for x in (store / "hooks.log").read_text().splitlines() if "published" in x or "up to date" in x]
    assert 1 <= len(runs) <= 2, runs
    assert _published(store) == 2                           # the storm became one new version
    assert "apply_coupon" in search_paths(store, "apply coupon code")


def test_hooks_keep_an_existing_hooks_exit_status_and_honour_core_hookspath(shop):
    repo, store = shop
    hooks = repo.path / "myhooks"
    hooks.mkdir()
    git(repo.path, "config", "core.hooksPath", str(hooks))
    theirs = "#!/bin/sh\nexit 3\n"
    (hooks / "post-checkout").write_text(theirs)
    (hooks / "post-checkout").chmod(0o755)
    git(repo.path, "branch", "b1")

    def checkout(b: str) -> int:
        return subprocess.run(["git", "-C", str(repo.path), "checkout", "-q", b], env=ENV).returncode

    before = checkout("b1")
    assert before != 0                                      # their failing hook fails git checkout
    p = stratum("hooks", "install", str(repo.path), "--store", str(store), "--no-embed")
    assert p.returncode == 0 and str(hooks) in p.stdout, p.stdout + p.stderr
    assert {x.name for x in hooks.iterdir()} >= {"post-commit", "post-merge", "post-checkout.stratum-chained"}
    assert checkout("main") == before                       # ... and still does, with ours installed
    _wait_version(store, 1)                                 # and ours indexed anyway,
    assert json.loads((store / "manifest.json").read_text())["embedding"] is None    # as installed
    p = stratum("hooks", "uninstall", str(repo.path))
    assert p.returncode == 0 and (hooks / "post-checkout").read_text() == theirs
    assert sorted(x.name for x in hooks.iterdir()) == ["post-checkout"]
    assert stratum("hooks", "uninstall", str(repo.path)).stdout.splitlines()[0] == "post-commit: none"


def test_watch_rejects_a_bad_interval(shop):
    repo, store = shop
    p = stratum("watch", str(repo.path), "--store", str(store), "--interval", "0")
    assert p.returncode == 2 and "--interval must be > 0" in p.stderr and not store.exists()


def test_hooks_installed_from_a_linked_worktree_index_the_main_checkout(shop, tmp_path):
    """A probe: `hooks install` in a `git worktree add` checkout wrote the shared hooks with the
    worktree's root and store, so the main checkout's commits were indexed into the worktree's own new
    store and the worktree's queries lost every note of the main store."""
    repo, _ = shop
    wt = tmp_path / "wt"
    git(repo.path, "worktree", "add", "-q", "--detach", str(wt), "HEAD")
    p = stratum("hooks", "install", "--no-embed", cwd=str(wt))
    assert p.returncode == 0, p.stderr
    assert "linked worktree" in p.stdout and str(repo.path) in p.stdout
    hook = (repo.path / ".git" / "hooks" / "post-commit").read_text()
    assert str(default_store_path(repo.path)) in hook and str(wt) not in hook
    assert stratum("hooks", "uninstall", cwd=str(wt)).returncode == 0


def test_with_no_initial_run_the_first_reindex_says_what_moved(shop):
    """A probe: with --no-initial, the first run after a commit was labelled "start"."""
    repo, store = shop
    assert stratum("index", str(repo.path), "--store", str(store), "--no-embed").returncode == 0
    w = Watch(repo.path, store, "--debounce", "0.2", "--no-initial", "--no-embed")
    try:
        # HEAD at its start is what it watches from: a commit made before it is up (its imports took
        # over 0.5 s under load in CI's check) was its baseline, and no run came
        assert w.lines.get(timeout=60).startswith("watching ")
        repo.commit("coupons", {"shop/pricing.py": (repo.path / "shop/pricing.py").read_text() + COUPON})
        line = w.next_run()
        assert "HEAD -> refs/heads/main" in line and "start" not in line, line
    finally:
        w.stop()


def test_watch_json_ends_with_a_json_line_and_hooks_run_says_a_failure(shop, tmp_path):
    """A dev probe: `watch --json` stopped by a signal printed nothing (text mode says how it
    stopped); `hooks run` (by hand) exited 0 when the index failed and printed text under --json."""
    repo, store = shop
    w = Watch(repo.path, store, "--json", "--no-initial")
    assert json.loads(w.lines.get(timeout=60))["watching"] == str(repo.path)     # up, its handlers set
    rc, rest = w.stop()
    assert rc == 0
    last = json.loads(rest.strip().splitlines()[-1])
    assert last["stopped"] is True and last["runs"] == 0, rest
    from tests.gitrepo import Repo

    other = Repo(tmp_path / "other")
    other.commit("another repository", {"x.py": "def x():\n    return 1\n"})
    assert stratum("index", str(other.path), "--store", str(tmp_path / "other-store"), "--no-embed",
                   "--no-ray").returncode == 0
    p = stratum("hooks", "run", str(repo.path), "--store", str(tmp_path / "other-store"), "--json")
    assert p.returncode != 0, p.stdout                    # another repository's store: the index refuses it
    line = json.loads(p.stdout.strip().splitlines()[-1])
    assert line["hook"] == "manual" and "index failed" in line["line"], p.stdout


def test_hooks_of_a_moved_repository_say_so_instead_of_indexing_a_ghost(shop, tmp_path):
    """A dev probe: after `mv repo moved`, each commit's hook re-created the old folder, logged "not a
    git repository" there and left the store stale; `hooks status` still said installed."""
    import shutil

    repo, _ = shop
    assert stratum("hooks", "install", str(repo.path), "--no-embed").returncode == 0
    moved = tmp_path / "moved"
    shutil.move(str(repo.path), moved)
    p = subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "after the move"], cwd=moved,
                       capture_output=True, text=True, env=ENV, timeout=60)
    assert p.returncode == 0 and "is gone (moved?)" in p.stderr, p.stderr
    assert not repo.path.exists()                                       # no ghost folder
    st = json.loads(stratum("hooks", "status", str(moved), "--json").stdout)
    assert st["elsewhere"] == ["post-commit", "post-checkout", "post-merge", "post-applypatch", "post-rewrite"], st
    assert stratum("hooks", "install", str(moved), "--no-embed").returncode == 0
    assert json.loads(stratum("hooks", "status", str(moved), "--json").stdout)["elsewhere"] == []


def test_watch_in_a_linked_worktree_says_it_leaves_the_main_store(shop, tmp_path):
    """As `index` does there (a dev probe: the main store's notes vanished from the worktree)."""
    repo, _ = shop
    assert stratum("index", str(repo.path), "--no-embed", "--no-ray").returncode == 0     # the main store
    git(repo.path, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", "watch", str(tmp_path / "wt"), "--no-initial",
                          "--interval", "0.1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        said = [p.stderr.readline() for _ in range(1)]      # the notice comes before it watches
        while said[-1] and "linked worktree" not in said[-1] and len(said) < 50:
            said.append(p.stderr.readline())
        assert "is a linked worktree: indexing it into its own store" in said[-1], said
    finally:
        p.kill()
        p.wait(timeout=30)
