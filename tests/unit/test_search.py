"""Hybrid search over a real (small) warm tier: the real MiniLM embedder, real usearch and BM25."""

import numpy as np
import pyarrow as pa
import pytest

from stratum import schema as S
from stratum.embedder import MiniLMEmbedder
from stratum.errors import InvalidArgument
from stratum.ids import node_id
from stratum.keywordindex import KeywordIndex
from stratum.codetokens import node_names, node_text
from stratum.search import ExtraDoc, HybridSearcher
from stratum.vectorindex import VectorIndex

# (path, kind, qualname, signature, doc, language)
CODE = [
    ("src/config/loader.py", "function", "load_config", "def load_config(path: str) -> dict",
     "Read the YAML settings file at path and return the parsed options.", "python"),
    ("src/config/loader.py", "function", "merge_env", "def merge_env(cfg: dict) -> dict",
     "Override options with STRATUM_* environment variables.", "python"),
    ("src/parse/parser.py", "function", "parse_file", "def parse_file(path, data: bytes)",
     "Parse one source file into nodes and edges with tree-sitter.", "python"),
    ("src/parse/parser.py", "function", "parse_files_parallel", "def parse_files_parallel(paths)",
     "Run parse_file over many files in a process pool.", "python"),
    ("src/parse/parser.py", "class", "ParseError", "class ParseError(Exception)",
     "Raised when a file cannot be parsed.", "python"),
    ("src/net/http.py", "function", "fetch_url", "def fetch_url(url, timeout=10)",
     "Download a web page over HTTP, retrying on connection errors.", "python"),
    ("src/net/http.py", "class", "HTTPServerError", "class HTTPServerError(Exception)",
     "A 5xx response from the remote server.", "python"),
    ("src/net/server.go", "function", "ListenAndServe", "func ListenAndServe(addr string) error",
     "ListenAndServe starts the HTTP listener on addr.", "go"),
    ("src/net/server.go", "function", "shutdownGracefully", "func shutdownGracefully(ctx context.Context)",
     "Stop accepting connections and wait for in-flight requests.", "go"),
    ("src/util/timefmt.py", "function", "humanize_duration", "def humanize_duration(seconds: float) -> str",
     "Format a number of seconds as text like '3h 5m'.", "python"),
    ("src/util/hashing.py", "function", "sha1_of_file", "def sha1_of_file(path) -> str",
     "Compute the SHA-1 digest of a file's bytes in chunks.", "python"),
    ("src/util/hashing.py", "function", "content_hash", "def content_hash(data: bytes) -> str",
     "Hex digest identifying content.", "python"),
    ("src/store/cache.py", "class", "LRUCache", "class LRUCache",
     "A least-recently-used cache with a fixed capacity; evicts the oldest entry.", "python"),
    ("src/store/cache.py", "method", "LRUCache.get", "def get(self, key)",
     "Return the cached value and mark it as recently used.", "python"),
    ("src/store/db.py", "function", "open_database", "def open_database(url: str)",
     "Connect to the SQL database and return a connection pool.", "python"),
    ("src/store/db.py", "function", "run_migrations", "def run_migrations(conn)",
     "Apply pending schema migrations in order.", "python"),
    ("web/src/Button.tsx", "function", "renderButton", "function renderButton(props: ButtonProps)",
     "Render a clickable button component.", "typescript"),
    ("web/src/api.ts", "function", "getUserProfile", "async function getUserProfile(id: string)",
     "Fetch the user's profile from the REST API.", "typescript"),
    ("src/auth/tokens.py", "function", "issue_token", "def issue_token(user_id: str) -> str",
     "Create a signed JWT access token for a user.", "python"),
    ("src/auth/tokens.py", "function", "verify_token", "def verify_token(token: str) -> dict",
     "Check a JWT's signature and expiry and return its claims.", "python"),
]


def _pairs(hits):
    """(slot, score) pairs of a NoteView list's (slots, scores) arrays."""
    slots, scores = hits
    return list(zip(slots.tolist(), scores.tolist()))


