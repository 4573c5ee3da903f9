"""An unmerged note ranks for its own words as it will once an index merges it (a probe: a note
16th for its own unique word while unmerged; docs/architecture.md promises unmerged notes keyword
scores "as a merge gives them").

What differed (requests, 60 unmerged notes, each searched by its own token: 14 moved by the merge
before, none after; 8 of 45 here before):
- each list merged only its best ``search.NOTES_WINDOW`` notes while code filled it: a note the
  keyword list took for its unique word was cut from the vector list it joins once merged (26th ->
  6th), and every row below the cut notes moved up into their places;
- the shard's rows kept their own idf while the notes took the union's: old notes holding a word
  the new ones share outscored them (a note 23rd in the keyword list, 8th once merged);
- notes of equal BM25 (the same words about one target) ranked in the order written, a merge ranks
  them by (path, kind, id) (a note 4th, first once merged); one float32 step apart from a shard
  row's equal score.
What may still differ (not here): a note past the first NOTES_WINDOW of both lists is left out of a
mixed ranking (its place kept) yet lends its files evidence once merged; the shard's average length
(BM25) is the rows' alone; the shard's keyword list reads one round (approximate) either way."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow
OLD, NEW = 60, 45


def _ranks(store, tokens: dict[str, str]) -> dict[str, int | None]:
    from stratum.tools import Tools

    t = Tools.open([str(store)])
    try:
        sid = t.open_session(author="reader", budget=10**6).data["session"]
        out = {}
        for tok, nid in tokens.items():
            ids = [it.id for it in t.search(sid, tok, page_size=30).items]
            out[tok] = ids.index(nid) if nid in ids else None
        return out
    finally:
        t.close()


def _remember(store, tag: str, n: int) -> dict[str, str]:
    from stratum.tools import Tools

    t = Tools.open([str(store)])
    try:
        sid = t.open_session(author=f"agent-{tag}").data["session"]
        out = {}
        for k in range(n):
            tok = f"zzq{tag}{k // 5}x{k % 5}"
            f = k % 4
            out[tok] = t.remember(sid, ("failure", "rca", "insight")[k % 3],
                                  f"{tag} note {k}: the cause of thing {k % 5} is in parse_header_{f}_{k % 7} {tok}",
                                  [f"proto/headers_{f}.py::parse_header_{f}_{k % 7}"]).data["note_id"]
        return out
    finally:
        t.close()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo

    base = tmp_path_factory.mktemp("unmerged")
    files = {f"proto/headers_{f}.py": "".join(
        f"def parse_header_{f}_{i}(line):\n    \"\"\"Parse header field {i} of a parsing run.\"\"\"\n"
        f"    return line.split(':', {i})\n\n\n" for i in range(20)) for f in range(4)}
    r = Repo(base / "repo")
    r.commit("header parsing", files)
    cfg = IndexConfig(num_cpus=1)
    index_repository(r.path, base / "store", cfg)
    _remember(base / "store", "O", OLD)         # merged by the next index: they share "zzq" and "x1"
    index_repository(r.path, base / "store", cfg)
    return r.path, base / "store", cfg


def test_an_unmerged_note_ranks_for_its_own_word_as_once_merged(store):
    from pipeline.job import index_repository

    repo, path, cfg = store
    tokens = _remember(path, "G", NEW)
    before = _ranks(path, tokens)
    index_repository(repo, path, cfg)           # the real merge
    after = _ranks(path, tokens)
    moved = {tok: (before[tok], after[tok]) for tok in tokens if before[tok] != after[tok]}
    assert not moved, moved        # before: 8 moved (4th -> 11th, 1st -> 3rd, 5th -> 1st, ...)
