"""Hybrid search over one shard's warm tier: vector + keyword candidates, fused, filtered, paged.

Fusion is reciprocal rank fusion (Cormack, Clarke and Buettcher, SIGIR 2009): a node scores
``sum over lists of weight / (RRF_K + rank)`` with ``RRF_K = 60`` and ranks starting at 1. RRF uses
ranks only, so cosine similarities and BM25 scores, which live on different scales, need no
calibration. The lists are: ``vector`` (HNSW, cosine), ``keyword`` (BM25) and ``name`` (nodes whose
name, qualified name or path equals an identifier in the query: an agent that types an exact
identifier wants that definition first).

Paging: each list is cut at a fixed depth (``window``), independent of the page asked for, so the
fused list is the same for every page of a query and pages concatenate to it with no duplicates
and no gaps. Ties are broken by node id. ``total_or_lower_bound`` is the fused list's length; it is
exact only when the filters leave no more rows than the lists held (otherwise more nodes exist
that rank lower).

Filters (kind, path prefix, language) are resolved against columns held in RAM: the allowed rows
of the most selective one are a slice of a precomputed sort order, so a selective filter yields
its exact allowed set (scored exhaustively). A kind filter uses the kinds' own vector graphs
when the index has them (mid-sized kinds such as class or file); any other filter becomes a
predicate over an over-fetched candidate list, sized by the filter's selectivity.

Latency: the vector and keyword lists run one after the other on the calling thread (PARALLEL
= 0: on 2 cores they slowed each other); with ``parallel`` helpers the keyword list runs on one
while this thread is in the vector search, so a query costs about the slower of the two.

Rare words: a query token at most RARE_ROWS rows of the shard and its unmerged notes hold (a merge
counts them as one corpus) marks the notes that hold it and that the keyword list ranks at or above
all of its code (``SearchItem.rare``): a note's own word
(``MAX_CHUNK_SPILL``, a rare prose word) names it better than any fused rank says, and the rerank
keeps such an agent note first (``rank.rerank``). Its cost: a document-frequency look-up per query
token, and a postings read for the few rare ones, only when notes top the keyword list.

Unmerged notes (the delta-log overlay) come in as ``extra_docs``: a ``noteview.NoteView`` of the
overlay's incremental index (or plain ``ExtraDoc``s, indexed for the one query). Each list takes
the top ``window`` notes by cosine and by BM25 with the shard index's own statistics and merges
them with the shard's hits by score before fusion, so a query costs one matrix-vector product
over the note vectors and the postings of its own terms, not a pass over every note's text.

Merged agent notes (rca, failure, insight rows of the shard) count toward the same window: when the
shard holds more of them than ``NOTES_WINDOW`` (a count per shard version), each list's code and its
agent notes are searched apart and merged by score, the notes cut to the window (``stratum.notecap``:
why that and not a deeper shard list); a shard with fewer is searched as before, at no extra cost.
"""

from __future__ import annotations

import functools
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from collections import OrderedDict
from dataclasses import dataclass, field
from itertools import repeat
from typing import NamedTuple, Protocol, Sequence

import numpy as np
import pyarrow as pa

from stratum.codetokens import tokenize
from stratum.errors import InvalidArgument
from stratum.keywordindex import KeywordIndex
from stratum.limits import MAX_QUERY_CHARS   # one limit for every caller (the tools check it first)
from stratum.notecap import AgentNotes, all_notes, merge_capped
from stratum.noteindex import NoteIndex
from stratum.noteview import NoteView
from stratum.rowfilter import EXACT_LIMIT, NodeMeta, RowFilter
from stratum.schema import NOTE_KINDS
from stratum.vectorindex import VectorIndex

RRF_K = 60
DEFAULT_WINDOW = 50
NOTES_WINDOW = 20          # the unmerged notes a list merges when the shard's own list is full: at 10,000 notes
                           # they were ~57 of ~80 fused rows, each costing fusion and rerank time; 20 is
                           # neutral on the pooled-notes quality rows (10 costs MRR), docs/bench/notes_reliability.md
