"""An edit on a whole-second file clock (HFS+, ext3, FAT, some NFS/SMB mounts: simulated by setting
the save's mtime to the second it was made in) in the same second as the freshness view's git look.
``_edited_since`` counted a file as edited after the look only within 20 ms before it, so such an
edit was taken as unmodified and every later answer served the indexed code as current (a review).
The real index job, a real repository, the real GitFreshness and Tools."""

from __future__ import annotations

import os
import time

from pipeline.gitio import GitFreshness
from pipeline.job import index_repository
from stratum.tools import Tools
from tests.clirun import NO_EMBED
from tests.gitrepo import Repo, git

EDITED = "uncommitted changes in a.py (returned here)"


def _mid_second(lo: float = 0.1, hi: float = 0.5) -> None:
    while not lo < time.time() % 1 < hi:
        time.sleep(0.01)


def test_an_edit_in_the_second_of_gits_look_is_reported(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"a.py": "def rate():\n    return 1\n"})
    index_repository(r.path, tmp_path / "store", NO_EMBED)
    t = Tools.open([str(tmp_path / "store")], freshness=GitFreshness())
    try:
        s = t.open_session().data["session"]
        _mid_second()
        assert t.get(s, "a.py").envelope.warnings == []
        time.sleep(0.6)
        _mid_second()
        (r.path / "b.txt").write_text("x")
        git(r.path, "add", "b.txt")                   # the index moves: the next answer's view is a new git look
        assert t.get(s, "a.py").envelope.warnings == []
        sec = int(time.time())
        f = r.path / "a.py"
        f.write_text("def rate():\n    return 2  # edited\n")
        os.utime(f, ns=(sec * 10**9, sec * 10**9))          # the second it was saved in
        for _ in range(2):
            time.sleep(0.7)
            assert EDITED in t.get(s, "a.py").envelope.warnings
    finally:
        t.close()


def test_a_clean_file_with_an_mtime_ahead_of_the_clock_runs_git_once_not_per_answer(tmp_path):
    """An mtime an hour ahead (an NFS server's clock skew, a tar from a skewed machine) stayed
    "racy" until the clock caught up: every answer ran a git look (a review: 20 in 20)."""
    from tests.integration.test_s25_fresh3 import Counting

    r = Repo(tmp_path / "repo")
    r.commit("init", {"a.py": "def rate():\n    return 1\n"})
    index_repository(r.path, tmp_path / "store", NO_EMBED)
    ahead = time.time_ns() + 3600 * 10**9
    os.utime(r.path / "a.py", ns=(ahead, ahead))
    src = Counting()
    t = Tools.open([str(tmp_path / "store")], freshness=src)
    try:
        s = t.open_session().data["session"]
        for _ in range(3):
            assert t.get(s, "a.py").envelope.warnings == []
        time.sleep(0.6)                          # past the re-probe interval
        looks = src.views
        for _ in range(10):
            assert t.get(s, "a.py").envelope.warnings == []
        assert src.views - looks <= 1, src.views - looks
    finally:
        t.close()