def records():
    recs = []
    for path, kind, qual, sig, doc, lang in CODE:
        recs.append({"id": node_id("demo", path, kind, qual), "repo": "demo", "kind": kind, "path": path,
                     "name": qual.split(".")[-1], "qualname": qual, "language": lang, "signature": sig,
                     "doc": doc, "full": f"{sig}:\n    \"\"\"{doc}\"\"\"\n"})
    for path in sorted({c[0] for c in CODE}):
        lang = next(c[5] for c in CODE if c[0] == path)
        recs.append({"id": node_id("demo", path, "file", ""), "repo": "demo", "kind": "file", "path": path,
                     "name": path.rsplit("/", 1)[-1], "qualname": "", "language": lang})
    recs.append({"id": node_id("demo", "notes", "insight", "n1"), "repo": "demo", "kind": "insight",
                 "path": "src/parse/parser.py", "name": "", "qualname": "", "language": "",
                 "summary": "Parsing huge generated files is slow; skip files over 1 MiB.",
                 "full": "Parsing huge generated files is slow; skip files over 1 MiB."})
    return recs


@pytest.fixture(scope="module")
def embedder():
    return MiniLMEmbedder()


@pytest.fixture(scope="module")
def setup(embedder):
    recs = records()
    texts = [node_text(r) for r in recs]
    vecs = embedder.embed(texts)
    table = S.to_table(recs, S.NODES)
    vi = VectorIndex.build(vecs, threads=1)
    ki = KeywordIndex.build(texts, [node_names(r) for r in recs])
    return recs, table, HybridSearcher(table, vi, ki, embedder), vi, ki


def quals(page, recs):
    return [recs[it.row]["qualname"] or recs[it.row]["path"] for it in page.items]


def test_exact_identifier_comes_first(setup):
    recs, _, hs, _, _ = setup
    for ident in ("parse_file", "HTTPServerError", "LRUCache.get", "shutdownGracefully"):
        page = hs.search(ident, limit=5)
        assert quals(page, recs)[0] == ident
        assert "name" in page.items[0].sources


def test_paraphrase_finds_the_right_code(setup):
    recs, _, hs, _, _ = setup
    cases = {
        "read settings from a yaml file": "load_config",
        "turn seconds into a readable time string": "humanize_duration",
        "check that an auth token is valid": "verify_token",
        "remove the least recently used item when full": "LRUCache",
    }
    for query, want in cases.items():
        assert want in quals(hs.search(query, limit=3), recs), query


def test_filters(setup):
    recs, _, hs, _, _ = setup
    page = hs.search("http server", kinds=("class",), limit=50)
    assert page.items and all(recs[it.row]["kind"] == "class" for it in page.items)
    assert quals(page, recs)[0] == "HTTPServerError"
    page = hs.search("start the server", path_prefix="src/net/", limit=50)
    assert page.items and all(recs[it.row]["path"].startswith("src/net/") for it in page.items)
    page = hs.search("start the server", language="Go", limit=50)
    assert {recs[it.row]["language"] for it in page.items} == {"go"}
    assert page.total_is_exact and page.total_or_lower_bound == 3   # 2 go functions + 1 go file
    page = hs.search("parse", kinds=("function", "method"), path_prefix="src/parse/", limit=50)
    assert set(quals(page, recs)) == {"parse_file", "parse_files_parallel"}
    empty = hs.search("anything", language="cobol")
    assert empty.items == [] and empty.total_is_exact and empty.total_or_lower_bound == 0
    with pytest.raises(InvalidArgument):
        hs.search("x", kinds=("widget",))


def test_pages_concatenate_to_the_full_list(setup):
    _, _, hs, _, _ = setup
    for query, kw in (("parse a source file", {}), ("token", {"path_prefix": "src/"}), ("cache", {})):
        full = hs.search(query, limit=1000, **kw)
        got, offset = [], 0
        while True:
            page = hs.search(query, limit=4, offset=offset, **kw)
            got += page.items
            assert page.total_or_lower_bound == full.total_or_lower_bound
            if not page.has_more:
                break
            offset += 4
        assert [it.id for it in got] == [it.id for it in full.items]
        assert len({it.id for it in got}) == len(got) == full.total_or_lower_bound
        scores = [it.score for it in got]
        assert scores == sorted(scores, reverse=True)
        ties = [(a.id, b.id) for a, b in zip(got, got[1:]) if a.score == b.score]
        assert all(x < y for x, y in ties)                                 # ties broken by id


