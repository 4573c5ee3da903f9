"""Placements after the rerank: rules that put some items of ``rank.rerank``'s answer first, for
evidence the agent handed over itself (``Tools.search`` applies them in this order). ``rerank``'s
scores and evidence stay as they are for every other item, and ``rank_files`` never sees them.

- ``phrase_first``: a runbook, Makefile or script whose words hold the query's, in order, above the
  items the query's text matches worse (``Restart the orders API``, ``lint_go``);
- ``exact_first``: an identifier query's exact matches (``IntegerConverter``,
  ``werkzeug.utils.redirect``, ``shop/cart.py::Cart.total``) above the files other memories lift;
- ``named_first``: the definitions a prose query names by an identifier (``parse_header_links``);
- ``note_then_code``: the code a leading agent note is about, right after it;
- ``frames_first``: a pasted traceback's frames (``stratum.tracebacks``), innermost first.

``in_order`` applies them, in that order, to one shard's list (and a branch overlay's).
"""

from __future__ import annotations

import math
import re
from operator import attrgetter
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from stratum.rank import CODE_ITEM_KINDS, Candidate, Signals
from stratum.rankwhy import Ranked

if TYPE_CHECKING:
    from stratum.tracebacks import Located


class Placing(Signals, Protocol):
    """What the placements read beside the ranking signals: a shard's (``ShardSignals``) or a branch
    list's (``BranchListSignals``, the branch's code) exact and named definitions."""
    def exact_names(self, query: str, candidates, dotted: bool = True) -> dict[str, int]: ...
    def named_in(self, query: str, candidates) -> dict[str, int]: ...
    def doc_text(self, row: int) -> str | None: ...

EXACT_NAME = 1.0            # an identifier query's exact name matches: above every fused score (< 1)
FRAME_SCORE = 4.0           # a frame scores FRAME_SCORE + 1 / (1 + its place): above exact names (< 2) and
                            # every fused score (< 1); the agent saw it run there
_ID, _SCORE = attrgetter("id"), attrgetter("score")


def _put_first(ranked: list[Ranked], found: list[tuple[str, int, str]],
               score: Callable[[int, float | None], float]) -> list[Ranked]:
    """Each found (id, row, why) at ``score(its index in found, its score in the list or None)``,
    its why first; one the list lacks is added. Sorted again by (-score, id)."""
    by_id = {r.id: r for r in ranked}
    for i, (nid, row, why) in enumerate(found):
        r = by_id.get(nid)
        if r is None:
            ranked.append(Ranked(nid, row, score(i, None), why, None, True))
        else:
            r.score, r._why = score(i, r.score), f"{why}; {r.why}"
    ranked.sort(key=_ID)                # two stable sorts (plain keys) order as one by (-score, id)
    ranked.sort(key=_SCORE, reverse=True)
    return ranked


_WORD = re.compile(r"[a-z0-9]+")
PHRASE_WORDS = 2            # a query of one word is no phrase (a Makefile target `lint_go` is two)


def phrase_first(ranked: list[Ranked], signals: Placing, query: str, candidates: Sequence) -> list[Ranked]:
    """The query's best text match among code (``candidates``: the fused list, best first), when it
    is a file no grammar parses whose searched words (``Placing.doc_text``: its path and first
    words) hold the query's words in order, at least PHRASE_WORDS: it moves up to the first item the
    query's text matches worse, however much history lifted that one; the leading items whose text
    matches at least as well keep their place above it (a note matched by its own words), and the
    items it passes below that point go under it whatever their text (a past change whose subject
    shares the words scores a little more text, 0.0328 against 0.0317: a review; the document that
    holds the phrase is the answer asked for). With history, "Restart the orders API" put the
    runbook headed so below the code files past commits about the orders API lifted (12th), and
    `lint_go` the Makefile below past changes (a probe). Its why says "exact phrase". Mirrors
    ``ranknotes.below_better_code``: there a note never rises over code the query matches better."""
    words = _WORD.findall(query.lower())
    if len(words) < PHRASE_WORDS:
        return ranked
    hit = signals.hit
    first = next((c for c in candidates if c.row >= 0 and hit(c).kind in CODE_ITEM_KINDS), None)
    # its words matched (a vector-only hit holds no phrase): read only then (a first read ~1 ms, cached)
    doc = signals.doc_text(first.row) if first is not None and "keyword" in first.sources else None
    if first is None or doc is None or f" {' '.join(words)} " not in f" {' '.join(_WORD.findall(doc.lower()))} ":
        return ranked
    at = next((i for i, r in enumerate(ranked) if r.id == first.id), None)
    if at is None:
        return ranked
    text = {c.id: c.score for c in candidates}      # an added item (no text hit) matches worse
    t, r = first.score, ranked[at]
    p = next(i for i, x in enumerate(ranked) if i == at or text.get(x.id, 0.0) < t)
    r._why = f"exact phrase; {r.why}"
    if p < at:                  # between the item above its new place and the one it passes
        lo = ranked[p].score
        hi = ranked[p - 1].score if p else math.inf
        r.score = lo * (1 + 1e-6) + 1e-12
        if r.score >= hi:
            r.score = (lo + hi) / 2
        ranked[p:at + 1] = [r, *ranked[p:at]]
    return ranked


def _above_text(_i: int, s: float | None) -> float:
    """An exact or named match's score: EXACT_NAME over its own (above every fused score)."""
    return EXACT_NAME if s is None else s + EXACT_NAME


