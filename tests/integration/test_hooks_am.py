"""`git am` runs post-applypatch for each patch, not post-commit: with only post-commit, post-checkout
and post-merge installed, the store stayed at the commit before the patches (a probe)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from pipeline import hooks
from tests.gitrepo import Repo, git

pytestmark = pytest.mark.slow        # hooks running in the background


def _indexed(store: Path) -> str | None:
    try:
        return json.loads((store / "manifest.json").read_text()).get("indexed_commit")
    except (OSError, ValueError):
        return None


def _reaches(store: Path, commit: str, timeout: float = 40) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if _indexed(store) == commit:
            return True
        time.sleep(0.3)
    return False


def test_git_am_reindexes_through_post_applypatch(tmp_path):
    r = Repo(tmp_path / "r")
    r.commit("init", {"a.py": "def a():\n    return 1\n"})
    git(r.path, "checkout", "-q", "-b", "other")
    r.commit("patched", {"patched.py": "def from_patch():\n    pass\n"})
    git(r.path, "format-patch", "-q", "-1", "-o", str(tmp_path / "patches"))
    git(r.path, "checkout", "-q", "main")
    store = tmp_path / "store"
    hooks.install(r.path, store, ("--no-embed",))
    git(r.path, "commit", "-q", "--allow-empty", "-m", "indexed by post-commit")
    assert _reaches(store, git(r.path, "rev-parse", "HEAD").strip()), (store / "hooks.log").read_text()
    git(r.path, "am", "-q", *map(str, sorted((tmp_path / "patches").iterdir())))
    head = git(r.path, "rev-parse", "HEAD").strip()
    assert _reaches(store, head), (store / "hooks.log").read_text()
    # the hook run writes its log line after it publishes: read the log once the line is there
    end = time.monotonic() + 20
    while "[post-applypatch]" not in (store / "hooks.log").read_text() and time.monotonic() < end:
        time.sleep(0.2)
    assert "[post-applypatch]" in (store / "hooks.log").read_text()