def test_window_cuts_the_ranked_list_honestly(setup, embedder):
    recs, table, _, vi, ki = setup
    hs = HybridSearcher(table, vi, ki, embedder, window=5)
    page = hs.search("file", limit=100)
    assert not page.total_is_exact and page.total_or_lower_bound == len(page.items) >= 5
    assert not page.has_more


def test_unmerged_notes_are_searched_with_the_shard(setup, embedder):
    recs, _, hs, _, _ = setup
    text = "fetch_url times out behind the corporate proxy; set HTTPS_PROXY before running tests"
    note = ExtraDoc("n-overlay-1", text, embedder.embed([text])[0], "failure", "src/net/http.py", "")
    page = hs.search("requests time out behind a proxy", limit=5, extra_docs=[note])
    assert page.items[0].id == "n-overlay-1" and page.items[0].row == -1
    assert set(page.items[0].sources) == {"vector", "keyword"}
    page = hs.search("requests time out behind a proxy", kinds=("function",), extra_docs=[note])
    assert "n-overlay-1" not in [it.id for it in page.items]                # filters apply to notes too
    keyword_only = ExtraDoc("n-overlay-2", "HTTPS_PROXY must be set", None, "insight", "", "")
    page = hs.search("HTTPS_PROXY", limit=3, extra_docs=[keyword_only])
    found = {it.id: it for it in page.items}
    assert found["n-overlay-2"].sources == ("keyword",)              # the only keyword match
    assert found["n-overlay-2"].score == pytest.approx(1 / 61)        # RRF rank 1


def test_predicate_path_agrees_with_exact_allowed_set():
    """A broad filter runs over-fetch + predicate; a narrow one scores its allowed rows exactly.
    On the same data both must give allowed rows only and (nearly) the same ranking."""
    rng = np.random.default_rng(0)
    n = 3000
    basis = rng.normal(size=(24, 384))
    x = rng.normal(size=(n, 24)) @ basis + 3 * rng.normal(size=384)
    x = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    kinds = np.array(["function", "method", "class"])[rng.integers(0, 3, n)]
    table = pa.table({"id": [f"id{i:05d}" for i in range(n)], "kind": kinds,
                      "path": [f"src/m{i % 40}/f{i % 7}.py" for i in range(n)], "language": ["python"] * n})
    vi = VectorIndex.build(x, threads=1)
    ki = KeywordIndex.build([f"module m{i % 40} item{i}" for i in range(n)])
    q = x[17]
    a = HybridSearcher(table, vi, ki, None, exact_limit=0).search("m3", kinds=("class",), limit=20,
                                                                   query_vector=q)
    b = HybridSearcher(table, vi, ki, None, exact_limit=10**9).search("m3", kinds=("class",), limit=20,
                                                                       query_vector=q)
    assert all(kinds[it.row] == "class" for it in a.items + b.items)
    assert len({it.id for it in a.items} & {it.id for it in b.items}) >= 18
    # the kind's own graph (built for mid-sized kinds) gives the same answer
    vg = VectorIndex.build(x, threads=1)
    assert vg.build_groups(kinds, min_rows=100, max_fraction=0.5) == {k: int((kinds == k).sum()) for k in
                                                                      ("function", "method", "class")}
    c = HybridSearcher(table, vg, ki, None, exact_limit=0).search("m3", kinds=("class",), limit=20, query_vector=q)
    assert all(kinds[it.row] == "class" for it in c.items)
    assert len({it.id for it in c.items} & {it.id for it in b.items}) >= 18
    d = HybridSearcher(table, vg, ki, None, exact_limit=0).search("m3", kinds=("class",), path_prefix="src/m3",
                                                                  limit=20, query_vector=q)
    assert d.items and all(kinds[it.row] == "class" and table["path"][it.row].as_py().startswith("src/m3")
                           for it in d.items)


