"""The git hooks run Stratum's installed code whatever the repository holds, and `hooks status` says
when the hooks are an older script or their last run failed (session 24 probes: a repository's own
top-level `pipeline/` ran inside every hook; a top-level `stratum.py` made every hook fail into
hooks.log while `hooks status` said "installed" and the store stayed behind)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline import hooks
from tests.gitrepo import GIT_ENV, Repo

pytestmark = pytest.mark.slow        # CLI processes and hooks running in the background

ENV = {**os.environ, **GIT_ENV}


def stratum(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratum.cli", *args], capture_output=True, text=True,
                          timeout=120, env=ENV)


def commit(repo: Path, message: str, env: dict | None = None) -> None:
    p = subprocess.run(["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", message],
                       capture_output=True, text=True, env=env or ENV, timeout=60)
    assert p.returncode == 0, p.stderr


def settled(store: Path, lines: int, timeout: float = 30) -> str:
    """hooks.log once a line after its first ``lines`` ends a run (published, up to date, failed)
    and its runner is done (no dirty mark, the runner lock free)."""
    import fcntl

    log, end = store / "hooks.log", time.monotonic() + timeout
    while time.monotonic() < end:
        new = (log.read_text() if log.exists() else "").splitlines()[lines:]
        if any(w in x for x in new for w in ENDS) and not (store / "hooks.dirty").exists():
            with open(store / "hooks.lock", "a") as f:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    pass
                else:
                    return log.read_text()
        time.sleep(0.2)
    raise AssertionError(f"no hook run finished; hooks.log:\n{log.read_text() if log.exists() else '(none)'}")


ENDS = (" published (", "] up to date at v", "] index failed: ", "] hook run failed (")


def version(store: Path) -> int:
    m = store / "manifest.json"
    return json.loads(m.read_text())["version"] if m.exists() else 0


def test_a_hook_runs_stratums_code_not_the_repositorys_own_modules(tmp_path):
    marker = tmp_path / "repo_code_ran"
    r = Repo(tmp_path / "repo")
    r.commit("init", {"pipeline/__init__.py": f"open({str(marker)!r}, 'w').write('ran')\n",
                      "app.py": "def main():\n    return 1\n"})
    store = tmp_path / "store"
    p = stratum("hooks", "install", str(r.path), "--store", str(store), "--no-embed", "--no-ray")
    assert p.returncode == 0, p.stderr
    commit(r.path, "second")           # its output captured through pipes, as a tool calling git does
    assert not any(w in x for x in (store / "hooks.log").read_text().splitlines() for w in ENDS)  # no wait
    log = settled(store, 0)
    assert not marker.exists(), log                       # the repository's pipeline/ never ran
    assert version(store) == 1 and "published" in log, log

    # a top-level stratum.py (and serving/) shadowed the stratum package itself: every hook failed
    r.commit("add stratum.py", {"stratum.py": "x = 1\n", "serving/__init__.py": "raise SystemExit(7)\n"})
    log = settled(store, len(log.splitlines()))
    assert version(store) == 2, log
    assert not marker.exists()
    p = stratum("hooks", "status", str(r.path))
    assert p.stdout.strip() == "installed: post-commit, post-checkout, post-merge, post-applypatch, post-rewrite", p.stdout


OLD = """#!/bin/sh
{mark}
# Re-indexes {repo} into {store} in the background; never blocks or fails git.
rc=0
chained="$(dirname "$0")/{name}.stratum-chained"
if [ -x "$chained" ]; then "$chained" "$@"; rc=$?; fi
mkdir -p {store} 2>/dev/null
( {py} -m stratum.cli hooks run --store {store} --hook {name} {repo} \\
    </dev/null >>{store}/hooks.log 2>&1 & ) 2>/dev/null
exit $rc
"""


def test_hooks_status_names_an_older_script_and_install_replaces_it(tmp_path):
    """A hook written by an earlier version (here, the one before `-P`) keeps its text until
    installed again: status said "installed" as if it were current."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"app.py": "def main():\n    return 1\n"})
    store = tmp_path / "store"
    assert stratum("hooks", "install", str(r.path), "--store", str(store), "--no-embed").returncode == 0
    d = r.path / ".git" / "hooks"
    old = OLD.format(mark=hooks.MARK, repo=shlex.quote(str(r.path)), store=shlex.quote(str(store)),
                     py=shlex.quote(sys.executable), name="post-commit")
    (d / "post-commit").write_text(old)
    p = stratum("hooks", "status", str(r.path))
    assert p.stdout.strip() == ("installed: post-commit, post-checkout, post-merge, post-applypatch, post-rewrite; post-commit is an older "
                                "script: run `stratum hooks install` again"), p.stdout
    st = json.loads(stratum("hooks", "status", str(r.path), "--json").stdout)
    assert st["older"] == ["post-commit"] and st["store"] == str(store) and st["last_run"] is None, st

    p = stratum("hooks", "install", str(r.path), "--store", str(store), "--no-embed")
    assert p.returncode == 0 and "post-commit: refreshed (it was an older script)" in p.stdout, p.stdout
    assert "-P -m stratum.cli" in (d / "post-commit").read_text()
    assert json.loads(stratum("hooks", "status", str(r.path), "--json").stdout)["older"] == []


