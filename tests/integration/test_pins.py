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


def test_lines_of_a_pinned_file_read_after_the_pin_are_pinned_too(indexed):
    """A probe: pin a file, read lines 100-250, then 250-400: the second read dropped the first
    ("focus neighbour dropped", though it was the pinned file's own lines)."""
    _, _, t = indexed
    s = t.open_session(budget=600).data["session"]     # two reads of ~250 tokens fit, a third does not
    t.pin(s, "app/config.py")
    first = t.get(s, "app/config.py", lines="1-60").items[0]
    r = t.get(s, "app/config.py", lines="61-120")
    assert r.envelope.evictions == [] and r.envelope.budget.used == first.tokens + r.items[0].tokens
    session = t.status(s).data["session"]
    assert {n for n in session["pins"] if "#L" in n} == {e["node_id"] for e in session["entries"]}
    with pytest.raises(BudgetExceeded, match="tokens are pinned"):
        t.get(s, "app/config.py", lines="121-200")     # the pinned lines keep it out, said so
    t.unpin(s, "app/config.py")                         # and unpinning releases them all
    assert t.status(s).data["session"]["pins"] == []
    assert t.get(s, "app/config.py", lines="121-200").envelope.evictions


def test_lines_of_the_file_being_read_given_up_are_not_called_a_neighbours(indexed):
    """A probe: reading more lines of the file being read (unpinned) dropped the lines read before,
    and the answer said "focus neighbours were demoted": they were the focus file's own lines."""
    _, _, t = indexed
    s = t.open_session(budget=600).data["session"]
    t.get(s, "app/config.py", lines="1-60")
    t.get(s, "app/config.py", lines="61-120")
    r = t.get(s, "app/config.py", lines="121-200")         # over the limit: one range read before goes
    assert [e.label for e in r.envelope.evictions] == ["file app/config.py lines 1-60"]
    assert any(w.startswith("the budget ran out: focus files were demoted") for w in r.envelope.warnings)
    assert not any("neighbour" in w for w in r.envelope.warnings), r.envelope.warnings
