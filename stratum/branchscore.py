"""A branch's own code scored as if the default branch's index held it.

A session on a branch searches the default branch's shard (hiding the rows of the files the branch
changed) and, apart, the overlay: a small shard holding only the changed and added files. Ranked
by itself, the overlay's list is on another scale: every node of a changed file is in its tiny
fused list at RRF ranks 1..k, and its BM25 takes the tiny shard's idf, so a file the branch touched
rose to the top of unrelated searches (flask, "session cookie signing secret key": tag.py 42nd on
main, 4th on a branch that added one function to it, with "44 symbols" of aggregate).

Here each overlay row gets the fused score it would have in the default branch's search: its cosine
and its BM25 (the shard's idf and average length, as unmerged notes take them) are placed by raw
score among the shard's own vector and keyword lists (``HybridSearcher.list_hits``, with the notes
merged as ``search`` merges them, minus the rows the branch hides), and only a row inside a list's
window gets that list's ``weight / (RRF_K + rank)``. An exact-name row of the overlay ranks after
the shard's exact-name rows (their boosted scores say nothing about its). The overlay rows are
indexed once per overlay as a ``noteindex.NoteIndex`` (slot = row): the notes' own BM25 and vector
lists, exact at an overlay's size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from stratum.codetokens import node_text
from stratum.noteindex import NoteIndex
from stratum.search import RRF_K, SOURCES, SearchItem     # an item's lists, named as search names them
from stratum.textprep import searched

if TYPE_CHECKING:
    from stratum.noteview import NoteView
    from stratum.search import HybridSearcher
    from stratum.shard import Shard

TEXT_COLUMNS = ["id", "kind", "subkind", "path", "name", "qualname", "signature", "doc", "full", "language"]
HIDDEN_DEPTH = 4            # the shard's lists are read this many windows deep at most, so that the
                            # window is still full once the rows the branch hides are dropped


def overlay_index(sh: "Shard") -> NoteIndex:
    """The overlay shard's rows as a NoteIndex, slot i = row i: the keyword text the warm tier
    indexes (``codetokens.node_text``) and the row's vector; a row the warm tier does not search
    (``textprep.searched``: the repo node, a test written as a call) is inactive."""
    tab = sh.snapshot.read("nodes", columns=TEXT_COLUMNS)
    vi = sh.warm.searcher.vectors
    ix = NoteIndex(vi.dim if vi is not None else 384)
    for r, rec in enumerate(tab.to_pylist()):
        vec = None
        if vi is not None and (vi.present is None or vi.present[r]):
            vec = np.asarray(vi.matrix[r], np.float32)
        active = searched(rec)
        ix.add(rec["id"], node_text(rec) if active else "", rec["kind"], rec.get("path") or "", "", vec,
               active=active, language=rec.get("language") or "")
    return ix


def overlay_items(base: "HybridSearcher", docs: "NoteView", own_names: np.ndarray, hidden: np.ndarray,
                  query: str, kinds: Sequence[str] = (), path_prefix: str = "", language: str = "", *,
                  extra_docs: "NoteView | None" = None) -> list[SearchItem]:
    """The overlay rows' search items (row: the overlay's), best first (ties: id), each scored by
    the default branch's lists (module docstring). ``docs``: ``overlay_index``'s view; ``own_names``:
    the overlay rows a query identifier names, in their keyword order; ``hidden``: the base rows the
    branch hides, sorted; ``extra_docs``: the unmerged notes the default branch's search merges."""
    W = base.window
    lists = base.list_hits(query, kinds, path_prefix, language, W + min(len(hidden), (HIDDEN_DEPTH - 1) * W),
                           extra_docs=extra_docs)
    ok = docs.mask(tuple(dict.fromkeys(kinds)), path_prefix, language)
    score = np.zeros(docs.n)
    bits = np.zeros(docs.n, np.int8)

    def add(rows: np.ndarray, ranks: np.ndarray, bit: int, weight: float) -> None:
        keep = ranks <= W
        np.add.at(score, rows[keep], weight / (RRF_K + ranks[keep]))
        bits[rows[keep]] |= bit

    _, vscores = _visible(*lists.vector, lists.n, hidden, W)
    q = base.embed_query(query)
    if q is not None:
        slots, cos = docs.vector_hits(q, W, ok)
        add(slots, _placed(vscores, cos), 1, base.weights["vector"])
    _, kscores = _visible(*lists.keyword, lists.n, hidden, W)
    if base.keywords is not None:
        names = own_names[ok[own_names]] if len(own_names) else own_names
        shard_names = _visible(lists.name, np.zeros(len(lists.name)), lists.n, hidden, W)[0]
        at = len(shard_names) + np.arange(1, len(names) + 1)
        slots, bm25 = docs.keyword_hits(query, base.keywords.idf, base.keywords.avgdl, W, ok)
        plain = ~np.isin(slots, names)
        # keyword: the shard's exact-name rows (boosted first), the overlay's, then by BM25
        add(np.concatenate([names, slots[plain]]),
            np.concatenate([at, _placed(kscores, bm25[plain]) + len(names)]), 2, base.weights["keyword"])
        add(names, at, 4, base.weights["name"])
    got = np.flatnonzero(bits)
    ids = docs.ix.ids
    items = [SearchItem(r, s, SOURCES[b], ids[r]) for r, s, b in
             zip(got.tolist(), score[got].tolist(), bits[got].tolist())]
    items.sort(key=lambda it: (-it.score, it.id))
    return items


def rerank_depth(candidates: Sequence, live: Sequence, depth: int) -> int:
    """How many of a branch list's ``candidates`` (best first) the memories rerank: those that
    would be among the first ``depth`` of the default branch's ``live`` items (best first) and
    them merged by score, as they would be in its list; the rest keep their text order (a file
    the branch touched counted all of its hits in its symbols aggregate: "44 symbols"). A candidate
    that is one of ``live`` (the default branch's notes and code the branch's list is ranked among)
    counts once: twice, 45 notes cut the depth from 47 to 29."""
    seen = {it.id for it in live[:depth]}
    head = sorted([it.score for it in live[:depth]] + [c.score for c in candidates[:depth] if c.id not in seen],
                  reverse=True)
    if len(head) < depth:
        return depth
    theta = head[depth - 1]
    return sum(1 for c in candidates[:depth] if c.score >= theta)


def _visible(rows: np.ndarray, scores: np.ndarray, n: int, hidden: np.ndarray, depth: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """A list without the shard rows the branch hides (notes, rows >= n, stay), cut at depth."""
    if len(hidden):
        keep = (rows >= n) | ~np.isin(rows, hidden)
        rows, scores = rows[keep], scores[keep]
    return rows[:depth], scores[:depth]


def _placed(shard_scores: np.ndarray, own: np.ndarray) -> np.ndarray:
    """The 1-based rank each of ``own`` (best first) takes merged by score into ``shard_scores``
    (best first; a tie: the shard's row first, as ``search`` merges extra docs)."""
    before = np.searchsorted(-np.asarray(shard_scores, np.float64), -np.asarray(own, np.float64), side="right")
    return before + np.arange(1, len(own) + 1)


__all__ = ["overlay_index", "overlay_items", "rerank_depth", "HIDDEN_DEPTH"]