UNION_IDF = True           # unmerged notes' BM25 with the idf of the shard's rows and the notes together
                           # (what a merge gives), not the rows' alone (docs/bench/memory_transfer.md, session 16)
RARE_ROWS = 2              # a query token held by at most this many rows (shard and unmerged notes) is rare:
                           # its notes above the keyword list's code are marked (SearchItem.rare); 0: none is.
                           # Fit window (product_search --window past, pooled MRR): agent notes 0.638 as before,
                           # pooled notes 0.665 -> 0.668-0.670 (3: 0.638, 0.667; a looser first rule lost 0.003 at 3)
KEYWORD_ROUNDS = 1         # keyword reading rounds per query in hybrid search (agreement with exact BM25: e4.md)
KEYWORD_HEAD_FACTOR = 16   # head postings read per keyword hit wanted, in that round (e4.md, hybrid variants)
KEYWORD_BY_IMPACT = True   # heads read in proportion to each term's top impact (e4.md, hybrid variants)
QUERY_CACHE = 4096         # query vectors kept (1.5 KB each): page 2+ and repeated queries skip embedding
PARALLEL = 0               # helper threads that run keyword searches beside vector searches (0: inline). On
                           # the 2-core VM inline wins at 1M: the two lists slow each other (shared core
                           # resources) and the hand-off costs ~0.1-0.2 ms (docs/bench/e4.md)


class Embedder(Protocol):
    def embed(self, texts: list[str]) -> np.ndarray: ...


class ExtraDoc(NamedTuple):
    """An unmerged note (or any in-memory node) searched alongside the shard."""
    id: str
    text: str
    vector: np.ndarray | None       # normalised, same model as the shard; None: keyword only
    kind: str
    path: str = ""
    language: str = ""


class SearchItem(NamedTuple):
    row: int                        # node row in the shard; -1 for an extra doc
    score: float                    # fused RRF score
    sources: tuple[str, ...]        # lists it came from: vector, keyword, name, in that order
    id: str
    rare: bool = False              # a note holding a query token at most RARE_ROWS rows hold, above the keyword list's code


class ListHits(NamedTuple):
    """A query's lists before fusion (``HybridSearcher.list_hits``), each best first; rows >= ``n``
    are extra docs (slot row - n)."""
    vector: tuple[np.ndarray, np.ndarray]       # rows, cosines
    keyword: tuple[np.ndarray, np.ndarray]      # rows, BM25 (an exact-name row's plus the name boost: first)
    name: np.ndarray                            # the shard rows named by a query identifier, in keyword order
    n: int


@dataclass
class SearchPage:
    items: list[SearchItem]
    total_or_lower_bound: int
    total_is_exact: bool
    has_more: bool
    offset: int = 0
    limit: int = 10
    timings_ms: dict = field(default_factory=dict)
    notes_cut: bool = False     # the keyword list took only its first NOTES_WINDOW agent notes (merged or not): more match


