"""Pins as an agent uses them (a probe): a pinned file a re-index deleted can still be unpinned, and
pinning a file also keeps the lines of it the session read. Real repositories, the real index job."""

from __future__ import annotations

import pytest

from stratum.config import EmbedConfig, IndexConfig
from stratum.errors import BudgetExceeded, NotFound
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False))
BIG = "".join(f"def f{i}(x):\n    \"\"\"Step {i} of the pipeline.\"\"\"\n    return x + {i}\n\n\n" for i in range(40))


@pytest.fixture()
def indexed(tmp_path):
    """(repository, store, Tools over it) of a small repository indexed by the real job."""
    from pipeline.job import index_repository

    r = Repo(tmp_path / "r")
    r.commit("init", {"app/config.py": BIG, "app/helpers.py": BIG.replace("Step", "Help"),
                      "deep/a/b/c/x.py": "X = 1\n"})
    index_repository(r.path, tmp_path / "s", CFG)
    t = Tools.open([str(tmp_path / "s")])
    try:
        yield r, tmp_path / "s", t
    finally:
        t.close()


def test_a_pinned_file_a_reindex_deleted_can_be_unpinned(indexed):
    from pipeline.job import index_repository

    r, store, t = indexed
    s = t.open_session(budget=20000).data["session"]
    t.get(s, "app/config.py", "full")
    t.pin(s, "app/config.py")
    git(r.path, "rm", "-q", "app/config.py")
    r.commit("drop config")
    index_repository(r.path, store, CFG)
    t.reload()
    with pytest.raises(NotFound):
        t.get(s, "app/config.py")
    assert t.status(s).data["session"]["pins"]                       # still held: the probe's dead pin
    assert not t.unpin(s, "app/config.py").envelope.warnings         # by the path it had
    assert t.status(s).data["session"]["pins"] == []


def test_pinning_a_file_keeps_the_lines_read_of_it_and_a_made_up_path_names_no_file(indexed):
    _, _, t = indexed
    s = t.open_session(budget=1000).data["session"]     # tight: the lines are evicted unless pinned
    part = t.get(s, "app/config.py", lines="1-60").items[0]
    t.pin(s, "app/config.py")
    with pytest.raises(BudgetExceeded, match=f"{part.tokens} tokens are pinned"):
        t.get(s, "app/helpers.py", "full")      # would fit only by evicting the pinned file's lines
    held = {e["node_id"] for e in t.status(s).data["session"]["entries"]}
    assert any(n.endswith("#L1-60") for n in held) and part.meta["lines"] == "1-60"
    # a path whose only match is a file name elsewhere names no file (it served deep/a/b/c/x.py)
    for made_up in ("nope/x.py", "made/up/config.py"):
        with pytest.raises(NotFound):
            t.get(s, made_up)
