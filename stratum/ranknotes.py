"""Where an agent note's item stands among the code (``rank.rerank``): never above code of another
file that the query's text matches better (``below_better_code``), unless it holds a rare word of
the query (``rare_first``).

A note's text score is its place in the fused lists (RRF), so the best notes get a full-size score
whatever they share with the query, and notes share "fix", "crash", "error" with most symptoms; its
item then ranks with the evidence it lends and is kept above its best file. On requests such notes
led pages above the function the query names (memory_transfer: a note about "UnicodeDecodeError on
unicode header name" first for "Fix parse_header_links on empty header"). Chosen on the benchmark
pasts (docs/bench/memory_transfer.md, "Session 12"); the note's lent evidence and its files' lift
are unchanged, so ``rank_files`` never sees this.
"""

from __future__ import annotations

import math
from operator import itemgetter
from typing import TYPE_CHECKING, Sequence, cast

if TYPE_CHECKING:
    from stratum.rank import Hit
    from stratum.rankwhy import Ranked

_FIRST = itemgetter(0)


def below_better_code(out: list[Ranked], hits: Sequence[Hit], notes: list[int], tn: list[float],
                       code: list[int], tc: list[float]) -> None:
    """Each agent note's item (``notes``: positions in ``out``, whose first entries are the
    candidates' items in order; ``tn``: their text scores) at most just below every code item
    (``code``, ``tc`` likewise) of another file whose text score beats the note's: lent evidence and
    the lead of its files may raise a note among the code it out-matches and above the code it is
    about, never over other code the query matches better. One merge of the two lists, best text
    first (the fused order they come in; sorted when a caller's is not): ~0.01 ms a search."""
    if tn != sorted(tn, reverse=True) or tc != sorted(tc, reverse=True):      # reverse sorts are stable
        ns = sorted(zip(tn, notes), key=_FIRST, reverse=True)
        cs = sorted(zip(tc, code), key=_FIRST, reverse=True)
        tn, notes = [t for t, _ in ns], [i for _, i in ns]
        tc, code = [t for t, _ in cs], [j for _, j in cs]
    low, at = math.inf, -1                  # the lowest item among the code that beats the note
    k, m = 0, len(code)
    for i, t in zip(notes, tn):
        while k < m and tc[k] > t:          # ties do not beat it
            s = out[code[k]].score
            if s < low:
                low, at = s, code[k]
            k += 1
        r = out[i]
        if not k or r.score < low:          # below all of that code already (the cap is >= low)
            continue
        cap = low
        mine = cast(tuple, hits[i].facts)[3]     # its files: their code does not hold it down
        if hits[at].file in mine:
            cap = min((out[j].score for j in code[:k] if hits[j].file not in mine), default=math.inf)
        if r.score >= cap:
            r.score = cap * (1 - 1e-6)


RARE_WHY = "rare word"       # what an agent note placed first by a rare word of the query says first


def rare_first(out: list[Ranked], at: list[int], stale: set[int]) -> None:
    """The best of the items at ``at`` (active agent notes holding a rare query word; ``stale``: the
    positions of the stale ones) above every other item of ``out``: the query's rare word is the
    note's own, a stronger pointer than the fused rank (one list's rank 1 is 1/61) or the lift of the
    code it explains. A stale note too (a ticket id or error code an agent looks up is still that
    note's; a probe saw all 46 stale notes with a unique word fall to 27th-70th for it): its why
    says stale after "rare word", and the code it is about does not follow it (``rankplace``: fresh
    leading notes only). A fresh one goes before a stale one. A note that scores more already keeps
    its score (a branch session's list merges with another by score; a note lowered to just above
    this list's best fell under the branch's code it lifts there)."""
    # one note: two placed tied, and which one came first (their ids) decided whose code followed it (review)
    best = max(at, key=lambda i: (i not in stale, out[i].score))
    floor = max((r.score for i, r in enumerate(out) if i != best), default=0.0) * (1 + 1e-6) + 1e-12
    if out[best].score < floor:
        out[best].score = floor
    out[best].why = f"{RARE_WHY}; {out[best].why}"


__all__ = ["below_better_code", "rare_first", "RARE_WHY"]