class HybridSearcher:
    """Vector + keyword + exact-name search over one shard's warm tier, fused by RRF."""

    def __init__(self, node_meta: pa.Table | NodeMeta, vector_index: VectorIndex | None,
                 keyword_index: KeywordIndex | None, embedder: Embedder | None = None, *,
                 window: int = DEFAULT_WINDOW, weights: dict[str, float] | None = None,
                 query_cache: int = QUERY_CACHE, exact_limit: int = EXACT_LIMIT, keyword_rounds: int = KEYWORD_ROUNDS,
                 parallel: int = PARALLEL, keyword_head_factor: float = KEYWORD_HEAD_FACTOR,
                 keyword_by_impact: bool = KEYWORD_BY_IMPACT):
        self.meta = node_meta if isinstance(node_meta, NodeMeta) else NodeMeta(node_meta)
        self.vectors = vector_index
        self.keywords = keyword_index
        # the shard's (document count, df): unmerged notes' keyword scores take the idf of the shard
        # and the notes as one corpus (noteview.union_idf); one tuple, so a view's term memo holds
        self._corpus = (keyword_index.n_docs, keyword_index.df) if keyword_index is not None else None
        self.embedder = embedder
        # which of the meta's kind codes are note kinds (``_notes_on_top``: a rare word places notes)
        self._note_kind = np.isin(np.asarray(self.meta.kind_names, dtype=object), NOTE_KINDS)
        self.agent_notes = AgentNotes(self.meta, int(exact_limit))     # merged ones: capped when many (notecap)
        self.window = int(window)
        self.exact_limit = int(exact_limit)
        self.keyword_rounds = int(keyword_rounds)
        self.keyword_head_factor = float(keyword_head_factor)
        self.keyword_by_impact = bool(keyword_by_impact)
        self.weights = {"vector": 1.0, "keyword": 1.0, "name": 1.0, **(weights or {})}
        for name, idx in (("vector", vector_index), ("keyword", keyword_index)):
            if idx is not None and len(idx) and getattr(idx, "n_rows", getattr(idx, "n_docs", 0)) != self.meta.n:
                raise InvalidArgument(f"{name} index covers {getattr(idx, 'n_rows', getattr(idx, 'n_docs', 0))} "
                                      f"rows, the node table has {self.meta.n}")
        self._parallel = max(0, int(parallel))
        self._spare = threading.BoundedSemaphore(self._parallel) if self._parallel else threading.Semaphore(0)
        self._executor = ThreadPoolExecutor(self._parallel, thread_name_prefix="stratum-keyword") \
            if self._parallel else None
        self._qcache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._qcache_size = query_cache
        self._qlock = threading.Lock()
        self._rrf_cache: dict[tuple[str, int, float], np.ndarray] = {}

    def embed_query(self, query: str) -> np.ndarray | None:
        """The query's vector (cached: every page of one query embeds it once)."""
        if self.embedder is None or self.vectors is None:
            return None
        with self._qlock:
            v = self._qcache.get(query)
            if v is not None:
                self._qcache.move_to_end(query)
                return v
        v = np.asarray(self.embedder.embed([query]), dtype=np.float32)[0]
        with self._qlock:
            self._qcache[query] = v
            if len(self._qcache) > self._qcache_size:
                self._qcache.popitem(last=False)
        return v

    def search(self, query: str, kinds: Sequence[str] = (), path_prefix: str = "", language: str = "",
               limit: int = 10, offset: int = 0, *, extra_docs: "Sequence[ExtraDoc] | NoteView" = (),
               query_vector: np.ndarray | None = None, sources: Sequence[str] = ("vector", "keyword", "name"),
               ) -> SearchPage:
        """One page of the fused ranking for ``query`` under the filters.

        ``query_vector`` skips embedding (benchmarks, or a caller that already has it);
        ``sources`` restricts the lists fused (e.g. ("keyword", "name") for a lexical search).
        """
        if not query or not query.strip():
            raise InvalidArgument("search needs a non-empty query")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidArgument(f"query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}")
        if limit <= 0 or offset < 0:
            raise InvalidArgument(f"limit must be > 0 and offset >= 0 (got limit={limit}, offset={offset})")
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        n, W = self.meta.n, self.window
        filt = RowFilter(self.meta, kinds, path_prefix, language, self.exact_limit)
        notes_only = _notes_only(filt.kinds)
        if isinstance(extra_docs, NoteView):
            extra: NoteView | None = extra_docs
        else:
            extra = NoteIndex.of_docs(list(extra_docs)).view() if len(extra_docs) else None
        ok = extra.mask(filt.kinds, path_prefix, language) if extra is not None else None
        if notes_only:      # the notes are the answer: each list as deep as the pages reach (80 notes about
            # a file paged to 63-70 of them: a probe), all of them when few (the same list for every page)
            W = max(W, offset + limit, all_notes(filt, ok))
        # a list crowded by merged agent notes is searched again, split (notecap); its filters made then
        splits = None if notes_only or filt.empty or self.agent_notes.count <= NOTES_WINDOW else self.agent_notes
        lists: dict[str, np.ndarray] = {}     # source -> node rows best first (extra doc j is row n + j)
        cut: list[bool] = []                  # the notes' keyword list was cut at its window (a real match)
        rare: list[np.ndarray] = []           # the rows (notes: n + slot) that hold a rare query token

        want_vec = "vector" in sources and self.vectors is not None and \
            (self.embedder is not None or query_vector is not None)
        want_kw = self.keywords is not None and ("keyword" in sources or "name" in sources)
        if want_vec:
            t = time.perf_counter()
            q = query_vector if query_vector is not None else self.embed_query(query)
            timings["embed"] = (time.perf_counter() - t) * 1e3

        def vector_list() -> tuple[np.ndarray, np.ndarray]:
            t = time.perf_counter()
            if filt.empty:
                vrows, vscores = np.empty(0, np.int64), np.empty(0, np.float32)
            else:
                hits = self._vector_hits(q, W, filt)
                vrows, vscores = hits.rows, hits.scores
            timings["vector"] = (time.perf_counter() - t) * 1e3
            return vrows, vscores

        def with_notes(shard_hits) -> np.ndarray:
            # The notes' part runs on the calling thread (with notes in view nothing runs on a
            # helper): beside another thread its numpy calls queued for the GIL (~5 ms a switch).
            t = time.perf_counter()
            ex = None
            m = _notes_window(W, shard_hits[0], notes_only)
            if extra is not None:
                ex = extra.vector_hits(q, m, ok)     # the k nearest however weak: no sign of a cut
            rows = _merge_ranked(*shard_hits, ex, n, W)
            if splits is not None and splits.crowded(rows, m) and (split := splits.split(filt, NOTES_WINDOW)):
                # more notes than the window: the code and the merged agent notes apart, one window
                code = self._vector_hits(q, W, split.code)
                m2 = _notes_window(W, code.rows, notes_only)
                if m2 != m and extra is not None:
                    ex = extra.vector_hits(q, m2, ok)
                mh = self._vector_hits(q, m2 + 1, split.agents)
                rows = merge_capped((code.rows, code.scores), (mh.rows, mh.scores), ex, n, W, m2)[0]
            timings["vector_notes"] = (time.perf_counter() - t) * 1e3
            return rows

        def keyword_lists() -> dict[str, np.ndarray]:
            t = time.perf_counter()
            out: dict[str, np.ndarray] = {}
            krows, kscores = np.empty(0, np.int64), np.empty(0, np.float32)
            tokens = tokenize(query)            # once for the shard's list and the notes'
            kh = None
            if not filt.empty:
                kh = self._keyword_hits(query, W, tokens, filt)
                krows, kscores = kh.rows, kh.scores
                if "name" in sources and kh.exact_name.any():
                    out["name"] = kh.rows[kh.exact_name]
            m = _notes_window(W, krows, notes_only)

            def notes_of(window: int):
                return extra.keyword_hits(query, self.keywords.idf, self.keywords.avgdl, window, ok, tokens=tokens,
                                          corpus=self._corpus if UNION_IDF else None) if extra is not None else None

            ex = notes_of(m) if "keyword" in sources else None
            kr, ks = _merge_scored(krows, kscores, ex, n, W)
            was_cut = ex is not None and m < W and len(ex[0]) >= m
            if splits is not None and kh is not None and splits.crowded(kr, m) \
                    and (split := splits.split(filt, NOTES_WINDOW)):
                # more notes than the window: the code and the merged agent notes apart (a note titled
                # as asked stays a name), merged and unmerged notes cut to one window
                kh = self._keyword_hits(query, W, tokens, split.code)
                krows, kscores = kh.rows, kh.scores
                m2 = _notes_window(W, krows, notes_only)
                if m2 != m and ex is not None:
                    ex = notes_of(m2)
                ah = self._keyword_hits(query, m2 + 1, tokens, split.agents)
                if "name" in sources and (kh.exact_name.any() or ah.exact_name.any()):
                    named = np.concatenate([kh.rows[kh.exact_name], ah.rows[ah.exact_name]])
                    boosted = np.concatenate([kh.scores[kh.exact_name], ah.scores[ah.exact_name]])
                    out["name"] = named[np.lexsort((named, -boosted))]
                else:
                    out.pop("name", None)
                kr, ks, capped = merge_capped((krows, kscores), (ah.rows, ah.scores), ex, n, W, m2)
                was_cut = m2 < W and capped
            if "keyword" in sources:
                cut.append(was_cut)
                out["keyword"] = kr
                if RARE_ROWS > 0 and not notes_only:    # among notes alone a rare word ranks nothing over code
                    top = self._notes_on_top(kr, ks)   # most queries: none, and nothing more is read
                    if len(top):
                        rare.append(top[np.isin(top, self._rare_holders(tokens, extra, n))])
            timings["keyword"] = (time.perf_counter() - t) * 1e3
            return out

        # With ``parallel`` helpers (not the default, PARALLEL) the keyword list runs on one while
        # this thread is in the vector search (usearch releases the GIL); with unmerged notes in
        # view, or every helper busy, both run inline (the notes' Python work beside another thread
        # queued for the GIL: 7.8 vs 2.7 ms at 1,000 notes, docs/bench/notes_reliability.md).
        pending = None
        if want_vec and want_kw and extra is None and self._spare.acquire(blocking=False):
            try:
                pending = self._executor.submit(keyword_lists)
            finally:
                if pending is None:
                    self._spare.release()
                else:
                    pending.add_done_callback(lambda _f: self._spare.release())
        if want_vec:
            lists["vector"] = with_notes(vector_list())
        if want_kw:
            lists.update(pending.result() if pending is not None else keyword_lists())

        t = time.perf_counter()
        rows, scores, bits = self._fuse(lists, extra)
        timings["fuse"] = (time.perf_counter() - t) * 1e3
        # Each list holds every match when it is shorter than the window; then the fused list is
        # complete. Otherwise lower-ranked matches exist beyond it.
        truncated = any(len(v) >= W for v in lists.values())
        page = slice(offset, offset + limit)
        prow = rows[page]
        real = prow < n
        if real.all():
            ids = self.meta.ids_of(prow)
            item_rows = prow.tolist()
        else:
            # the shard's ids in one C-level pass (a note's place reads row 0), then the ~40 notes'
            # set in place: a Python step for each of ~150 rows cost ~10 us a search
            at = np.flatnonzero(~real)
            ids = self.meta.ids_of(np.where(real, prow, 0))
            note_ids = extra.ix.ids
            for k, j in zip(at.tolist(), (prow[at] - n).tolist()):
                ids[k] = note_ids[j]
            item_rows = np.where(real, prow, -1).tolist()
        # the items as tuples made in C (SearchItem's own __new__ is a Python call per item)
        sources = map(SOURCES.__getitem__, bits[page].tolist())
        held = rare[0] if rare else None
        marks = np.isin(prow, held).tolist() if held is not None and len(held) else repeat(False)
        items = list(map(_new_item, zip(item_rows, scores[page].tolist(), sources, ids, marks)))
        timings["total"] = (time.perf_counter() - t0) * 1e3
        return SearchPage(items=items, total_or_lower_bound=len(rows), total_is_exact=not truncated,
                          has_more=offset + limit < len(rows), offset=offset, limit=limit, timings_ms=timings,
                          notes_cut=any(cut))

    def list_hits(self, query: str, kinds: Sequence[str] = (), path_prefix: str = "", language: str = "",
                  depth: int = 0, *, extra_docs: NoteView | None = None) -> "ListHits":
        """The lists ``search`` fuses, unfused: each best first with its own scores, cut at ``depth``
        (at least the window), the agent notes merged and capped as ``search`` merges them. For a
        caller that places documents of its own among this shard's by raw score and fuses them as
        if the shard held them (``stratum.branchscore``: a branch's changed code); ``search`` itself
        does not call it (its lists are built inline, on the hot path)."""
        n, W = self.meta.n, self.window
        depth = max(depth, W)
        filt = RowFilter(self.meta, kinds, path_prefix, language, self.exact_limit)
        ok = extra_docs.mask(filt.kinds, path_prefix, language) if extra_docs is not None else None
        only = _notes_only(filt.kinds)
        split = None if only or filt.empty else self.agent_notes.split(filt, NOTES_WINDOW)
        vec = kw = (np.empty(0, np.int64), np.empty(0, np.float32))
        names = np.empty(0, np.int64)
        q = self.embed_query(query)
        if q is not None and not filt.empty:
            hits = self._vector_hits(q, depth, split.code if split is not None else filt)
            m = _notes_window(W, hits.rows, only)
            ex = extra_docs.vector_hits(q, m, ok) if extra_docs is not None else None
            if split is not None:
                mh = self._vector_hits(q, m + 1, split.agents)
                vec = merge_capped((hits.rows, hits.scores), (mh.rows, mh.scores), ex, n, depth, m)[:2]
            else:
                vec = _merge_scored(hits.rows, hits.scores, ex, n, depth)
        if self.keywords is not None:
            tokens = tokenize(query)
            krows, kscores = kw
            if not filt.empty:
                kh = self._keyword_hits(query, depth, tokens, split.code if split is not None else filt)
                krows, kscores, names = kh.rows, kh.scores, kh.rows[kh.exact_name]
            m = _notes_window(W, krows, only)
            ex = extra_docs.keyword_hits(query, self.keywords.idf, self.keywords.avgdl, m, ok,
                                         tokens=tokens, corpus=self._corpus if UNION_IDF else None) \
                if extra_docs is not None else None
            if split is not None:
                ah = self._keyword_hits(query, m + 1, tokens, split.agents)
                kw = merge_capped((krows, kscores), (ah.rows, ah.scores), ex, n, depth, m)[:2]
                if ah.exact_name.any():     # a note titled as asked votes as a name, as in search
                    named = np.concatenate([names, ah.rows[ah.exact_name]])
                    boosted = np.concatenate([kh.scores[kh.exact_name], ah.scores[ah.exact_name]])
                    names = named[np.lexsort((named, -boosted))]
            else:
                kw = _merge_scored(krows, kscores, ex, n, depth)
        return ListHits(vec, kw, names, n)

    def _keyword_hits(self, query: str, k: int, tokens: Sequence[str], filt: RowFilter):
        """The keyword list under ``filt`` (the query's filters, or one side of a notecap split)."""
        return self.keywords.search(query, k, tokens=tokens, predicate=filt.predicate if filt.active else None,
                                    selectivity=filt.selectivity, max_rounds=self.keyword_rounds,
                                    head_factor=self.keyword_head_factor, by_impact=self.keyword_by_impact)

    def _rare_holders(self, tokens: Sequence[str], extra: NoteView | None, n: int) -> np.ndarray:
        """The rows (an unmerged note: n + its slot) that hold a query token at most RARE_ROWS rows
        of the shard and the viewer's unmerged notes hold, as a merge counts them (a withdrawn or
        another author's quarantined note not). One document-frequency look-up per token; only a
        rare one's postings are read: the shard's (at most RARE_ROWS rows) and the notes' (at most
        RARE_ROWS + 1 slots, to tell a rare token from a common one)."""
        kw = self.keywords
        found: list[np.ndarray] = []
        for t in dict.fromkeys(tokens):
            df = kw.df(t)
            if df > RARE_ROWS:
                continue
            slots = np.empty(0, np.int64)
            if extra is not None:
                slots = extra.keyword_hits(t, kw.idf, kw.avgdl, RARE_ROWS + 1 - df, extra.eligible, tokens=(t,),
                                           corpus=self._corpus if UNION_IDF else None)[0]
            if not 0 < df + len(slots) <= RARE_ROWS:
                continue
            if df:
                found.append(kw.search(t, RARE_ROWS, tokens=(t,)).rows)
            if len(slots):
                found.append(np.asarray(slots, np.int64) + n)
        if not found:
            return np.empty(0, np.int64)
        return np.concatenate(found) if len(found) > 1 else found[0]

    def _notes_on_top(self, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """The notes the keyword list (``rows``, ``scores``: best first) ranks at or above all of its
        code: only these may hold a rare word that points at them (code the query's words match
        better, by an exact name or its other words, or by a word rare only in a small repository,
        "crash" held by one function and one note, leaves a note no pointer of its own)."""
        n = self.meta.n
        shard = rows < n
        code = shard.copy()
        code[shard] = ~self._note_kind[self.meta.kind_code[rows[shard]]]
        if not code.any():
            return rows
        first = int(np.argmax(code))
        return rows[~code & (scores >= scores[first])]

    def _vector_hits(self, q: np.ndarray, k: int, filt: "RowFilter"):
        """The vector list under the filters: exact over a small allowed set; the kinds' own graphs
        when every asked kind has one (or is small enough to score exactly); else over-fetch
        from the shared graph."""
        vi = self.vectors
        if filt.small:
            return vi.search(q, k, allowed_rows=filt.allowed_rows)
        if not filt.active:
            return vi.search(q, k)
        if filt.kinds and vi.groups:
            graphs, small, n_kind = [], [], 0
            for kind in filt.kinds:
                rows = filt.kind_rows(kind)
                n_kind += len(rows)
                if kind in vi.groups:
                    graphs.append(kind)
                elif len(rows) <= self.exact_limit:
                    small.append(rows)
                else:
                    graphs = []
                    break
            if graphs:
                rest = filt.path_prefix or filt.language
                return vi.search_groups(q, k, graphs, predicate=filt.predicate if rest else None,
                                        selectivity=min(1.0, filt.selectivity * self.meta.n / max(n_kind, 1)),
                                        extra_rows=np.concatenate(small) if small else None)
        return vi.search(q, k, predicate=filt.predicate, selectivity=filt.selectivity,
                         fallback_rows=filt.allowed_rows)

    def _fuse(self, lists: dict[str, np.ndarray], extra: NoteView | None):
        """RRF over the lists: (rows, scores, source bits) best first, ties by node id.

        Few numpy calls (each costs ~1-2 us; a fused list is ~150 rows): the contributions are
        slices of per-list arrays made once, and the scores are summed in list order (vector,
        keyword, name), so they are the same floats whatever the path."""
        parts, contrib, spans = [], [], []
        at = 0
        for bit, name in ((1, "vector"), (2, "keyword"), (4, "name")):
            r = lists.get(name)
            if r is None or not len(r):
                continue
            parts.append(r)
            contrib.append(self._rrf(name, len(r)))
            spans.append((bit, at, at + len(r)))
            at += len(r)
        if not parts:
            return np.empty(0, np.int64), np.empty(0, np.float64), np.empty(0, np.int8)
        allrows = np.concatenate(parts) if len(parts) > 1 else parts[0]
        uniq, inv = np.unique(allrows, return_inverse=True)
        score = np.bincount(inv, weights=np.concatenate(contrib) if len(contrib) > 1 else contrib[0],
                            minlength=len(uniq))
        srcbits = np.zeros(len(uniq), np.int8)
        for b, lo, hi in spans:
            srcbits[inv[lo:hi]] |= b
        if len(uniq) and uniq[-1] < self.meta.n:
            tie = self.meta.id_rank[uniq]          # no extra doc: the id order itself
        else:
            assert extra is not None                # rows past the shard's are extra docs
            tie = self._tie_keys(uniq, extra, score)
        order = np.lexsort((tie, -score))
        return uniq[order], score[order], srcbits[order]

    def _rrf(self, name: str, m: int) -> np.ndarray:
        """``weight / (RRF_K + rank)`` for ranks 1..m of one list (cached per length)."""
        w = self.weights.get(name, 1.0)
        key = (name, m, w)
        c = self._rrf_cache.get(key)
        if c is None:
            c = w / (RRF_K + 1.0 + np.arange(m))
            c.setflags(write=False)
            if len(self._rrf_cache) < 4096:
                self._rrf_cache[key] = c
        return c

    def _tie_keys(self, rows: np.ndarray, extra: NoteView, score: np.ndarray) -> np.ndarray:
        """Sort keys that order rows (and extra docs) by node id: a row's is 2 * the rank of its id
        among the shard's ids; an extra doc's lies between those of the shard ids around its own,
        by id among the extra docs there (``NoteView.tie_keys``, kept per note and shard version:
        sorting a search's ~35 notes by id cost ~40 us of it at 10,000 notes). A note not placed
        yet is placed here, a bisect each; in a large shard a binary search over pyarrow scalars
        (~10 us), so there only a note whose score ties with another item's is placed (only its
        key matters). ``rows`` ascend (``np.unique``'s), so the extra docs (rows >= n) come last."""
        n = self.meta.n
        n_real = int(np.searchsorted(rows, n))        # rows ascend: the extra docs come last
        keys = np.empty(len(rows), np.float64)
        keys[:n_real] = 2.0 * self.meta.id_rank[rows[:n_real]]
        js = rows[n_real:] - n
        note_keys = extra.tie_keys(js, self.meta)
        missing = np.isnan(note_keys)
        if missing.any():
            if not self.meta.bisects:       # only a tied note's key matters
                missing &= _tied(score)[n_real:]
            extra.id_positions(js[missing].tolist(), self.meta)     # places them (cached)
            note_keys = extra.tie_keys(js, self.meta)
            note_keys[np.isnan(note_keys)] = 0.0    # not tied: its score is its own
        keys[n_real:] = note_keys
        return keys


def _tied(score: np.ndarray) -> np.ndarray:
    """Which scores equal another one's."""
    by_score = np.argsort(score, kind="stable")
    same = score[by_score[1:]] == score[by_score[:-1]]
    tied = np.zeros(len(score), bool)
    tied[by_score[1:][same]] = True
    tied[by_score[:-1][same]] = True
    return tied


_new_item = functools.partial(tuple.__new__, SearchItem)
# tuple.__new__ checks no field count: the items above are built with exactly these five
assert SearchItem._fields == ("row", "score", "sources", "id", "rare"), "update search's item construction"
# an item's lists by their bits (vector 1, keyword 2, name 4), named as items name them
SOURCES = {b: tuple(name for bit, name in ((1, "vector"), (2, "keyword"), (4, "name")) if b & bit)
           for b in range(8)}


def _notes_window(W: int, shard_rows, notes_only: bool = False) -> int:
    """The notes a list merges: NOTES_WINDOW when the shard's own list is full (its cut at W then
    holds W rows whatever the notes), else W (the notes fill it: the totals and pages stay right).
    A search for notes alone (every kind asked a note kind) takes W, as code does: there the notes
    are the answer, and "filter by kind" is how a mixed search's hint says to reach more of them."""
    return min(W, NOTES_WINDOW) if len(shard_rows) >= W and not notes_only else W


_NOTE_KIND_SET = frozenset(NOTE_KINDS)


def _notes_only(kinds: Sequence[str]) -> bool:
    return bool(kinds) and all(k in _NOTE_KIND_SET for k in kinds)


def _merge_scored(rows: np.ndarray, scores: np.ndarray, extra: tuple[np.ndarray, np.ndarray] | None, n: int,
                  depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Shard hits and extra docs' (slots, scores) (as rows n + slot) merged by score, ties: shard
    rows first; cut at depth: (rows, scores) best first (a shard list alone stays in its order)."""
    rows = np.asarray(rows, dtype=np.int64)
    if extra is None or not len(extra[0]):
        return rows[:depth], np.asarray(scores)[:depth]
    allrows = np.concatenate([rows, extra[0] + n])
    allscores = np.concatenate([scores, extra[1]])     # float32 or float64: the same order either way
    order = np.lexsort((allrows, -allscores))[:depth]
    return allrows[order], allscores[order]


def _merge_ranked(rows: np.ndarray, scores: np.ndarray, extra: tuple[np.ndarray, np.ndarray] | None, n: int,
                  depth: int) -> np.ndarray:
    """``_merge_scored``'s rows: what search fuses."""
    return _merge_scored(rows, scores, extra, n, depth)[0]


__all__ = ["HybridSearcher", "SearchPage", "SearchItem", "ListHits", "ExtraDoc", "RRF_K",
           "DEFAULT_WINDOW", "KEYWORD_ROUNDS", "PARALLEL", "RARE_ROWS"]
