"""A merged note is keyword-searched by what it says, as it was before the merge: not by its
header's session id, dates, node ids or content hashes (a query with a commit sha or an id in it
matched every merged note whose hex shared a piece with it)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def test_a_merged_note_is_found_by_its_words_not_its_session_id(tmp_path):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.notes import session_label
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    r = Repo(tmp_path / "repo")
    r.commit("initial", {"shop/pay.py": "def settle(amount):\n    return round(amount, 2)\n"})
    cfg = IndexConfig(num_cpus=1)
    index_repository(r.path, tmp_path / "store", cfg)
    t = Tools.open([str(tmp_path / "store")])
    sid = t.open_session(author="agent").data["session"]
    note = t.remember(sid, "rca", "settle rounds half-cents the banker's way", ["shop/pay.py::settle"]).data["note_id"]
    t.close()
    index_repository(r.path, tmp_path / "store", cfg)             # merges the note into the store
    t = Tools.open([str(tmp_path / "store")])
    try:
        s = t.open_session(author="agent").data["session"]
        assert note in [i.id for i in t.search(s, "banker rounds half-cents", kinds=["rca"]).items]
        header = t.get(s, note, level="full").items[0].text           # the header still says which session
        assert f"session {session_label(sid)}" in header and sid not in header     # by its label, never its id
        searcher = next(iter(t.memory)).warm.searcher                 # the merged notes' keyword list

        def by_words(query):
            return [i.id for i in searcher.search(query, kinds=["rca"], sources=("keyword",)).items]

        assert by_words("banker half-cents") == [note]
        for query in (sid, sid[:12], note, session_label(sid)):
            assert by_words(query) == [], query
    finally:
        t.close()
