"""Unmerged notes a search can reach (a fleet probe): a mixed search merges only each list's first
``search.NOTES_WINDOW`` unmerged notes when the code's own list is full, so paging to its end
reached 30 of 150 notes that all held the query's rarest word, and the last page's hint ("filter by
kind") did not reach more. A search for notes alone now takes the whole window, as code does, and
a mixed search whose notes were cut says so and how to reach them."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow
N = 60


def _page_through(t, sid, query, kinds=()):
    token, seen, warnings = "", [], []
    while True:
        r = t.search(sid, query, kinds=list(kinds), page_size=50, page_token=token)
        seen += [i.id for i in r.items]
        warnings = r.envelope.warnings
        if not r.envelope.has_more:
            return seen, warnings
        token = r.envelope.next_page_token


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    base = tmp_path_factory.mktemp("window")
    files = {f"proto/headers_{f}.py": "".join(
        f"def parse_header_{f}_{i}(line):\n    \"\"\"Parse header field {i} of a parsing run.\"\"\"\n"
        f"    return line.split(':', {i})\n\n\n" for i in range(20)) for f in range(4)}
    r = Repo(base / "repo")
    r.commit("header parsing", files)
    cfg = IndexConfig(num_cpus=1)
    index_repository(r.path, base / "store", cfg)
    t = Tools.open([str(base / "store")])
    sid = t.open_session(author="agent").data["session"]
    for k in range(N):      # merged by the next index: the shard's own insight lists are full
        t.remember(sid, "insight", f"header parsing quirk {k}: an old finding about field {k}",
                   [f"proto/headers_{k % 4}.py::parse_header_{k % 4}_{k % 20}"])
    t.close()
    index_repository(r.path, base / "store", cfg)
    return base / "store"


def test_a_notes_search_reaches_the_unmerged_notes_a_mixed_one_cuts(store):
    from stratum.tools import Tools

    t = Tools.open([str(store)])
    try:
        sid = t.open_session(author="agent", budget=10**6).data["session"]
        fresh = {t.remember(sid, "insight", f"zqfresh header parsing quirk {k}: field {k} needs a colon",
                            [f"proto/headers_{k % 4}.py::parse_header_{k % 4}_{k % 20}"]).data["note_id"]
                 for k in range(N)}
        reader = t.open_session(author="reader", budget=10**6).data["session"]
        mixed, said = _page_through(t, reader, "zqfresh header parsing quirk")
        assert len(fresh & set(mixed)) < N            # the mixed ranking holds some of them ...
        assert any("more agent notes match" in w and "kinds" in w for w in said), said   # ... and says so
        notes, _ = _page_through(t, reader, "zqfresh header parsing quirk", kinds=["insight"])
        # each list takes 50 of them (the window), not 20: the old cut reached at most 40
        assert len(fresh & set(notes)) >= 50, len(fresh & set(notes))
    finally:
        t.close()
