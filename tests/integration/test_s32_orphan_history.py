"""An index of an unborn branch (``git checkout --orphan``) then of the old branch again: the
history is mined in full (an index-lifecycle probe: the unborn run kept the old tip as the
watermark with empty history tables, and every later run mined only from it: flask's store said
1 commit of 5,452 until ``--full``)."""

from __future__ import annotations

from pipeline.job import index_repository
from stratum.config import IndexConfig
from stratum.store import Store
from tests.gitrepo import Repo, git

FAST = IndexConfig(num_cpus=1, ray=False)


def _commits(store) -> int:
    st = Store(store)
    return st.snapshot().read("commits").num_rows


def test_history_is_mined_in_full_after_an_unborn_branch(tmp_path):
    r = Repo(tmp_path / "repo")
    for i in range(5):
        r.commit(f"change {i}", {"app.py": f"def f():\n    return {i}\n", "util.py": f"X = {i}\n"})
    store = tmp_path / "store"
    index_repository(r.path, store, FAST)
    assert _commits(store) == 5
    git(r.path, "checkout", "-q", "--orphan", "scratch")
    git(r.path, "rm", "-rq", "--cached", ".")
    rep = index_repository(r.path, store, FAST)
    assert _commits(store) == 0
    assert any("HEAD has no commit yet" in m for m in rep.messages), rep.messages
    git(r.path, "checkout", "-q", "-f", "main")
    r.commit("after", {"app.py": "def f():\n    return 9\n"})
    index_repository(r.path, store, FAST)
    assert _commits(store) == 6                 # as a fresh --full index says
    full = tmp_path / "full"
    index_repository(r.path, full, FAST)
    assert _commits(full) == 6