def test_bad_queries(setup):
    _, _, hs, _, _ = setup
    for bad in ("", "   "):
        with pytest.raises(InvalidArgument):
            hs.search(bad)
    with pytest.raises(InvalidArgument):
        hs.search("x", limit=0)
    with pytest.raises(InvalidArgument):
        hs.search("x", offset=-1)


def test_cold_tier_lance_indexes_use_the_same_tokens(setup, tmp_path, embedder):
    """The Lance cold-tier experiment (benchmarks): FTS over code-aware tokens, scalar filters,
    exact vector scan. Its ``keywords`` column is its own (not in schema.NODES), so the table is
    written with lancedb directly."""
    try:
        from stratum.lanceindex import LanceSearcher, create_indexes, filter_clause, with_keywords
    except ImportError:     # moved to benchmarks/ (it is not a serving fallback)
        from benchmarks.lanceindex import LanceSearcher, create_indexes, filter_clause, with_keywords
    from stratum.store import Store

    recs, table, _, vi, _ = setup
    vecs = embedder.embed([node_text(r) for r in recs])
    table = table.set_column(table.column_names.index("vector"), "vector",
                             pa.FixedSizeListArray.from_arrays(pa.array(vecs.reshape(-1)), vecs.shape[1]))
    store = Store(tmp_path / "store")
    tbl = store.db().create_table("nodes", with_keywords(table))
    report = create_indexes(tbl)
    assert "fts" in report["seconds"] and "vector" not in report          # too small for IVF
    assert {i.index_type for i in tbl.list_indices()} >= {"FTS", "Bitmap", "BTree"}
    ls = LanceSearcher(tbl)
    by_id = {r["id"]: r for r in recs}
    ids, _ = ls.keyword("gracefully", 3)                                   # a camelCase word
    assert by_id[ids[0]]["qualname"] == "shutdownGracefully"
    ids, _ = ls.keyword("parse_file", 3)
    assert by_id[ids[0]]["qualname"] in ("parse_file", "parse_files_parallel")
    ids, _ = ls.keyword("server", 10, where=filter_clause(kinds=["class"], path_prefix="src/net/"))
    assert [by_id[i]["qualname"] for i in ids] == ["HTTPServerError"]
    ids, _ = ls.keyword("server", 10, where=filter_clause(language="GO"))
    assert ids and all(by_id[i]["language"] == "go" for i in ids)
    q = embedder.embed(["read settings from a yaml file"])[0]
    ids, sims = ls.vector(q, 5)
    warm = vi.exact(q, 5)
    assert ids == [recs[r]["id"] for r in warm.rows]
    np.testing.assert_allclose(sims, warm.scores, atol=2e-3)
    assert filter_clause(path_prefix="a_b%'") == "path LIKE 'a\\_b\\%''%'"


def test_keyword_list_on_a_helper_and_inline_rank_alike(setup, embedder):
    """The keyword list on a helper thread gives the very ranking it gives inline (the default),
    also when many callers share one searcher and its helper threads are busy."""
    from concurrent.futures import ThreadPoolExecutor

    recs, table, _, vi, ki = setup
    inline = HybridSearcher(table, vi, ki, embedder, parallel=0)
    hs = HybridSearcher(table, vi, ki, embedder, parallel=2)
    queries = ["parse the configuration file", "fetch_url", "render a template", "Cart total price"]
    want = {q: [(it.id, it.score, it.sources) for it in inline.search(q, limit=20).items] for q in queries}
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda q: (q, [(it.id, it.score, it.sources) for it in hs.search(q, limit=20).items]),
                            queries * 10))
    for q, items in got:
        assert items == want[q]


