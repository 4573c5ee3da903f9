"""A search for notes alone pages through every note it ranks: with 80 notes about one file,
`kinds=[rca, failure, insight]` reached 63-70 of them (each list was cut at its window of 50), and
its last page said to "filter by kind, path or language", the filters already given (a team probe,
session 27). Now each list is as deep as the pages reach, and the last page has nothing to add. Real repository, the real index job (embeddings on), the real Tools; unmerged notes,
then merged by a re-index."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from stratum.config import IndexConfig

pytestmark = pytest.mark.slow
KINDS = ["rca", "failure", "insight"]
TOPICS = ("retry", "timeout", "header", "cookie", "proxy", "redirect", "encoding", "stream")


def _page_all(t, s, query: str) -> tuple[list[str], list[str]]:
    ids: list[str] = []
    token = ""
    while True:
        r = t.search(s, query, kinds=KINDS, page_size=10, page_token=token)
        ids += [it.id for it in r.items]
        if not r.envelope.has_more:
            return ids, r.envelope.warnings
        token = r.envelope.next_page_token


def test_a_notes_only_search_pages_through_every_note(tmp_path):
    from tests.gitrepo import indexed_tools

    files = {"shop/__init__.py": "", "shop/api.py": "def request(url):\n    return url\n"}
    with indexed_tools(tmp_path, files) as (t, s):
        for i in range(80):
            t.remember(s, KINDS[i % 3], f"request {TOPICS[i % 8]} case {i}: the {TOPICS[(i * 3) % 8]} path "
                                        f"misbehaves under load {i}", ["shop/api.py"])
        ids, said = _page_all(t, s, "misbehaves under load")
        assert len(ids) == len(set(ids)) == 80, len(set(ids))
        assert not any("filter by kind" in w or "ranking ends here" in w for w in said), said   # all: nothing to add
    index_repository(tmp_path / "repo", tmp_path / "store", IndexConfig(num_cpus=1))     # merged now
    from stratum.tools import Tools

    t = Tools.open([str(tmp_path / "store")])
    try:
        ids, _ = _page_all(t, t.open_session().data["session"], "misbehaves under load")
        assert len(set(ids)) == 80, len(set(ids))
    finally:
        t.close()
