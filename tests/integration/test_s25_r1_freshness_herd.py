"""Review R1 (session 25): concurrent answers after one edit of a returned file run git once.

Since 5f927f1 a returned file the view holds dirty whose stat moved makes git look again (an
editor's undo runs no git command). An agent's ordinary loop, edit m.py then ask about it, now
costs a `git status` per edit; and N answers in flight at once (a server's threads: prefetch, get,
walk of one agent, or several agents) each forced their own, one after another under the cache's
lock, all for the same edit (8 answers: 8 runs; in a large repository seconds of waiting each).
One forced look begun after an answer saw the edit serves every answer that saw it.
Real git repository, the real index job, the real Tools, the real git source (counted)."""

from __future__ import annotations

import threading
import time

import pytest

from pipeline.gitio import GitFreshness
from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
ANSWERS = 8


class SlowCounting(GitFreshness):
    """The real git source, counting its views; each takes 0.2 s more, as a large repository's
    `git status` does (so the answers in flight overlap as they do there)."""

    def __init__(self) -> None:
        super().__init__()
        self.views = 0

    def view(self, repo_path, indexed_commit):
        self.views += 1
        time.sleep(0.2)
        return super().view(repo_path, indexed_commit)


def test_answers_in_flight_after_one_edit_of_a_returned_file_share_one_git_look(tmp_path) -> None:
    r = Repo(tmp_path / "repo")
    r.commit("init", {"m.py": "def f():\n    return 0\n"})
    index_repository(r.path, None, CFG)
    source = SlowCounting()
    t = Tools.open([str(default_store_path(r.path))], freshness=source)
    try:
        s = t.open_session(author="agent").data["session"]
        r.write({"m.py": "def f():\n    return 1\n"})            # the agent's first edit
        time.sleep(0.05)
        first = t.get(s, target="m.py")
        assert first.envelope.stale and "uncommitted changes in m.py" in " ".join(first.envelope.warnings)
        time.sleep(0.05)
        r.write({"m.py": "def f():\n    return 22\n"})           # its next edit of the same file
        time.sleep(0.05)
        before = source.views
        start = threading.Barrier(ANSWERS)
        got: list = []

        def ask() -> None:
            start.wait()
            got.append(t.get(s, target="m.py"))

        threads = [threading.Thread(target=ask) for _ in range(ANSWERS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert len(got) == ANSWERS
        assert all(g.envelope.stale and "uncommitted changes in m.py" in " ".join(g.envelope.warnings) for g in got)
        assert source.views - before <= 1, f"{source.views - before} git looks for one edit"
    finally:
        t.close()
