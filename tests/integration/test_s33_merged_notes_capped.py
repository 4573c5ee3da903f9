"""Merged agent notes are capped in each search list as unmerged ones are (a fleet probe): 3,000
target-less insight notes made of a repository's words left the function "parse cookie header"
names 2nd while unmerged, 68th once `stratum index` merged them (page 1: ten insight notes), because
merged notes were ordinary shard rows filling the code's own lists uncapped. Now merged and unmerged
agent notes count toward one window (``search.NOTES_WINDOW``) and the code they displaced comes
back; a search for notes alone still lists every note, and paging stays whole. The windows are
made small here (``NOTES_WINDOW`` 5, lists 20 deep) so that 400 notes crowd the lists as the
probe's 3,000 crowded werkzeug's 50-deep ones."""

from __future__ import annotations

import random

import pytest

pytestmark = pytest.mark.slow
N = 400
QUERY = "parse cookie header"
WORDS = "cookie header parse route rule converter".split()     # the probe's first words
NOTES_WINDOW, WINDOW = 5, 20


def _repo_files() -> dict[str, str]:
    """parse_cookie plus enough code that says the query's words to fill each list (werkzeug-like:
    "parse" and "header" are common in the code too)."""
    files = {"web/cookies.py": (
        "def parse_cookie(header):\n"
        "    \"\"\"Parse a Cookie header into a dict of cookie names and values.\"\"\"\n"
        "    out = {}\n"
        "    for part in header.split(';'):\n"
        "        name, _, value = part.strip().partition('=')\n"
        "        out[name] = value\n"
        "    return out\n")}
    for topic in ["range", "etag", "cache", "proxy", "form", "stream", "session", "charset"]:
        files[f"web/{topic}_headers.py"] = "".join(
            f"def parse_{topic}_header_{i}(value):\n    \"\"\"Parse the {topic} header of a request, part {i}; "
            f"the cookie and the {topic} field the client sent.\"\"\"\n    return value.strip()\n\n\n" for i in range(10))
    return files


def _page_through(t, sid, query, kinds=(), size=25):
    token, seen, warnings, first = "", [], [], None
    while True:
        r = t.search(sid, query, kinds=list(kinds), page_size=size, page_token=token)
        first = first if first is not None else [(i.kind, i.qualname) for i in r.items]
        seen += [i.id for i in r.items]
        warnings = r.envelope.warnings
        if not r.envelope.has_more:
            return seen, warnings, first
        token = r.envelope.next_page_token


def _page_one(t, sid):
    """The ranking's first ten items (a first page may end early where the scores drop)."""
    token, items = "", []
    while len(items) < 10:
        r = t.search(sid, QUERY, page_size=10, page_token=token)
        items += [(i.kind, i.qualname) for i in r.items]
        if not r.envelope.has_more:
            break
        token = r.envelope.next_page_token
    return items[:10]


def _small_windows(t, mp):
    from stratum import search

    mp.setattr(search, "NOTES_WINDOW", NOTES_WINDOW)
    mp.setattr(t.memory.shards.shards[0].warm.searcher, "window", WINDOW)


@pytest.fixture(scope="module")
def merged(tmp_path_factory):
    """A store whose shard holds N merged target-less insight notes, and page 1 before the merge."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    base = tmp_path_factory.mktemp("capped")
    r = Repo(base / "repo")
    r.commit("web helpers", _repo_files())
    cfg = IndexConfig(num_cpus=1)
    index_repository(r.path, base / "store", cfg)
    t = Tools.open([str(base / "store")])
    with pytest.MonkeyPatch.context() as mp:
        _small_windows(t, mp)
        sid = t.open_session(author="fleet").data["session"]
        rnd = random.Random(1)
        ids = {t.remember(sid, "insight", f"agent insight {i}: " + " ".join(rnd.choice(WORDS) for _ in range(6)),
                          []).data["note_id"] for i in range(N)}
        reader = t.open_session(author="reader", budget=10**7).data["session"]
        before = _page_one(t, reader)
    t.close()
    index_repository(r.path, base / "store", cfg)       # merges the N notes into the shard
    return base / "store", ids, before


def test_merged_notes_leave_the_named_function_on_page_one(merged, monkeypatch):
    from stratum import search
    from stratum.tools import Tools

    store, ids, before = merged
    assert ("function", "parse_cookie") in before, before         # unmerged: capped, the code stays
    t = Tools.open([str(store)])
    try:
        _small_windows(t, monkeypatch)
        sid = t.open_session(author="reader", budget=10**7).data["session"]
        after = _page_one(t, sid)
        assert ("function", "parse_cookie") in after, after           # was 10 of 10 insight notes, it 15th
        assert sum(kind == "insight" for kind, _ in after) < 10
        searcher = t.memory.shards.shards[0].warm.searcher
        assert searcher.agent_notes.count == N > search.NOTES_WINDOW     # merged: shard rows now
        assert searcher.agent_notes.splits > 0
        # the mixed ranking pages whole (no item twice) and says more notes match than it holds
        mixed, said, _ = _page_through(t, sid, QUERY)
        assert len(mixed) == len(set(mixed))
        assert len(ids & set(mixed)) < N
        assert any("more agent notes match" in w for w in said), said
        # a search for notes alone still reaches every note, each once, in pages of any size (pages
        # past the window were cut from lists as deep as each reached: they repeated notes, missed others)
        for size in (10, 50):
            notes, _, _ = _page_through(t, sid, QUERY, kinds=["insight"], size=size)
            assert len(notes) == len(set(notes)) and ids <= set(notes), (size, len(ids & set(notes)))
        # the same page again: the same items (the fused list does not depend on the page)
        assert _page_one(t, sid) == after
    finally:
        t.close()


def test_a_few_merged_notes_cost_no_extra_search(tmp_path):
    """A shard holding no more merged agent notes than the window is searched as before: no split."""
    from pipeline.job import index_repository
    from stratum import search
    from stratum.config import IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    r = Repo(tmp_path / "repo")
    r.commit("web helpers", _repo_files())
    cfg = IndexConfig(num_cpus=1)
    index_repository(r.path, tmp_path / "store", cfg)
    t = Tools.open([str(tmp_path / "store")])
    try:
        sid = t.open_session(author="fleet").data["session"]
        for i in range(search.NOTES_WINDOW):
            t.remember(sid, "insight", f"agent insight {i}: cookie header parse quirk {i}", [])
    finally:
        t.close()
    index_repository(r.path, tmp_path / "store", cfg)
    t = Tools.open([str(tmp_path / "store")])
    try:
        searcher = t.memory.shards.shards[0].warm.searcher
        assert searcher.agent_notes.count == search.NOTES_WINDOW
        sid = t.open_session(author="reader").data["session"]
        assert ("function", "parse_cookie") in _page_one(t, sid)
        assert searcher.agent_notes.splits == 0
    finally:
        t.close()