def test_incremental_note_index_scores_like_exhaustive_scoring(setup, embedder):
    """The overlay's note index (appended per note) gives each note the score exhaustive scoring
    gives it: BM25 with the shard's statistics (KeywordIndex.score_texts) and cosine; filters and
    the viewer's quarantine mask apply before the top-k."""
    from stratum.noteindex import NoteIndex

    recs, _, hs, _, ki = setup
    rng = np.random.default_rng(7)
    words = ["proxy", "timeout", "cache", "token", "parse_file", "yaml", "retry", "server", "LRUCache", "jwt"]
    texts = [" ".join(rng.choice(words, size=int(rng.integers(3, 12)))) for _ in range(300)]
    vecs = embedder.embed(texts)
    ix = NoteIndex(vecs.shape[1])
    for i, (t, v) in enumerate(zip(texts, vecs)):
        ix.add(f"n{i:04d}", t, "rca" if i % 3 else "insight", f"src/p{i % 4}.py", f"a{i % 5}", v)
    ix.set_state("n0001", active=False)
    ix.set_state("n0002", active=True, hidden=True)           # quarantined: its author a2 only
    query = "proxy timeout retry LRUCache"
    exact = ki.score_texts(query, texts)
    view = ix.view("someone")
    ok = view.mask()
    got = dict(_pairs(view.keyword_hits(query, ki.idf, ki.avgdl, 1000, ok)))
    want = {j: float(s) for j, s in enumerate(exact) if s > 0 and j not in (1, 2)}
    assert got.keys() == want.keys()
    assert all(abs(got[j] - want[j]) < 1e-4 for j in want)
    q = embedder.embed([query])[0]
    top = _pairs(view.vector_hits(q, 10, ok))
    cos = vecs @ q
    cos[[1, 2]] = -np.inf
    assert [j for j, _ in top] == list(np.argsort(-cos, kind="stable")[:10])
    assert 2 in dict(_pairs(ix.view("a2").keyword_hits("proxy timeout retry LRUCache cache token yaml jwt server parse_file",
                                               ki.idf, ki.avgdl, 1000, ix.view("a2").mask())))
    filt = view.mask(kinds=("insight",), path_prefix="src/p0")
    assert set(np.flatnonzero(filt)) == {j for j in range(300) if j % 3 == 0 and j % 4 == 0 and j not in (1, 2)}
    assert not view.mask(language="python").any()               # notes have no language
    page = hs.search(query, limit=20, extra_docs=view)         # and the searcher merges its top-k
    notes = [it.id for it in page.items if it.row == -1]
    assert notes and not {"n0001", "n0002"} & set(notes)


def test_unmerged_notes_score_with_the_idf_a_merge_gives_them(setup, embedder, monkeypatch):
    """A word every note says ("fix": notes of past fixes) is rare in code, so with the shard's idf
    alone it lifted any note that said it; the searcher scores unmerged notes with the idf of the
    shard's rows and the notes as one corpus: the idf of the index a re-index builds over both, where
    a withdrawn note is a row without words."""
    from stratum import search as SE
    from stratum.noteindex import NoteIndex
    from stratum.noteview import union_idf

    recs, table, hs, vi, ki = setup
    texts = [f"fix {w} in the parser" for w in ("timeout", "proxy", "cache", "yaml", "retry", "jwt")] + \
            ["the parse_file crash on a timeout", "fix the fix of a fix"]
    vecs = embedder.embed(texts)
    ix = NoteIndex(vecs.shape[1])
    for i, (t, v) in enumerate(zip(texts, vecs)):
        ix.add(f"n{i:04d}", t, "rca", "src/parse/parser.py", "a", v)
    ix.set_state("n0007", active=False)                                    # retracted since
    merged = KeywordIndex.build([node_text(r) for r in recs] + texts[:7] + [""])    # what a merge indexes
    for term in ("fix", "timeout", "parser", "crash", "unknownword"):
        note_df = sum(term in t.split() for t in texts[:7])
        assert union_idf(ki.n_docs, ki.df(term), len(texts), note_df) == pytest.approx(merged.idf(term))
    view = ix.view("a")
    query = "fix the timeout crash"
    got = dict(_pairs(view.keyword_hits(query, ki.idf, ki.avgdl, 10, view.mask(), corpus=(ki.n_docs, ki.df))))
    alone = dict(_pairs(view.keyword_hits(query, ki.idf, ki.avgdl, 10, view.mask())))
    monkeypatch.setattr(ki, "idf", merged.idf)          # exhaustive BM25 with the merged index's idf
    after = {j: float(x) for j, x in enumerate(ki.score_texts(query, texts[:7])) if x > 0}
    monkeypatch.undo()
    assert got.keys() == after.keys() and all(got[j] == pytest.approx(after[j], rel=1e-5) for j in after)
    # "fix" (in six notes, no code) weighs less than with the rows' idf alone; the note that names
    # the crash, and not "fix", now leads the note that says "fix" and "timeout"
    assert alone[0] - got[0] > alone[6] - got[6] > 0
    assert max(got, key=got.get) == 6 and max(alone, key=alone.get) == 0
    scores = {}
    for union in (False, True):        # the searcher's fused list: the crash note gains on the others
        monkeypatch.setattr(SE, "UNION_IDF", union)
        scores[union] = {it.id: it.score for it in hs.search(query, limit=30, extra_docs=view).items if it.row == -1}
    assert scores[True]["n0006"] - scores[True]["n0000"] > scores[False]["n0006"] - scores[False]["n0000"]


