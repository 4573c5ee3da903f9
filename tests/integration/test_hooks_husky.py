"""A hook kept aside by `stratum hooks install` runs as git ran it, with its own path as ``$0``:
husky v9's stubs (``core.hooksPath=.husky/_``) source the ``h`` beside ``$0``, which runs
``.husky/$(basename "$0")``; renamed to ``post-commit.stratum-chained`` and run under that name, the
user's .husky/post-commit silently ran no more (a probe)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline import hooks
from tests.gitrepo import GIT_ENV, Repo, git

pytestmark = pytest.mark.slow        # hooks running in the background

H = """#!/usr/bin/env sh
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n
[ ! -f "$s" ] && exit 0
sh -e "$s" "$@"
"""


def _runs_ended(store: Path, n: int, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        log = (store / "hooks.log").read_text() if (store / "hooks.log").exists() else ""
        if sum(("published" in x or "up to date" in x or "failed" in x) for x in log.splitlines()) >= n:
            return
        time.sleep(0.3)
    raise AssertionError(f"no run ended; hooks.log:\n{log}")


def test_a_husky_hook_still_runs_once_ours_is_installed(tmp_path):
    r = Repo(tmp_path / "web")
    r.commit("init", {"a.py": "x = 1\n"})
    git(r.path, "config", "core.hooksPath", ".husky/_")
    stubs = r.path / ".husky" / "_"
    stubs.mkdir(parents=True)
    (stubs / ".gitignore").write_text("*\n")
    (stubs / "h").write_text(H)
    for name in ("pre-commit", "post-commit", "post-checkout", "post-merge"):
        (stubs / name).write_text('#!/usr/bin/env sh\n. "$(dirname "$0")/h"')
    for p in stubs.iterdir():
        p.chmod(0o755)
    ran = tmp_path / "user-hook.log"
    r.commit("husky", {".husky/post-commit": f'echo "ran $1" >> {ran}\n'})
    assert ran.read_text() == "ran \n"

    store = tmp_path / "store"
    hooks.install(r.path, store, ("--no-embed",))
    r.commit("after install", {"a.py": "x = 2\n"})
    assert ran.read_text() == "ran \n" * 2                 # the user's hook ran under husky once more
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "hooks", "status", str(r.path), "--json"],
                       capture_output=True, text=True, timeout=120, env={**os.environ, **GIT_ENV})
    assert json.loads(p.stdout)["chained"] == ["post-commit", "post-checkout", "post-merge"], p.stdout + p.stderr
    _runs_ended(store, 1)
    hooks.uninstall(r.path)
    assert (stubs / "post-commit").read_text() == '#!/usr/bin/env sh\n. "$(dirname "$0")/h"'
