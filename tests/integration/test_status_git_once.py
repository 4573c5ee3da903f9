"""`status` asks git once per fact: the freshness view it checks its warnings against carries the
status dict, computed from the same git runs, equal to what the status check alone gives (real
repositories built with git in every state the dict tells apart)."""

from __future__ import annotations

from pipeline.gitio import GitFreshness
from tests.gitrepo import Repo, git

SOURCE = GitFreshness()


def _same(repo: Repo, indexed: str | None) -> dict:
    alone = SOURCE(str(repo.path), indexed)
    view = SOURCE.view(str(repo.path), indexed)
    assert view["status"] == alone, (view["status"], alone)
    return alone


def test_the_views_status_equals_the_status_check_in_every_state(tmp_path):
    repo = Repo(tmp_path / "r")
    assert _same(repo, None)["head"] is None                       # no commits yet
    c1 = repo.commit("one", {"a.py": "x = 1\n", "b.py": "y = 2\n"})
    assert _same(repo, c1) == {"repo_available": True, "head": c1, "new_commits": 0, "moved_on": False,
                               "uncommitted_changes": False}
    repo.write({"new.txt": "untracked"})                           # untracked only: uncommitted, as warnings say
    assert _same(repo, c1)["uncommitted_changes"] is True
    repo.write({"a.py": "x = 3\n"})                                # unstaged edit
    assert _same(repo, c1)["uncommitted_changes"] is True
    git(repo.path, "add", "a.py")                                  # staged
    assert _same(repo, c1)["uncommitted_changes"] is True
    c2 = repo.commit("two")
    assert _same(repo, c1)["new_commits"] == 2 - 1 and _same(repo, c1)["moved_on"]
    git(repo.path, "checkout", "-q", "-b", "side", c1)             # the indexed commit off HEAD's line
    repo.commit("side", {"b.py": "y = 4\n"})
    st = _same(repo, c2)
    assert st["new_commits"] == 1 and SOURCE.view(str(repo.path), c2)["new_commits"] == -1
    assert _same(repo, "f" * 40)["new_commits"] == -1               # the indexed commit is gone


def test_status_runs_each_git_command_once(tmp_path, monkeypatch):
    """Through Tools over a real store: the warnings' look and the shard dict share their git runs."""
    import subprocess
    from dataclasses import replace

    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.tools import Tools

    repo = Repo(tmp_path / "r")
    c1 = repo.commit("one", {"pkg/a.py": "def f():\n    return 1\n"})
    cfg = IndexConfig(ray=False)
    index_repository(repo.path, tmp_path / "store", replace(cfg, embed=replace(cfg.embed, enabled=False)))
    c2 = repo.commit("two", {"pkg/a.py": "def f():\n    return 2\n"})
    repo.write({"pkg/b.py": "untracked = True\n"})
    tools = Tools.open([str(tmp_path / "store")], freshness=SOURCE)
    s = tools.open_session(author="a").data["session"]
    runs: list[tuple] = []
    real = subprocess.run

    def counted(args, *a, **kw):
        if args[:1] == ["git"]:
            runs.append(tuple(args))
        return real(args, *a, **kw)

    monkeypatch.setattr(subprocess, "run", counted)
    r = tools.status(s)
    tools.close()
    assert len(runs) == len(set(runs)) and sum("rev-list" in a for a in runs) == 1, runs
    assert sum("status" in a for a in runs) == 1 and sum("HEAD" in a for a in runs) == 1, runs
    sh = r.data["shards"][0]
    assert (sh["head"], sh["new_commits"], sh["moved_on"], sh["uncommitted_changes"]) == (c2, 1, True, True)
    assert sh["indexed_commit"] == c1 and r.envelope.stale
    assert any("pkg/b.py" in w for w in r.envelope.warnings)       # the warnings do count untracked files