def test_note_index_switches_to_an_hnsw_graph_for_many_notes(monkeypatch, embedder):
    """Above ANN_MIN notes the vector list comes from a growing HNSW graph: the same top hits as
    exact scoring (recall), hidden and inactive notes never returned, exact scoring again when
    most notes are filtered out."""
    import stratum.noteindex as NI
    import stratum.noteview as NV

    monkeypatch.setattr(NV, "ANN_MIN", 100)
    rng = np.random.default_rng(3)
    vecs = rng.standard_normal((400, 32)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    ix = NI.NoteIndex(32)
    for i in range(300):
        ix.add(f"n{i:04d}", "x", "rca", "", f"a{i % 3}", vecs[i])
    for i in range(300, 400):                    # vectors set later (background embedding)
        ix.add(f"n{i:04d}", "x", "rca", "", f"a{i % 3}")
        ix.set_vector(f"n{i:04d}", vecs[i])
    assert ix.wait_graph(30) and ix.graph_size == 400
    ix.set_state("n0007", active=False)
    ix.set_state("n0008", active=True, hidden=True)
    view = ix.view("a0")
    ok = view.mask()
    recall = []
    for qi in range(20):
        q = vecs[qi * 13 % 400]
        got = [j for j, _ in _pairs(view.vector_hits(q, 10, ok))]
        assert 7 not in got and 8 not in got and len(got) == 10
        exact = np.where(ok, vecs @ q, -np.inf)
        recall.append(len(set(got) & set(np.argsort(-exact)[:10])) / 10)
    assert np.mean(recall) >= 0.95
    few = np.zeros(400, bool)
    few[[5, 50, 150]] = True                       # mostly filtered: scored exactly
    assert sorted(j for j, _ in _pairs(view.vector_hits(vecs[50], 10, few))) == [5, 50, 150]


def test_notes_take_at_most_notes_window_places_of_a_full_list(setup, embedder, monkeypatch):
    """Each list merges at most NOTES_WINDOW unmerged notes when the shard's own list is full (10,000
    notes were ~57 of ~80 fused rows, each costing fusion and rerank), and every matching note when
    it is not (a notes-only filter: its lists as deep as its pages reach, so pages and totals stay
    whole: 80 notes about a file paged to 63-70 of them, session 27)."""
    import stratum.search as search_mod

    _, _, hs, _, _ = setup
    texts = [f"fetch_url proxy timeout seen again, case {i}" for i in range(6)]
    notes = [ExtraDoc(f"n-{i}", t, v, "failure", "src/net/http.py", "")
             for i, (t, v) in enumerate(zip(texts, embedder.embed(texts)))]
    monkeypatch.setattr(search_mod, "NOTES_WINDOW", 2)
    monkeypatch.setattr(hs, "window", 3)              # the shard's lists are full at 3 rows
    def per_list(page):
        return [sum(it.row == -1 and src in it.sources for it in page.items) for src in ("vector", "keyword")]

    full = hs.search("fetch url proxy timeout", limit=50, extra_docs=notes)
    assert per_list(full) == [2, 2]                    # the shard fills each list: 2 notes a list
    only = hs.search("fetch url proxy timeout", kinds=("failure",), limit=50, extra_docs=notes)
    assert per_list(only) == [6, 6]     # no shard row passes: the notes fill lists as deep as the pages reach
    assert search_mod._notes_window(50, np.arange(50)) == 2 and search_mod._notes_window(50, np.arange(7)) == 50
