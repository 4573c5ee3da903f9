"""A version switch during a call (a fleet probe): the server's reload thread may switch versions at
any moment, and an answer computed on the old version went out labelled with the new commit, stale
false, no warning. Each call now answers from the shards it started with (``ShardSet.pinned``), so
its text, version, commit and freshness are one version's. Real repository, the real index job, the
real reload, forced at a precise point by a hook around ``render.respond`` (where the probe forced it:
the items are built, the envelope not yet)."""

from __future__ import annotations

import pytest

from pipeline.gitio import freshness
from pipeline.job import index_repository
from stratum import render
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
V1 = {"pkg/__init__.py": "", "pkg/mod.py": "def foo():\n    return 1\n\n\ndef bar():\n    return foo()\n"}
V2 = {"pkg/mod.py": "def foo():\n    return 2\n\n\ndef bar():\n    return foo()\n"}


@pytest.fixture()
def switching(tmp_path, monkeypatch):
    """(tools, session, v1 commit, v2 commit, arm): v2 is indexed and published but not loaded;
    ``arm()`` makes the next answer's envelope be built after a real ``Tools.reload``."""
    r = Repo(tmp_path / "r")
    c1 = r.commit("v1", V1)
    store = str(tmp_path / "s")
    index_repository(r.path, store, CFG)
    t = Tools.open([store], freshness=freshness)
    sid = t.open_session(author="agent").data["session"]
    c2 = r.commit("v2: foo returns 2", V2)
    index_repository(r.path, store, CFG)
    real = render.respond
    armed = []

    def respond(*args, **kwargs):      # the reload thread, just as the call finishes
        if armed:
            armed.clear()
            assert t.reload(), "the hook must switch versions"
        return real(*args, **kwargs)

    monkeypatch.setattr(render, "respond", respond)
    try:
        yield t, sid, c1, c2, lambda: armed.append(1)
    finally:
        t.close()


def test_an_answer_straddling_a_switch_is_labelled_with_the_version_it_was_computed_from(switching):
    t, sid, c1, c2, arm = switching
    before = t.get(sid, "pkg/mod.py::foo", level="full")
    assert before.envelope.commit == c1 and "return 1" in before.items[0].text
    arm()
    r = t.get(sid, "pkg/mod.py::foo", level="full")
    assert "return 1" in r.items[0].text            # computed on v1 ...
    assert r.envelope.commit == c1 and r.envelope.version == before.envelope.version    # ... said so
    assert r.envelope.stale and any("pkg/mod.py" in w for w in r.envelope.warnings)    # v1 is behind the checkout
    after = t.get(sid, "pkg/mod.py::foo", level="full")         # the next call is v2's, all of it
    assert "return 2" in after.items[0].text and after.envelope.commit == c2 and not after.envelope.stale
    assert after.envelope.version > r.envelope.version


def test_a_page_token_issued_across_a_switch_is_bound_to_the_version_that_ranked_it(switching):
    t, sid, c1, _, arm = switching
    arm()
    r = t.tree(sid, "", depth=3, page_size=1)
    assert r.envelope.commit == c1 and r.envelope.next_page_token
    from stratum.errors import InvalidPageToken

    with pytest.raises(InvalidPageToken):       # ranked on v1: refused as stale on v2, not served
        t.tree(sid, "", depth=3, page_size=1, page_token=r.envelope.next_page_token)


def test_a_note_written_across_a_switch_is_written_once_and_labelled_with_its_version(switching):
    t, sid, c1, c2, arm = switching
    arm()
    r = t.remember(sid, "rca", "foo returns a constant and bar trusts it", about=["pkg/mod.py::foo"])
    assert r.envelope.commit == c1 and r.data["note_id"]
    again = t.remember(sid, "rca", "foo returns a constant and bar trusts it", about=["pkg/mod.py::foo"])
    assert again.data["note_id"] == r.data["note_id"] and again.envelope.commit == c2
    st = t.status(sid)
    assert [s["unmerged_notes"] for s in st.data["shards"]] == [1]
    found = t.search(sid, "constant bar trusts", kinds=["rca"]).items
    assert [it.id for it in found] == [r.data["note_id"]]
