"""A word only an agent note holds finds that note, unmerged and after a re-index merges it.

A probe (session 26): an rca note "the flaky upload is caused by the MAX_CHUNK_SPILL guard ..." came
12th-26th for `search MAX_CHUNK_SPILL`: its keyword rank was 1, but RRF gives that 1/61 and the code
that matched the query's common subwords (max, chunk, spill) in both lists fused higher, history
lifted it further, and ``ranknotes.below_better_code`` held the note under it. Here a real repository
with history (the index job mines its changes), the real Tools; the note is searched by its unique
identifier word, and a long incident note by its one rare prose word among the code's common words.
"""

from __future__ import annotations

import shutil

import pytest

from pipeline.job import index_repository
from stratum import search
from stratum.config import IndexConfig
from stratum.rank import RARE_WHY
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False)        # the static embedder: the vector list decides much here
CHUNKS = '''"""Chunked uploads."""

MAX_CHUNK = 1 << 20


def split_chunks(data, size=MAX_CHUNK):
    """Split DATA into upload chunks of at most SIZE bytes; the last chunk may be short."""
    return [data[i:i + size] for i in range(0, len(data), size)]


def upload_chunks(client, data):
    """Upload DATA chunk by chunk; a failed chunk is retried, max three times."""
    for chunk in split_chunks(data):
        for attempt in range(3):
            if client.put(chunk):
                break


def spill_chunk(buf, chunk):
    """Spill a chunk to disk when the buffer holds more than the max chunk size."""
    buf.append(chunk)
    return len(buf) > MAX_CHUNK
'''
RETRY = '''"""Retry policy for uploads."""


def backoff(attempt):
    """Seconds to wait before retry ATTEMPT of an upload chunk."""
    return min(30, 2 ** attempt)


def max_retries(size):
    """How many retries an upload of SIZE bytes gets: more for a larger chunk."""
    return 3 if size < (1 << 20) else 5
'''
PAST = ["fix upload retry of a failed chunk", "spill chunks to disk when the buffer is max",
        "upload: max chunk size is 1 MiB", "retry the upload chunk with backoff",
        "fix the spill of the last chunk", "upload chunks in order"]
RCA = ("the flaky upload is caused by the MAX_CHUNK_SPILL guard: a chunk that spills is retried before "
       "the disk write finishes, so uploads fail sporadically")
INCIDENT = ("from the staging incident review: when the corporate proxy renegotiates TLS mid-stream the "
            "session drops; we saw it on Tuesday during the nightly batch, operations paged twice, the "
            "dashboard showed latency spikes in the eu region and the on-call engineer restarted the "
            "gateway pods before anyone captured a packet trace, so the root cause stayed unconfirmed")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """(repository, its store): 20 small modules about upload chunks, and history about them."""
    base = tmp_path_factory.mktemp("noteword")
    r = Repo(base / "repo")
    files = {"up/__init__.py": "", "up/chunks.py": CHUNKS, "up/retry.py": RETRY,
             "up/client.py": "class Client:\n    '''An upload client.'''\n\n    def put(self, chunk):\n"
                             "        '''Put one chunk; False on a failed upload.'''\n        return bool(chunk)\n"}
    for i in range(20):
        files[f"up/mod{i}.py"] = f"def helper{i}(chunk):\n    '''Chunk helper {i}: upload the chunk, spill it when max.'''\n" \
                                 "    return chunk\n"
    r.commit("init", files)
    for i, msg in enumerate(PAST):
        path, src = ("up/chunks.py", CHUNKS) if i % 2 == 0 else ("up/retry.py", RETRY)
        r.commit(msg, {path: f"{src}\n\n# rev {i}\n"})
    index_repository(r.path, base / "store", CFG)
    return r.path, base / "store"


def _open(indexed, tmp_path) -> Tools:
    store = tmp_path / "store"
    shutil.copytree(indexed[1], store, ignore=shutil.ignore_patterns("deltalog"))
    return Tools.open([str(store)])


def _place(t: Tools, s: str, query: str, nid: str) -> tuple[int | None, list]:
    items = t.search(s, query, page_size=10).items
    ids = [i.id for i in items]
    return (ids.index(nid) if nid in ids else None), [(i.kind, i.path, i.why) for i in items]


def test_a_notes_own_identifier_and_rare_prose_word_find_it_before_and_after_the_merge(indexed, tmp_path):
    t = _open(indexed, tmp_path)
    try:
        s = t.open_session().data["session"]
        rca = t.remember(s, "rca", RCA, ["up/chunks.py::spill_chunk"]).data["note_id"]
        inc = t.remember(s, "insight", INCIDENT, ["up/retry.py::max_retries"]).data["note_id"]
        t.remember(s, "insight", "upload chunks are retried max three times", ["up/chunks.py::upload_chunks"])
        for merged in (False, True):
            if merged:
                index_repository(indexed[0], tmp_path / "store", CFG)
                assert t.reload() and t.memory.resolve(rca).row is not None     # a row of the new version
            for query, nid in (("MAX_CHUNK_SPILL", rca), ("upload chunk renegotiates", inc)):
                at, page = _place(t, s, query, nid)
                assert at is not None and at < 3, (merged, query, page)
                assert page[at][2].startswith(RARE_WHY), (merged, query, page[at])
            # the code the rca note is about follows it (a leading note's code), as for its own words
            items = t.search(s, "MAX_CHUNK_SPILL", page_size=5).items
            assert [i.id for i in items[:2]][0] == rca and (items[1].path, items[1].name) == \
                ("up/chunks.py", "spill_chunk"), [(i.kind, i.path, i.name, i.why) for i in items]
    finally:
        t.close()


def test_common_words_rank_as_without_the_rule(indexed, tmp_path, monkeypatch):
    """Words many rows hold place no note: each page is the one the ranking served without the
    rule (search.RARE_ROWS = 0), notes below the code that matches better where they were."""
    t = _open(indexed, tmp_path)
    try:
        s = t.open_session().data["session"]
        t.remember(s, "insight", "upload chunks are retried max three times", ["up/chunks.py::upload_chunks"])
        t.remember(s, "rca", RCA, ["up/chunks.py::spill_chunk"])
        queries = ("upload chunk", "split chunks", "retry backoff", "chunk spill max")
        got = {q: [(i.id, i.why) for i in t.search(s, q, page_size=10).items] for q in queries}
        monkeypatch.setattr(search, "RARE_ROWS", 0)
        for q in queries:
            assert got[q] == [(i.id, i.why) for i in t.search(s, q, page_size=10).items], q
            assert not any(RARE_WHY in why for _, why in got[q]), (q, got[q])
    finally:
        t.close()
