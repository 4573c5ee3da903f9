"""A note about a symbol lifts that symbol, not its file's best text match (issue #12: an active
matching note lifts its targets).

``rank.rerank`` gives a file's whole non-text lift to the file's best item. An agent note (rca,
failure, insight) about ``map.py::Map.bind`` lent its share to ``MapAdapter.get_host``, the file's
best text hit, and ``Map.bind`` sat at rank 29 (a probe on werkzeug). Here, after the items are
made, each such note's share of its file goes to its symbols' items instead: one in the list gains
it on its text score; one the list lacks is added (``Signals.locate_node``; not under a filter);
one found nowhere (renamed since) leaves its share with the file. The file's best item keeps the
rest of its file's lift, without that share. File scores (``rank.rank_files``) are untouched: only
the items' order changes.

Each note is named once in an item's why: a symbol's item names its notes, and what its file kept
names only the notes that file did not lend away (a note all of whose share of the file went to
symbols), and not the symbol's own; "+N" counts those others. A probe saw "failure note n198af36
+2; failure note n198af36 +7": the file's leftover still said the note it had lent, counted with all.

A note's share of a file is what it adds to the file's note evidence (its lift over j as the j-th
best, as ``rank_files`` sums it) times ``Weights.notes``, split evenly among its targets in that
file (a target that is the whole file keeps its part with the file's best item). Mined fixes and changes
are about files and are not read here. Called only when an agent note about a symbol is among a
search's hits (``NoteInfo.nodes``): no work for the rest.
"""

from __future__ import annotations

from functools import partial
from operator import itemgetter
from typing import TYPE_CHECKING, Sequence

from stratum.rankwhy import Ranked, RankedFile, note_reasons

if TYPE_CHECKING:
    from stratum.rank import Hit, Scored, Signals

EPS = 1e-12         # a file's lift left after the move below this is float noise (scores are ~1e-2)
_FIRST = itemgetter(0)
# entries are made without their __init__ (object.__new__ and the slots), as rank.rerank makes them
_new = object.__new__


def symbol_shares(agent: dict[str, list], weight: float) -> dict[str, list[tuple[float, tuple, str, list]]]:
    """Symbol id -> [(lift, note label, the file it is taken from, that file's evidence), ...], best
    first, from ``agent``: file -> its agent notes' evidence, best first (the j-th counting 1/j, as
    ``rank_files`` sums it): ``(share, (note id, its Hit, standing's why))``, and for a note about
    symbols a third element, its ``NoteInfo.symbols_at`` entry for that file (read here without the
    note itself: with 10,000 notes each note's objects were a cache miss or more, ~45 entries a
    search); a stale note judged apart in that file (``rank._apart``) carries each symbol's part and
    label there as that entry's third element. The evidence rides along for the why of what the
    file keeps (``_rest``)."""
    lifts: dict[str, list[tuple[float, tuple, str, list]]] = {}
    get = lifts.get
    for f, ev in agent.items():
        for j, e in enumerate(ev, 1):
            if len(e) < 3:
                continue
            share, label, mine = e
            if mine is None or share <= 0:
                continue
            n, ids = mine[0], mine[1]
            if len(mine) > 2:       # judged per target (``rank._apart``): each symbol its own part and label
                for nid, (x, lab) in zip(ids, mine[2]):
                    lifts.setdefault(nid, []).append((weight * x / j, lab, f, ev))
                continue
            each = weight * share / j / n
            for nid in ids:
                got = get(nid)
                if got is None:
                    lifts[nid] = [(each, label, f, ev)]
                else:
                    got.append((each, label, f, ev))
    for got in lifts.values():
        if len(got) > 1:
            got.sort(key=_FIRST, reverse=True)      # stable: ties keep their order
    return lifts


def _lent(e: tuple, lifts: dict) -> bool:
    """Whether an evidence entry's note lent all its share of the file away: each of its targets
    there is a symbol, and each one took its part (is still in ``lifts``: one found nowhere left
    its part with the file)."""
    mine = e[2] if len(e) > 2 else None
    return mine is not None and e[0] > 0 and mine[0] == len(mine[1]) and all(i in lifts for i in mine[1])


def _rest(fe: RankedFile, moved: float, ev: list, lifts: dict, named: Sequence[tuple] = ()) -> RankedFile:
    """The file's entry without the lift moved to its symbols; its notes reason names the best of
    the notes in its evidence ``ev`` that it did not lend away and ``named`` (a symbol's lift entries)
    does not name, counting them, and is gone when there are none. Made as ``RankedFile(...)`` makes
    it, without its __init__ (read only when a why is: no work for items never served)."""
    parts, said = dict(fe.parts), fe.said
    left = parts.get("notes", 0.0) - moved
    kept = []
    if left > EPS:
        skip = {x[1][0] for x in named}
        kept = [e for e in ev if e[1][0] not in skip and not _lent(e, lifts)]
    if kept:
        parts["notes"] = left
        said = {**said, "notes": (said["notes"][0], (_kept_label(kept[0]), len(kept)))}
    else:
        parts.pop("notes", None)
    e = _new(RankedFile)
    e.path, e.score, e.text, e.parts, e.said = fe.path, fe.score - moved, fe.text, parts, said
    return e


def _kept_label(e: tuple) -> tuple:
    """The label an evidence entry's note is named by in what its file keeps: its own, or for a
    note judged apart there (``rank._apart``) the standing of the targets the file kept."""
    mine = e[2] if len(e) > 2 else None
    return mine[3] if mine is not None and len(mine) > 3 else e[1]


