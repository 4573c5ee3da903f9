"""Real hook runs keep hooks.log bounded and `hooks status` still reports the last run (session 25:
nothing trimmed the log; a store indexed by its hooks at every commit for a year grew it without end).
Past the cap a run rotates the log to hooks.log.1; runs whose hook opened the old file follow to the
new one, and an outcome that still lands in the old file is read from there."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline import hooks
from tests.gitrepo import GIT_ENV, Repo, git

pytestmark = pytest.mark.slow        # CLI processes and hooks running in the background

ENV = {**os.environ, **GIT_ENV}
OLD = "2020-01-01T00:00:00 [post-commit] index failed: an old failure, long mended\n"
FILLER = OLD * (hooks.LOG_CAP // len(OLD) + 1)      # whole lines, just past the cap
INSTALLED = "installed: post-commit, post-checkout, post-merge, post-applypatch, post-rewrite"


def stratum(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratum.cli", *args], text=True, timeout=120, env=ENV,
                          **({"capture_output": True} | kw))


def logs(store: Path) -> tuple[str, str]:
    return tuple((store / n).read_text() if (store / n).exists() else "" for n in ("hooks.log", "hooks.log.1"))


def idle(store: Path) -> bool:
    if (store / "hooks.dirty").exists():
        return False
    with open(store / "hooks.lock", "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
    return True


def settled(store: Path, *tags: str, timeout: float = 60) -> tuple[str, str]:
    """Both logs once each of ``tags`` ("[post-commit]") has a line and one of them a line that ends a
    run (hooks coalesce: a run under way indexes for the next), the runner idle."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ours = "".join(logs(store)).replace(OLD, "").splitlines()
        if all(any(t in x for x in ours) for t in tags) and any(_ends(x) for x in ours) and idle(store):
            return logs(store)
        time.sleep(0.2)
    raise AssertionError(f"no hook run finished; logs:\n{''.join(logs(store)).replace(OLD, '')}")


def _ends(line: str) -> bool:
    return any(w in line for w in (" published (", "] up to date at v", "] index failed: ", "] hook run failed ("))


@pytest.fixture
def hooked(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"app.py": "def main():\n    return 1\n"})
    store = tmp_path / "store"
    p = stratum("hooks", "install", str(r.path), "--store", str(store), "--no-embed", "--no-ray")
    assert p.returncode == 0, p.stderr
    store.mkdir(exist_ok=True)
    (store / "hooks.log").write_text(FILLER)          # a year of commits, ending in an old failure
    return r, store


def test_a_log_past_the_cap_is_bounded_after_a_run_and_status_reports_that_run(hooked):
    r, store = hooked
    st = json.loads(stratum("hooks", "status", str(r.path), "--json").stdout)
    assert st["last_run"]["ok"] is False and "an old failure" in st["last_run"]["line"], st
    r.commit("second", {"app.py": "def main():\n    return 2\n"})
    log, old = settled(store, "[post-commit]")
    assert len(log) < 4096 and "[post-commit] v1 published (" in log, log[-2000:]   # the run still logs
    assert old.startswith(FILLER) and "published" not in old, old[len(FILLER):]   # nothing of it lost
    assert stratum("hooks", "status", str(r.path)).stdout.strip() == INSTALLED
    st = json.loads(stratum("hooks", "status", str(r.path), "--json").stdout)
    assert st["last_run"]["ok"] is True and "[post-commit] v1 published" in st["last_run"]["line"], st


def test_a_run_whose_log_was_rotated_under_it_follows_and_its_hooks_last_word_is_still_read(hooked):
    """A hook's ``>>`` holds the log for the whole run: once another run rotated it, the run's lines
    (its outcome too) went to hooks.log.1, and a hook's `hook run failed` still does."""
    r, store = hooked
    with open(store / "hooks.log", "ab") as held:      # what the hook script's `>>hooks.log 2>&1` opens
        os.replace(store / "hooks.log", store / "hooks.log.1")    # what another run's rotation does
        p = stratum("hooks", "run", str(r.path), "--store", str(store), "--hook", "post-checkout",
                    "--settle", "0", "--no-embed", "--no-ray", stdin=subprocess.DEVNULL, stdout=held,
                    stderr=subprocess.STDOUT, capture_output=False)
        assert p.returncode == 0
        log, old = logs(store)
        assert "[post-checkout] v1 published (" in log and old == FILLER, (log[-2000:], old[len(FILLER):])
        assert stratum("hooks", "status", str(r.path)).stdout.strip() == INSTALLED

        time.sleep(1.1)                                # the log's stamps are to the second
        line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} [post-commit] hook run failed (exit 137)"
        held.write(f"{line}\n".encode())               # a run killed: its hook says so where it opened
        held.flush()
    said = stratum("hooks", "status", str(r.path)).stdout.strip()
    assert said == f"{INSTALLED}; the last hook run failed: {line} (log: {store}/hooks.log)", said


def test_overlapping_runs_across_a_rotation_lose_and_cut_no_line(hooked):
    """A commit then a checkout: two background runs, one rotating the log the other writes to."""
    r, store = hooked
    r.commit("second", {"app.py": "def main():\n    return 2\n"})
    git(r.path, "checkout", "-q", "-b", "feature")
    log, old = settled(store, "[post-commit]", "[post-checkout]")
    assert len(log) < 65536 and old.startswith(FILLER), (log[-2000:], old[-2000:])
    ours = [x for x in (old[len(FILLER):] + log).splitlines() if x]
    assert all(hooks._STAMPED.fullmatch(x) for x in ours), ours      # whole lines, none interleaved
    assert any("[post-commit]" in x for x in ours) and any("[post-checkout]" in x for x in ours), ours
    st = json.loads(stratum("hooks", "status", str(r.path), "--json").stdout)
    assert st["last_run"]["ok"] is True, st


def test_a_log_that_cannot_be_rotated_is_kept_whole_and_the_run_goes_on(hooked):
    """A folder refusing the rename (read-only; here a hooks.log.1 nothing can replace, which refuses
    it for root too) must not fail the run: the log grows until it can rotate."""
    r, store = hooked
    (store / "hooks.log.1").mkdir()
    (store / "hooks.log.1" / "keep").write_text("")
    p = stratum("hooks", "run", str(r.path), "--store", str(store), "--no-embed", "--no-ray")
    assert p.returncode == 0 and "[manual] v1 published (" in p.stdout, p.stdout + p.stderr
    log = (store / "hooks.log").read_text()
    assert log.startswith(FILLER) and "[manual] v1 published (" in log[len(FILLER):]
    assert stratum("hooks", "status", str(r.path)).stdout.strip() == INSTALLED
