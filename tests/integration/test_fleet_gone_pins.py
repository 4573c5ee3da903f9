"""A pin on code a commit deletes (a fleet probe): after the re-index, status showed the pin and its
tokens with no word, and `unpin` by the name it was pinned with was NotFound "no node"; only the raw
id, which nothing named, released it. Now the first answer after the switch says the pin's code is
gone and how to release it, status lists it (``pins_gone``), a budget refusal names it, and unpin
takes the name it was pinned with. Real repository, the real index job, the real reload."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.errors import BudgetExceeded, NotFound
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
BIG = "def big():\n" + "".join(f"    x{i} = {i} * {i}  # filler {i}\n" for i in range(150)) + "    return 0\n"
FILES = {"pkg/__init__.py": "", "pkg/mod.py": "def foo():\n    return 1\n", "pkg/extra.py": BIG,
         "pkg/other.py": BIG.replace("big", "other").replace("filler", "padding")}


@pytest.fixture()
def deleted(tmp_path):
    """(tools, session, big's node id): ``pkg/extra.py::big`` pinned by that name and held at full
    level, then deleted by a commit, re-indexed and reloaded."""
    r = Repo(tmp_path / "r")
    r.commit("v1", FILES)
    store = str(tmp_path / "s")
    index_repository(r.path, store, CFG)
    t = Tools.open([store])
    sid = t.open_session(author="agent", budget=3000).data["session"]
    t.pin(sid, "pkg/extra.py::big")
    held = t.get(sid, "pkg/extra.py::big", level="full")
    assert held.envelope.budget.used > 1500
    r.commit("drop extra", delete=["pkg/extra.py"])
    index_repository(r.path, store, CFG)
    assert t.reload()
    try:
        yield t, sid, held.items[0].id, held.envelope.budget.used
    finally:
        t.close()


def test_the_first_answer_after_the_switch_says_the_pin_is_gone_and_status_lists_it(deleted):
    t, sid, big, used = deleted
    r = t.get(sid, "pkg/mod.py::foo")
    said = [w for w in r.envelope.warnings if "pkg/extra.py::big" in w]
    assert len(said) == 1 and f"{used} tokens" in said[0] and "unpin 'pkg/extra.py::big'" in said[0], r.envelope.warnings
    assert not any("pkg/extra.py" in w for w in t.get(sid, "pkg/mod.py::foo").envelope.warnings)     # once
    st = t.status(sid).data["session"]
    assert st["pins_gone"] == [{"node_id": big, "name": "pkg/extra.py::big", "tokens": used}]
    assert big in st["pins"]                 # still pinned until the agent says otherwise
    with pytest.raises(BudgetExceeded, match=rf"{used} of them by pins no longer in the index: unpin 'pkg/extra\.py::big'"):
        t.get(sid, "pkg/other.py::other", level="full")      # where an agent meets a pin's tokens


def test_unpin_takes_the_name_the_pin_was_made_with_and_the_tokens_can_then_go(deleted):
    t, sid, big, used = deleted
    with pytest.raises(NotFound, match=r"pins no longer in the index: 'pkg/extra\.py::big' \(id "):
        t.unpin(sid, "pkg/extra.py::bigger")         # a name it was not pinned with: told which one is
    r = t.unpin(sid, "pkg/extra.py::big")
    assert r.envelope.warnings == []
    st = t.status(sid).data["session"]
    assert st["pins"] == [] and st["pins_gone"] == []
    r = t.get(sid, "pkg/other.py::other", level="full")      # needs the room the gone code held
    assert [(e.node_id, e.to_level) for e in r.envelope.evictions] == [(big, "cold")]


def test_a_pin_made_by_path_and_line_is_released_by_its_path_and_name(tmp_path):
    r = Repo(tmp_path / "r")
    r.commit("v1", FILES)
    store = str(tmp_path / "s")
    index_repository(r.path, store, CFG)
    t = Tools.open([store])
    try:
        sid = t.open_session(author="agent").data["session"]
        t.pin(sid, "pkg/extra.py:3")         # the function around line 3: big
        r.commit("drop extra", delete=["pkg/extra.py"])
        index_repository(r.path, store, CFG)
        t.reload()
        assert any("'pkg/extra.py::big' is no longer in the index" in w for w in t.status(sid).envelope.warnings)
        assert t.unpin(sid, "pkg/extra.py::big").envelope.warnings == []
        assert t.status(sid).data["session"]["pins"] == []
    finally:
        t.close()