def test_hooks_status_says_the_last_run_failed(tmp_path):
    """Failures went only to hooks.log: status said "installed" over a store that stayed behind."""
    other = Repo(tmp_path / "other")
    other.commit("another repository", {"x.py": "def x():\n    return 1\n"})
    theirs = tmp_path / "their-store"
    assert stratum("index", str(other.path), "--store", str(theirs), "--no-embed", "--no-ray").returncode == 0
    r = Repo(tmp_path / "repo")
    r.commit("init", {"app.py": "def main():\n    return 1\n"})
    assert stratum("hooks", "install", str(r.path), "--store", str(theirs), "--no-embed",
                   "--no-ray").returncode == 0
    commit(r.path, "second")                  # its index is refused: another repository's store
    settled(theirs, 0)
    p = stratum("hooks", "status", str(r.path))
    said = p.stdout.strip()
    assert said.startswith("installed: post-commit, post-checkout, post-merge, post-applypatch, post-rewrite; the last hook run failed: "), said
    assert "[post-commit] index failed: " in said and said.endswith(f"(log: {theirs}/hooks.log)"), said
    st = json.loads(stratum("hooks", "status", str(r.path), "--json").stdout)
    assert st["last_run"]["ok"] is False and "index failed" in st["last_run"]["line"], st

    # a run that could not start Stratum at all (a broken Python environment) says so in the log too
    store = tmp_path / "store"
    assert stratum("hooks", "install", str(r.path), "--store", str(store), "--no-embed",
                   "--no-ray").returncode == 0
    commit(r.path, "third", env={**ENV, "PYTHONHOME": str(tmp_path / "no-python-here")})
    log = settled(store, 0)
    assert version(store) == 0 and "[post-commit] hook run failed (exit " in log, log
    st = json.loads(stratum("hooks", "status", str(r.path), "--json").stdout)
    assert st["last_run"]["ok"] is False and "hook run failed" in st["last_run"]["line"], st

    commit(r.path, "fourth")                  # and once a run succeeds, status no longer says failed
    settled(store, len(log.splitlines()))
    assert version(store) == 1
    assert stratum("hooks", "status", str(r.path)).stdout.strip() == \
        "installed: post-commit, post-checkout, post-merge, post-applypatch, post-rewrite"


def test_a_failure_mended_by_hand_is_not_reported_as_the_last_run(tmp_path):
    """A failed hook run, then a manual `hooks run` or a `stratum index` that publishes: status had
    said "the last hook run failed" until the next commit (the manual run never wrote the log)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"app.py": "def main():\n    return 1\n"})
    store = tmp_path / "store"
    assert stratum("hooks", "install", str(r.path), "--store", str(store), "--no-embed",
                   "--no-ray").returncode == 0
    commit(r.path, "second", env={**ENV, "PYTHONHOME": str(tmp_path / "no-python-here")})
    settled(store, 0)
    assert json.loads(stratum("hooks", "status", str(r.path), "--json").stdout)["last_run"]["ok"] is False
    time.sleep(1.1)                           # the log's stamps are to the second
    p = stratum("hooks", "run", str(r.path), "--store", str(store), "--no-embed", "--no-ray")
    assert p.returncode == 0, p.stderr
    st = json.loads(stratum("hooks", "status", str(r.path), "--json").stdout)
    assert st["last_run"]["ok"] is True and "[manual]" in st["last_run"]["line"], st
    assert stratum("hooks", "status", str(r.path)).stdout.strip() == \
        "installed: post-commit, post-checkout, post-merge, post-applypatch, post-rewrite"

    commit(r.path, "third", env={**ENV, "PYTHONHOME": str(tmp_path / "no-python-here")})
    settled(store, len((store / "hooks.log").read_text().splitlines()))
    assert json.loads(stratum("hooks", "status", str(r.path), "--json").stdout)["last_run"]["ok"] is False
    time.sleep(1.1)
    assert stratum("index", str(r.path), "--store", str(store), "--no-embed", "--no-ray").returncode == 0
    st = json.loads(stratum("hooks", "status", str(r.path), "--json").stdout)
    assert st["last_run"]["ok"] is True and "published since" in st["last_run"]["line"], st