def exact_first(ranked: list[Ranked], exact: dict[str, int]) -> list[Ranked]:
    """An identifier query's exact matches (``exact``: id -> row, ``ShardSignals.exact_names``) go
    first, ahead of the files other memories lift (a test file whose 13 symbols mention converters
    outranked the class ``IntegerConverter``); one the fused list lacks (a dotted ``module.name``
    found by its name, the node a ``path::Qualified.name`` target names) is added. Their score
    gains EXACT_NAME."""
    if not exact:
        return ranked
    return _put_first(ranked, [(nid, row, "exact name") for nid, row in exact.items()], _above_text)


def named_first(ranked: list[Ranked], named: dict[str, int], signals: Signals) -> list[Ranked]:
    """The definitions a prose query names by an identifier (``ShardSignals.named_in``) first, as
    ``exact_first`` puts a one-identifier query's: "Fix parse_header_links on empty header" led with
    an rca note and the files it lifted, the function 4th. An agent note that leads by the query's
    own words (``rerank`` keeps it first) stays first, the named code right after it. Chosen on
    memory_transfer's pasts (176 fixes: code only 7 moved, 6 up; MRR +0.013; with notes +0.017;
    docs/bench/memory_transfer.md, "Session 12")."""
    if not named:
        return ranked
    found = [(nid, row, "named in the query") for nid, row in named.items()]
    if ranked and _leading_note(ranked, signals) is not None and ranked[0].id not in named:
        top = ranked[0].score
        return _put_first(ranked, found, lambda i, _s: top * (1 - 1e-6 * (i + 1)))
    return _put_first(ranked, found, _above_text)


def _leading_note(ranked: list[Ranked], signals: Signals):
    """The NoteInfo of the answer's first item when it is an active, fresh agent note, else None."""
    first = ranked[0]
    n = signals.hit(Candidate(first.row, first.score, (), first.id)).note
    return None if n is None or n.mined or n.status != "active" or n.stale else n


def frames_first(ranked: list[Ranked], found: "Sequence[Located]") -> list[Ranked]:
    """A traceback's frames (``tracebacks.locate``, innermost first) first, in that order, each with
    its why (one the list lacks is added). A frame's score depends only on its place in the
    traceback, so the lists of several shards, and a branch's overlay beside its base, merge
    innermost first."""
    if not found:
        return ranked
    return _put_first(ranked, [(f.id, f.row, f.why) for f in found],
                      lambda i, _s: FRAME_SCORE + 1.0 / (1 + found[i].frame))


def note_then_code(ranked: list[Ranked], signals: Signals) -> list[Ranked]:
    """When the answer's first item is an active agent note (fresh, not mined), the code it is about
    follows it: the items of its symbols, and for a whole-file target the file's best item, in their
    own order just below the note. The demo's rca note about ``Store.publish`` led its page with the
    method 9th, below files that mined history lifted: the agent reads the explanation, then the
    code it names."""
    if len(ranked) < 2:
        return ranked
    first = ranked[0]
    n = _leading_note(ranked, signals)
    if n is None:
        return ranked
    if n.nodes:
        ids = {nid for nid, _ in n.nodes if nid}
        files = {p for nid, p in n.nodes if not nid}
    else:
        ids, files = set(), set(n.targets)
    follow: list[Ranked] = []
    rest: list[Ranked] = []
    need = len(ids) + len(files)
    for i in range(1, len(ranked)):
        r = ranked[i]
        if r.id in ids or (files and r.file in files):
            follow.append(r)
            files.discard(r.file)           # a file's best item only (the list is in rank order)
            if len(follow) == need:         # all found: the rest as they are (~150 items a search)
                rest += ranked[i + 1:]
                break
        else:
            rest.append(r)
    if not follow or not rest:              # none, or nothing else: the order is theirs already
        return ranked
    floor = rest[0].score
    if first.score <= floor:                # a tie broken by id: the note's own place, a hair above
        first.score = floor * (1 + 1e-6) if floor > 0 else floor + 1e-12
    step = (first.score - floor) / (len(follow) + 1)
    for k, r in enumerate(follow, 1):       # between the note and the rest, in their own order
        r.score = first.score - step * k
    # the order by (-score, id) without a sort: the rest keep theirs, all below the followers
    ranked[:] = [first, *follow, *rest]
    return ranked


def in_order(ranked: list[Ranked], signals: Placing, text: str, candidates: Sequence,
             located: "Sequence[Located]", *, dotted: bool = True, lead_note: bool = True) -> list[Ranked]:
    """Every placement, in order, over one list ``rerank`` made from ``candidates`` for the query
    ``text``: a document holding its words, its exact names (``dotted``: a dotted name's tail too,
    not under a filter), the definitions it names, the code a leading note is about (``lead_note``),
    a traceback's frames (``located``: those of this list's shard)."""
    ranked = phrase_first(ranked, signals, text, candidates)
    ranked = exact_first(ranked, signals.exact_names(text, candidates, dotted=dotted))
    ranked = named_first(ranked, signals.named_in(text, candidates), signals)
    if lead_note:
        ranked = note_then_code(ranked, signals)
    return frames_first(ranked, located)


__all__ = ["in_order", "phrase_first", "exact_first", "named_first", "note_then_code", "frames_first", "EXACT_NAME",
           "FRAME_SCORE", "PHRASE_WORDS"]
