"""Warm keyword tier: an in-RAM BM25 index whose tokenizer understands code identifiers.

Why not only Lance FTS: it answers in ~2.8 ms at 1M rows here, most of the hybrid budget, and its
tokenizers do not split camelCase. This index answers in well under a millisecond from a few numpy
arrays that are saved beside the shard and memory-mapped at load.

Tokens: ``stratum.codetokens`` (code-aware: whole compounds, their identifiers and identifier words).

Scoring: Okapi BM25 (k1=1.2, b=0.75, Lucene's idf), with each posting's term impact precomputed at
build time, so a query only sums impacts. Top-k uses the threshold algorithm: candidates come from
the highest-impact postings of each query term ("heads", stored in impact order); their exact
scores come from binary search in the row-sorted postings; the answer is provably the exact top-k
once the k-th score reaches the sum of the best unseen impacts, otherwise the heads are read deeper
and, past their end, the term's whole posting list is scanned.

Exact identifiers: a node whose name, qualified name or (for files and dirs) path equals an
identifier-like query word (or the whole query) ranks above every node that only mentions it.

Files written by ``save(dir)`` (all ``.npy``, memory-mapped by ``load``)::

    kw.vocab.npy     uint64 hashes of the terms, sorted (blake2b, 8 bytes)
    kw.offsets.npy   int64 CSR offsets per term into the postings
    kw.rows.npy      int32 node rows, sorted within each term
    kw.impact.npy    float32 BM25 impact of the term in that row
    kw.hoff.npy      int64 CSR offsets per term into the heads
    kw.head.npy      int32 positions (within the term's postings) in descending impact order, for
                     terms with more than HEAD_MIN postings, at most HEAD_LEN per term
    kw.nvocab.npy / kw.noff.npy / kw.nrows.npy    the exact-name map, same layout
    kw.tf.npy / kw.dl.npy   uint16 term frequency per posting, float32 length per row: what
                     ``updated`` needs to renumber and rescore without re-tokenizing (not loaded)
    kw.json          counts, parameters, format version
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from stratum import npyio
from stratum.codetokens import COMPOUND, declared_name, expand, looks_like_identifier, tokenize
from stratum import schema as S
from stratum.errors import InvalidArgument, StoreDamaged, StoreError, SystemError_
from stratum.keywordround import compiled_round, numpy_round

FORMAT = 2
K1 = 1.2
B = 0.75
HEAD_LEN = 4096          # postings kept in impact order per term (past them: the whole list is read)
HEAD_MIN = 256           # terms with at most this many postings are always read whole
FULL_READ = 262144       # essential lists are read whole when together they are at most this long
HEAD_FACTOR = 8          # first read of a head: postings per wanted hit, over the filter selectivity (e4.md)
COMPILED_MIN_DOCS = 100_000   # from this size the compiled completion pays its import (stratum.kernels)
MAX_TF = 65535           # term frequency cap (uint16 on disk; no node text repeats a term this often)

RowPredicate = Callable[[np.ndarray], np.ndarray]

def _hash(term: str) -> int:
    """A term's 64-bit key (the index's, warm.py, hashes its terms the same way). A query term with
    a lone surrogate no escape stands for (JSON's "\\ud800" over MCP) matches no indexed term:
    hashed, not an error."""
    try:
        data = term.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        data = term.encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


# ---- the index ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KeywordHits:
    rows: np.ndarray          # int64, best first
    scores: np.ndarray        # float32 BM25 (+ the name boost for exact-name matches)
    exact_name: np.ndarray    # bool: the row's name/qualname/path equals a query identifier
    matched: int              # rows containing at least one query term: exact if matched_exact
    matched_exact: bool
    exact: bool = True        # the top-k is proven to be BM25's (False: stopped by max_rounds)


def bm25_idf(n_docs: int, df: int) -> float:
    """BM25 idf of a term in ``df`` of ``n_docs`` documents (the index's, and ``noteview.union_idf``'s
    for the index a merge would build)."""
    return math.log1p((n_docs - df + 0.5) / (df + 0.5))


class KeywordIndex:
    """BM25 postings in CSR numpy arrays. Build with ``build``; open a saved one with ``load``."""

    _ARRAYS = ("vocab", "offsets", "rows", "impact", "hoff", "head", "nvocab", "noff", "nrows")
    vocab: np.ndarray
    offsets: np.ndarray
    rows: np.ndarray
    impact: np.ndarray
    hoff: np.ndarray
    head: np.ndarray
    nvocab: np.ndarray
    noff: np.ndarray
    nrows: np.ndarray

    def __init__(self, arrays: Mapping[str, np.ndarray], meta: Mapping):
        for name in self._ARRAYS:
            setattr(self, name, arrays[name])
        self.n_docs = int(meta["n_docs"])
        self.avgdl = float(meta["avgdl"])
        self.meta = dict(meta)
        self._slots: dict[str, int] = {}
        self._infos: dict[int, tuple[int, int, int, int, float]] = {}    # slot -> _term_info
        self._update_state: tuple[np.ndarray, np.ndarray] | None = None   # (tf, dl) of a fresh build
        self.compiled: bool | None = None      # the compiled completion: None = by size (COMPILED_MIN_DOCS)

    # ---- building ----------------------------------------------------------------------------
    @classmethod
    def build(cls, texts: Iterable[str], names: Iterable[Sequence[str]] | None = None,
              *, chunk: int = 200_000) -> "KeywordIndex":
        """Index ``texts[i]`` as row ``i``; ``names[i]`` are row i's exact keys (see node_names)."""
        hashes, rows, tf, dl = _postings(texts, chunk=chunk)
        if len(dl) == 0:
            raise InvalidArgument("cannot build a keyword index over zero documents")
        return cls._assemble(hashes, rows, tf, dl, _name_map(names))

    @classmethod
    def _assemble(cls, hashes: np.ndarray, rows: np.ndarray, tf: np.ndarray, dl: np.ndarray,
                  name_map: tuple[np.ndarray, np.ndarray, np.ndarray]) -> "KeywordIndex":
        """The index from its postings: (term hash, row, term frequency) triples, any order, and
        each row's length in tokens."""
        order = np.lexsort((rows, hashes))
        hashes, rows, tf = hashes[order], rows[order], tf[order]
        first = np.ones(len(hashes), bool)
        first[1:] = hashes[1:] != hashes[:-1]
        offsets = np.append(np.flatnonzero(first), len(hashes)).astype(np.int64)
        return cls._finish(hashes[first], offsets, rows, tf, dl, name_map)

    @classmethod
    def _finish(cls, vocab: np.ndarray, offsets: np.ndarray, rows: np.ndarray, tf: np.ndarray, dl: np.ndarray,
                name_map: tuple[np.ndarray, np.ndarray, np.ndarray]) -> "KeywordIndex":
        """The index from its CSR postings (rows sorted within each term) and each row's length:
        statistics, impacts and heads. A full build and ``updated`` both end here, so an updated
        index is exactly (bit for bit) the one a full build of the same documents gives."""
        n = len(dl)
        rows = np.asarray(rows, dtype=np.int32)
        dlf = np.asarray(dl, dtype=np.float32)
        avgdl = float(dlf.mean()) if n else 0.0
        df = np.diff(offsets)
        idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
        impact = _impacts(idf, df, rows, tf, dlf, avgdl)
        hoff, head = _heads(offsets, impact)
        nvocab, noff, nrows = name_map
        arrays = {"vocab": vocab, "offsets": offsets, "rows": rows, "impact": impact,
                  "hoff": hoff, "head": head, "nvocab": nvocab, "noff": noff, "nrows": nrows}
        meta = {"format": FORMAT, "n_docs": n, "avgdl": avgdl, "n_terms": int(len(vocab)),
                "n_postings": int(len(rows)), "k1": K1, "b": B, "head_len": HEAD_LEN}
        index = cls(arrays, meta)
        index._update_state = (tf, dlf)          # what ``updated`` needs (saved beside the index)
        return index

    def updated(self, directory: str | os.PathLike, old_row: np.ndarray, texts: Mapping[int, str],
                names: Mapping[int, Sequence[str]] | Sequence[Sequence[str]] | None) -> "KeywordIndex":
        """The index of a new version from this one (saved in ``directory``) without tokenizing
        what did not change. ``old_row[i]``: the row in this index holding new row i's unchanged
        document (text and exact keys), or -1; ``texts``: the documents of the rows with -1 (new
        or changed); ``names``: the exact keys of those rows (a mapping: kept rows keep theirs),
        or of every new row (a sequence: the name map is rebuilt whole), or None (no name map).
        Postings of kept rows are renumbered, the rest dropped, new postings merged in, and every
        statistic (n_docs, avgdl, df, idf, impacts, heads) recomputed from term frequencies, as
        a full build does."""
        from stratum.keywordupdate import updated

        return updated(self, directory, old_row, texts, names)

    def save(self, directory: str | os.PathLike) -> list[str]:
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        files = []
        for name in self._ARRAYS:
            npyio.save(d / f"kw.{name}.npy", np.ascontiguousarray(getattr(self, name)))
            files.append(f"kw.{name}.npy")
        state = getattr(self, "_update_state", None)
        if state is not None:                   # term frequencies and lengths, for ``updated``
            npyio.save(d / "kw.tf.npy", state[0])
            npyio.save(d / "kw.dl.npy", state[1])
            files += ["kw.tf.npy", "kw.dl.npy"]
        (d / "kw.json").write_text(json.dumps(self.meta, indent=1, sort_keys=True))
        return files + ["kw.json"]

    @classmethod
    def load(cls, directory: str | os.PathLike, *, mmap: bool = True) -> "KeywordIndex":
        d = Path(directory)
        try:
            meta = json.loads((d / "kw.json").read_text())
        except FileNotFoundError:
            raise StoreError(f"no keyword index in {d}: it is built by `stratum index`") from None
        if meta.get("format") != FORMAT:
            raise StoreError(f"keyword index in {d} has format {meta.get('format')}, this build reads "
                             f"{FORMAT}: re-index")
        arrays = {name: npyio.load(d / f"kw.{name}.npy", mmap_mode="r" if mmap else None) for name in cls._ARRAYS}
        bad = _structure_fault(arrays, meta)
        if bad:
            raise StoreDamaged(f"keyword index files in {d} are damaged ({bad}): rebuild them with `stratum repair`")
        return cls(arrays, meta)

    # ---- searching ---------------------------------------------------------------------------
    def ready_for_queries(self) -> None:
        """Compile (or load) what this index's searches will run before the first one comes (a
        serving shard calls it at load; an update or a repair that only reads the index does not)."""
        if self._uses_kernel:
            from stratum import kernels

            kernels.warm()

    @property
    def _uses_kernel(self) -> bool:
        return self.n_docs >= COMPILED_MIN_DOCS if self.compiled is None else self.compiled

    def _term_slot(self, term: str) -> int:
        slot = self._slots.get(term)
        if slot is None:
            h = np.uint64(_hash(term))
            i = int(np.searchsorted(self.vocab, h))
            slot = i if i < len(self.vocab) and self.vocab[i] == h else -1
            if len(self._slots) >= 65536:          # bounded: queries repeat their words
                self._slots.clear()
            self._slots[term] = slot
        return slot

    def _term_info(self, slot: int) -> tuple[int, int, int, int, float]:
        """A term's postings and head ranges and its top impact (the head's first, else the
        list's maximum), read once per term (bounded like ``_slots``: queries repeat their words)."""
        info = self._infos.get(slot)
        if info is None:
            s, e = int(self.offsets[slot]), int(self.offsets[slot + 1])
            hs, he = int(self.hoff[slot]), int(self.hoff[slot + 1])
            info = (s, e, hs, he, float(self.impact[s + self.head[hs]] if he > hs else self.impact[s:e].max()))
            if len(self._infos) >= 65536:
                self._infos.clear()
            self._infos[slot] = info
        return info

    def name_rows(self, name: str) -> np.ndarray:
        """Rows whose name, qualified name (or, for a file or dir, path) is ``name``, any case."""
        return self._name_rows(name.lower())

    def _name_rows(self, name: str) -> np.ndarray:
        h = np.uint64(_hash(name))
        i = int(np.searchsorted(self.nvocab, h))
        if i < len(self.nvocab) and self.nvocab[i] == h:
            return np.asarray(self.nrows[self.noff[i]:self.noff[i + 1]], dtype=np.int64)
        return np.empty(0, np.int64)

    def search(self, query: str, k: int, *, predicate: RowPredicate | None = None,
               selectivity: float = 1.0, max_rounds: int = 0, full_read: int = FULL_READ,
               head_factor: float = HEAD_FACTOR, by_impact: bool = False,
               tokens: Sequence[str] | None = None) -> KeywordHits:
        """Top-``k`` rows for ``query`` by BM25 (exact), exact-name matches first.

        ``predicate`` keeps only allowed rows (filters); ``selectivity`` (the allowed fraction,
        an estimate) sizes the first read of the heads (``head_factor`` postings per wanted hit
        over the selectivity; at least 64; ``by_impact``: each term's share of that depth is its top
        impact over the query's largest, so common words add fewer candidates). ``max_rounds`` > 0 stops after that many
        reading rounds even if exactness is not proven yet (``exact`` is then False): every
        returned score is still the row's exact BM25, but a row never read may be missing.
        ``tokens``: ``tokenize(query)`` when the caller has it already.

        Work is bounded MaxScore-style. Round one reads short posting lists whole and long ones
        from their impact-ordered head; candidates whose known score plus what they could still
        gain stays below the k-th known score are dropped, the others are scored exactly. A row not seen can then
        score at most the sum, over partly read terms, of their next unread impact; once that is
        below the k-th best score the answer is exact. Otherwise the "essential" terms (those the
        bound cannot do without: the high-idf ones, in practice) are read whole when together
        they hold at most ``full_read`` postings (then the next round is exact), else their heads
        are read four times deeper.
        """
        empty = KeywordHits(np.empty(0, np.int64), np.empty(0, np.float32), np.empty(0, bool), 0, True)
        if k <= 0:
            return empty
        weights: dict[int, float] = {}
        for t in tokenize(query) if tokens is None else tokens:
            slot = self._term_slot(t)
            if slot >= 0:
                weights[slot] = weights.get(slot, 0.0) + 1.0
        name_rows = self._exact_name_rows(query)
        if predicate is not None and len(name_rows):
            name_rows = name_rows[predicate(name_rows)]
        if not weights and not len(name_rows):
            return empty
        terms = []                      # [w, start, end, head_start, head_end, depth read (-1: all)]
        best = []                       # each term's top impact
        for slot, w in weights.items():
            s, e, hs, he, top = self._term_info(slot)
            terms.append([w, s, e, hs, he, 0])
            best.append(top)
        # An upper bound on any row's BM25 for this query: exact-name rows get it added.
        ub = 0.0
        for (w, *_), top in zip(terms, best):
            ub += w * top
        boost = ub + 1.0

        depth0 = int(min(HEAD_LEN, max(64, math.ceil(head_factor * k / max(selectivity, 1e-6)))))
        want = [depth0 if he > hs else -1 for _, _, _, hs, he, _ in terms]
        if by_impact and terms:
            tops = [w * (top if he > hs else 0.0) for (w, s, e, hs, he, _), top in zip(terms, best)]
            top = max(max(tops), 1e-9)
            want = [-1 if x == -1 else max(64, int(math.ceil(x * t / top))) for x, t in zip(want, tops)]
        rounds = 0
        while True:
            rounds += 1
            # read: whole lists and heads; a head's rows get their impact for that term now
            for j, t in enumerate(terms):
                w, s, e, hs, he, read = t
                if read != -1 and want[j] != read:
                    if want[j] == -1 or want[j] >= e - s or want[j] > he - hs:
                        t[5] = -1
                    else:
                        t[5] = want[j]
            # what a row could still gain from a partly read term whose head it is not in
            rest = np.array([0.0 if read == -1 else
                             w * float(self.impact[s + self.head[min(hs + read, he - 1)]])
                             for w, s, e, hs, he, read in terms])
            if self._uses_kernel:
                cand, scores, matched, theta = compiled_round(self, terms, rest, name_rows, boost, predicate, k)
            else:
                cand, scores, matched, theta = numpy_round(self, terms, rest, name_rows, boost, predicate, k)
            bound = float(rest.sum())
            kk = min(k, len(scores))
            proven = bound == 0.0 or bound < theta
            if proven or rounds == max_rounds:
                break
            # deepen the partly read terms whose remaining impact keeps the bound >= theta,
            # largest first (MaxScore: the smallest ones together stay under theta)
            order = np.argsort(rest)
            keep = np.cumsum(rest[order]) < max(theta, 0.0)
            essential = [j for j in order[~keep] if terms[j][5] != -1]
            whole = sum(terms[j][2] - terms[j][1] for j in essential) <= full_read
            for j in essential:
                read, hlen = terms[j][5], terms[j][4] - terms[j][3]
                # whole lists when affordable (one more round, then exact), else deeper heads
                want[j] = -1 if whole or read >= hlen else min(hlen, read * 4)
        order = _top(cand, scores, k, kth=theta if kk == k else None)     # theta: the k-th score
        truncated = any(t[5] != -1 for t in terms)
        is_name = _members(name_rows, cand[order]) if len(name_rows) else np.zeros(len(order), bool)
        if truncated and predicate is None:
            matched = max(matched, max(t[2] - t[1] for t in terms))   # every row of the longest term matches
        return KeywordHits(cand[order], scores[order], is_name, matched, not truncated, proven)

    def idf(self, term: str) -> float:
        """BM25 idf of one token under this index's statistics."""
        return bm25_idf(self.n_docs, self.df(term))

    def df(self, term: str) -> int:
        """How many of the index's documents hold ``term`` (the notes overlay scores unmerged notes
        with this and ``n_docs``, as one corpus with the indexed rows: ``noteview.union_idf``)."""
        slot = self._term_slot(term)
        return int(self.offsets[slot + 1] - self.offsets[slot]) if slot >= 0 else 0

    def score_texts(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """BM25 of ``query`` in documents outside the index, with this index's statistics (document
        count, term frequencies, average length; the reference the notes' incremental index is tested
        against, given the same idf), so their scores rank consistently among the indexed rows'.
        A term the index never saw gets the idf of a term in no document."""
        out = np.zeros(len(texts), dtype=np.float32)
        q = {}
        for t in tokenize(query):
            q[t] = q.get(t, 0) + 1
        if not q or not len(texts):
            return out
        idf = {t: self.idf(t) for t in q}
        for i, text in enumerate(texts):
            toks = tokenize(text)
            if not toks:
                continue
            norm = K1 * (1 - B + B * len(toks) / max(self.avgdl, 1e-9))
            for t, w in q.items():
                tf = toks.count(t)
                if tf:
                    out[i] += w * idf[t] * tf * (K1 + 1) / (tf + norm)
        return out

    def _exact_name_rows(self, query: str) -> np.ndarray:
        words = query.split()
        keys = {query.strip().lower()} if query.strip() else set()
        keys |= {m.lower() for w in words for m in COMPOUND.findall(w) if looks_like_identifier(m)}
        declared = declared_name(query)        # `class Flask`, `def simplify(expr`: the name they define
        if declared is not None:
            keys.add(declared.lower())
        found = [self._name_rows(key) for key in keys]
        found = [f for f in found if len(f)]
        if len(found) == 1 and (len(found[0]) < 2 or bool((found[0][1:] > found[0][:-1]).all())):
            return found[0]                 # one key's rows, ascending and distinct already
        return np.unique(np.concatenate(found)) if found else np.empty(0, np.int64)

    def __len__(self) -> int:
        return self.n_docs


def _top(cand: np.ndarray, scores: np.ndarray, k: int, kth: float | None = None) -> np.ndarray:
    """Positions of the best ``k`` by score, ties by row: a partition first when it saves sorting
    most of them (``kth``: the k-th best score, when the caller has it already)."""
    if len(scores) <= 2 * k:
        return np.lexsort((cand, -scores))[:k]
    if kth is None:
        kth = scores[np.argpartition(scores, len(scores) - k)[len(scores) - k]]
    sel = np.flatnonzero(scores >= kth)
    return sel[np.lexsort((cand[sel], -scores[sel]))][:k]


def _members(sorted_rows: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``np.isin(x, sorted_rows)`` for an ascending ``sorted_rows`` (a binary search each: isin's
    setup cost more than the search at ~50 rows)."""
    i = np.minimum(np.searchsorted(sorted_rows, x), len(sorted_rows) - 1)
    return sorted_rows[i] == x


def _postings(texts: Iterable[str], *, chunk: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tokenize ``texts``: (term hash, row, term frequency) per posting, and each row's length."""
    vocab: dict[str, int] = {}
    ids_cache: dict[str, tuple[int, ...]] = {}
    parts: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    doclen: list[int] = []
    buf_terms = array("i")          # compact buffers: a chunk holds tens of millions of tokens
    buf_docs = array("i")
    n = 0

    def flush():
        if not len(buf_terms):
            return
        key = np.frombuffer(buf_terms, dtype=np.int32).astype(np.int64) << 32 | \
            np.frombuffer(buf_docs, dtype=np.int32).astype(np.int64)
        u, c = np.unique(key, return_counts=True)
        parts.append(u)
        counts.append(c)
        del buf_terms[:]
        del buf_docs[:]

    for text in texts:
        before = len(buf_terms)
        for comp in COMPOUND.findall(text or ""):
            ids = ids_cache.get(comp)
            if ids is None:
                ids = tuple(vocab.setdefault(t, len(vocab)) for t in expand(comp))
                ids_cache[comp] = ids
            buf_terms.extend(ids)
        added = len(buf_terms) - before
        buf_docs.extend(array("i", [n]) * added)
        doclen.append(added)
        n += 1
        if n % chunk == 0:
            flush()
    flush()
    key = np.concatenate(parts) if parts else np.empty(0, np.int64)
    tf = np.minimum(np.concatenate(counts), MAX_TF).astype(np.uint16) if counts else np.empty(0, np.uint16)
    terms = list(vocab)
    th = np.fromiter((_hash(t) for t in terms), dtype=np.uint64, count=len(terms))
    if len(th) > 1 and len(np.unique(th)) != len(th):
        raise SystemError_("keyword vocabulary hash collision; report this index build")
    return th[key >> 32], (key & 0xFFFFFFFF).astype(np.int32), tf, np.asarray(doclen, dtype=np.float32)


def _impacts(idf: np.ndarray, df: np.ndarray, rows: np.ndarray, tf: np.ndarray, dlf: np.ndarray,
             avgdl: float, block: int = 1 << 20) -> np.ndarray:
    """BM25 impact of every posting (float32), in blocks that stay in cache (the same float32
    operations in the same order for every posting, so a build and an update agree bit for bit)."""
    out = np.empty(len(rows), dtype=np.float32)
    idf_p = np.repeat(idf, df)
    inv = max(avgdl, 1e-9)
    for s in range(0, len(rows), block):
        e = min(s + block, len(rows))
        tff = tf[s:e].astype(np.float32)
        norm = K1 * (1 - B + B * dlf[rows[s:e]] / inv)
        np.divide(idf_p[s:e] * tff * (K1 + 1), tff + norm, out=out[s:e])
    return out


def _structure_fault(a: Mapping[str, np.ndarray], meta: Mapping) -> str:
    """What makes these arrays unsafe to search (offsets out of order, a row out of range, an
    unsorted vocabulary), or "". One pass over each array (tens of milliseconds at 1M documents),
    so a flipped byte that escaped a quick checksum check cannot turn a search into an IndexError."""
    n_docs, n_terms, n_post = int(meta["n_docs"]), int(meta["n_terms"]), int(meta["n_postings"])

    def csr(off, n, total):
        return len(off) == n + 1 and int(off[0]) == 0 and int(off[-1]) == total and not bool(np.any(np.diff(off) < 0))

    def in_range(x, hi):
        return not len(x) or (int(x.min()) >= 0 and int(x.max()) < hi)

    if len(a["vocab"]) != n_terms or bool(np.any(a["vocab"][1:] <= a["vocab"][:-1])):
        return "the vocabulary is not a sorted set of n_terms hashes"
    if not csr(a["offsets"], n_terms, n_post) or len(a["rows"]) != n_post or len(a["impact"]) != n_post:
        return "the postings offsets do not match the postings"
    if not in_range(a["rows"], n_docs):
        return f"a posting names a row outside [0, {n_docs})"
    if not csr(a["hoff"], n_terms, len(a["head"])):
        return "the head offsets do not match the heads"
    longest = int(np.diff(a["offsets"]).max()) if n_terms else 0
    if not in_range(a["head"], max(longest, 1)):
        return "a head position lies outside its term's postings"
    if not csr(a["noff"], len(a["nvocab"]), len(a["nrows"])) or not in_range(a["nrows"], n_docs):
        return "the exact-name map is inconsistent"
    return ""


def _heads(offsets: np.ndarray, impact: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each term with more than HEAD_MIN postings: positions of its best min(df, HEAD_LEN)
    postings, best first (shorter lists are read whole; they cost less than a lookup)."""
    df = np.diff(offsets)
    long_terms = np.flatnonzero(df > HEAD_MIN)
    hoff = np.zeros(len(df) + 1, dtype=np.int64)
    lens = np.zeros(len(df), dtype=np.int64)
    lens[long_terms] = np.minimum(df[long_terms], HEAD_LEN)
    np.cumsum(lens, out=hoff[1:])
    head = np.empty(int(hoff[-1]), dtype=np.int32)
    for t in long_terms:
        s, e, n = offsets[t], offsets[t + 1], lens[t]
        imp = impact[s:e]
        part = np.argpartition(-imp, n - 1)[:n] if n < len(imp) else np.arange(len(imp))
        part = part[np.lexsort((part, -imp[part]))]
        head[hoff[t]:hoff[t + 1]] = part
    return hoff, head


def _name_pairs(names: Iterable[tuple[int, Sequence[str]]]) -> tuple[np.ndarray, np.ndarray]:
    """(key hash, row) of each row's exact keys, sorted, each pair once: the one keying of
    names that a full build (``_name_map``) and a warm update (keywordupdate) share."""
    keys: list[int] = []
    rows: list[int] = []
    for i, ns in names:
        for name in ns:
            if name:
                keys.append(_hash(name.lower()))
                rows.append(int(i))
    k = np.asarray(keys, dtype=np.uint64)
    r = np.asarray(rows, dtype=np.int32)
    order = np.lexsort((r, k))
    k, r = k[order], r[order]
    first = np.ones(len(k), dtype=bool)
    first[1:] = (k[1:] != k[:-1]) | (r[1:] != r[:-1])
    return k[first], r[first]


def _name_map(names: Iterable[Sequence[str]] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _name_csr(*_name_pairs(enumerate(names) if names is not None else ()))


def _name_csr(k: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact-name map (key hashes, offsets, rows) of (key hash, row) pairs sorted by key, then
    row (a full build's ``_name_pairs``, or a warm update's renumbered and merged pairs)."""
    if not len(k):
        return np.empty(0, np.uint64), np.zeros(1, np.int64), np.empty(0, np.int32)
    uniq, starts = np.unique(k, return_index=True)
    return uniq, np.append(starts, len(k)).astype(np.int64), r

__all__ = ["KeywordIndex", "KeywordHits"]