def _says(got: list, text: bool, fe: RankedFile | None = None,
          gave: tuple[float, list, dict] | None = None) -> str:
    """The why of a symbol's item: its notes ("rca note n1234567 +1"), then what else lifts it
    (``fe``; when its file lent, ``gave`` is (the lift moved, the file's evidence, the lifts) and
    ``_rest`` says what it kept, no note of ``got`` again). Items take it as ``partial(_says,
    ...)``, said only if read: a partial is the cheapest deferred call (~18 symbol items a search
    with 10,000 notes)."""
    head = note_reasons(got[0][1], len(got))[1]
    rest = _rest(fe, *gave, got) if fe is not None and gave is not None else fe
    tail = f"; {rest.lift_why}" if rest is not None and rest.parts else ""
    return ("text; " if text else "") + head + tail


def _rest_says(fe: RankedFile, moved: float, ev: list, lifts: dict, added: bool) -> str:
    """The why of a file's item that lent to its symbols: what ``Ranked.why`` says of ``_rest(fe,
    moved, ev, lifts)`` (deferred as ``_says``: most items never reach a page)."""
    why = _rest(fe, moved, ev, lifts).lift_why
    return why if added else f"text; {why}"


def lend_to_symbols(out: list[Ranked], candidates: Sequence["Scored"], hits: Sequence["Hit"],
                    tail: Sequence["Scored"], ranked: dict[str, RankedFile], lifts: dict[str, list],
                    signals: "Signals", add: bool, firsts: dict[str, int], at: list[int]) -> set[str]:
    """Move the agent notes' shares (``lifts``: ``symbol_shares`` of the search's agent notes) from
    their files' best items to the items of the symbols they are about, in ``out`` (``rank.rerank``'s
    items: one per candidate, in candidate order, then the added files, each scoring above EPS;
    ``firsts``: path -> the position of its file's best item or its added item; ``at``: the positions
    of the code items of symbols in ``lifts``, a note's id being no symbol's). A symbol found
    nowhere (not a candidate, and not a node ``Signals.locate_node`` knows, or ``add`` is False: a
    filter is set) leaves its share with its file (it leaves ``lifts``). Returns the ids of tail
    candidates served here (the tail adds them no more)."""
    listed = {candidates[i].id for i in at}
    deep = {c.id: c for c in tail if c.id in lifts and c.id not in listed}      # past the rerank depth
    # a symbol's lifts are summed as ``sum`` adds them (0 + the first, then the others in order)
    found: list[Ranked] = []            # the symbols the list lacks, added (after the deep ones)
    away = [n for n in lifts if n not in listed and n not in deep]
    if away:
        many = getattr(signals, "locate_nodes", None) if add else None
        locate = getattr(signals, "locate_node", None) if add else None
        locs = many(away) if many is not None else [locate(n) if locate is not None else None for n in away]
        for nid, loc in zip(away, locs):
            if loc is None:
                del lifts[nid]          # renamed or deleted since, or under a filter: the file keeps it
                continue
            got = lifts[nid]
            r = _new(Ranked)
            r.id, r.row, r.file, r.added = loc[0], loc[1], got[0][2], True
            r.score = 0 + got[0][0] if len(got) == 1 else sum([e[0] for e in got])
            r._why = partial(_says, got, False)
            found.append(r)
    moved: dict[str, float] = {}        # file -> the lift its symbols take from it
    held: dict[str, list] = {}          # file -> its agent notes' evidence (for the why of what it keeps)
    for got in lifts.values():
        for x, _, f, ev in got:
            moved[f] = moved.get(f, 0.0) + x
            held[f] = ev
    # the items to edit, each once: the best item of each file that lent (its path), the listed
    # symbols' (""); every other candidate keeps what rerank gave it
    n = len(candidates)
    todo: dict[int, str] = {}
    low = False
    for f, m in moved.items():
        i = firsts.get(f)
        if i is None:
            continue
        if i < n:
            todo[i] = f
        else:                           # an added file: without the lift it lent away
            r = out[i]
            r.score, r._why = ranked[f].score - m, partial(_rest_says, ranked[f], m, held[f], lifts, True)
            low = low or r.score <= EPS
    if low:
        out[n:] = [r for r in out[n:] if r.score > EPS]
    for i in at:
        h = hits[i]
        if h.note is None and h.file and i not in todo:
            todo[i] = ""
    for i, path in todo.items():
        c, r = candidates[i], out[i]
        mine = lifts.get(c.id)
        fe = ranked.get(path) if path else None
        if fe is None and mine is None:
            continue
        if fe is not None:          # the file's best item keeps the rest of the file's lift
            m = moved[path]
            lift = fe.score - fe.text - m
            if lift > EPS:
                r.score, r._why = c.score + lift, partial(_rest_says, fe, m, held[path], lifts, False)
            else:
                r.score, r._why = c.score + 0.0, "text"
        if mine is not None:
            r.score += 0 + mine[0][0] if len(mine) == 1 else sum([e[0] for e in mine])
            r._why = partial(_says, mine, True, fe, (m, held[path], lifts)) if fe is not None and lift > EPS else \
                partial(_says, mine, True, r._why if isinstance(r._why, RankedFile) else None)
    for nid, c in deep.items():
        got = lifts[nid]
        r = _new(Ranked)
        r.id, r.row, r.file, r.added = c.id, c.row, got[0][2], False
        r.score = c.score + (0 + got[0][0] if len(got) == 1 else sum([e[0] for e in got]))
        r._why = partial(_says, got, True)
        out.append(r)
    out += found
    return set(deep)


__all__ = ["symbol_shares", "lend_to_symbols", "EPS"]
