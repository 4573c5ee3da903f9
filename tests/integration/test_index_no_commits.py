"""Indexing a repository that has no commits yet: its files are indexed from the work tree, and the
run report says so in words (a probe read "under HEAD  (" with an empty commit)."""

from __future__ import annotations

from pipeline.job import index_repository
from stratum.config import IndexConfig
from tests.gitrepo import Repo


def test_a_repository_without_commits_is_indexed_and_the_report_says_so(tmp_path):
    r = Repo(tmp_path / "fresh")
    r.write({"app.py": '"""The app."""\n\n\ndef main() -> int:\n    return 0\n'})
    rep = index_repository(r.path, tmp_path / "store", IndexConfig(num_cpus=1, ray=False))
    said = [m for m in rep.messages if "uncommitted changes" in m]
    assert len(said) == 1
    assert "on a branch with no commit yet" in said[0]
    assert "HEAD" not in said[0]
    assert rep.nodes.get("file") == 1 and rep.nodes.get("function") == 1
