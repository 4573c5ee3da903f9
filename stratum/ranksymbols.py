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

A note's share of a file is what it adds to the file's note evidence (its lift over j as the j-th
best, as ``rank_files`` sums it) times ``Weights.notes``, split evenly among its targets in that
file (a target that is the whole file keeps its part with the file's best item). Mined fixes and changes
are about files and are not read here. Called only when an agent note about a symbol is among a
search's hits (``NoteInfo.nodes``): no work for the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from stratum.rankwhy import Ranked, RankedFile, note_reasons

if TYPE_CHECKING:
    from stratum.rank import Hit, Scored, Signals, Weights

EPS = 1e-12         # a file's lift left after the move below this is float noise (scores are ~1e-2)


def symbol_shares(agent: dict[str, list], weight: float) -> dict[str, list[tuple[float, tuple, str]]]:
    """Symbol id -> [(lift, note label, the file it is taken from), ...], best first, from ``agent``:
    file -> its agent notes' evidence ``[(share, (note id, NoteInfo, standing's why)), ...]``, best
    first (the j-th counting 1/j, as ``rank_files`` sums it)."""
    lifts: dict[str, list[tuple[float, tuple, str]]] = {}
    for f, ev in agent.items():
        for j, (share, label) in enumerate(ev, 1):
            nodes = label[1].nodes
            if not nodes or share <= 0:
                continue
            here = [nid for nid, p in nodes if p == f]      # its targets in f (a whole file's id "")
            each = weight * share / j / max(len(here), 1)
            for nid in here:
                if nid:
                    lifts.setdefault(nid, []).append((each, label, f))
    for got in lifts.values():
        got.sort(key=lambda e: -e[0])
    return lifts


def _rest(fe: RankedFile, moved: float) -> RankedFile:
    """The file's entry without the lift moved to its symbols (its why says no note it lent away)."""
    parts = dict(fe.parts)
    left = parts.get("notes", 0.0) - moved
    if left > EPS:
        parts["notes"] = left
    else:
        parts.pop("notes", None)
    return RankedFile(fe.path, fe.score - moved, fe.text, parts, fe.said)


def _says(got: list, text: bool, rest: RankedFile | None = None) -> Callable[[], str]:
    """The why of a symbol's item: its notes ("rca note n1234567 +1"), then what else lifts it."""
    def why() -> str:
        head = note_reasons(got[0][1], len(got))[1]
        tail = f"; {rest.lift_why}" if rest is not None and rest.parts else ""
        return ("text; " if text else "") + head + tail
    return why


def lend_to_symbols(out: list[Ranked], candidates: Sequence["Scored"], hits: Sequence["Hit"],
                    tail: Sequence["Scored"], ranked: dict[str, RankedFile], agent: dict[str, list],
                    signals: "Signals", w: "Weights", add: bool) -> set[str]:
    """Move the agent notes' shares from their files' best items to the items of the symbols they
    are about, in ``out`` (``rank.rerank``'s items: one per candidate, in candidate order, then the
    added files). A symbol found nowhere (not a candidate, and not a node ``Signals.locate_node``
    knows, or ``add`` is False: a filter is set) leaves its share with its file. Returns the ids of
    tail candidates served here (the tail adds them no more)."""
    lifts = symbol_shares(agent, w.notes) if w.notes else {}
    if not lifts:
        return set()
    listed = {c.id for c in candidates if c.id in lifts}
    deep = {c.id: c for c in tail if c.id in lifts and c.id not in listed}      # past the rerank depth
    locate = getattr(signals, "locate_node", None) if add else None
    found: dict[str, tuple[str, int]] = {}
    for nid in [n for n in lifts if n not in listed and n not in deep]:
        loc = locate(nid) if locate is not None else None
        if loc is None:
            del lifts[nid]              # renamed or deleted since, or under a filter: the file keeps it
        else:
            found[nid] = loc
    moved: dict[str, float] = {}        # file -> the lift its symbols take from it
    for got in lifts.values():
        for x, _, f in got:
            moved[f] = moved.get(f, 0.0) + x
    seen: set[str] = set()
    for c, h, r in zip(candidates, hits, out):
        path = h.file
        if h.note is not None or not path:
            continue
        first = path not in seen
        seen.add(path)
        mine = lifts.get(c.id)
        fe = ranked.get(path) if first and path in moved else None
        if fe is None and mine is None:
            continue                # not a symbol of a note, nor the best item of a file that lent
        rest = None
        if fe is not None:          # the file's best item keeps the rest of the file's lift
            lift = fe.score - fe.text - moved[path]
            rest = _rest(fe, moved[path]) if lift > EPS else None
            r.score, r._why = c.score + (lift if rest is not None else 0.0), rest if rest is not None else "text"
        if mine is not None:
            r.score += sum(x for x, _, _ in mine)
            r._why = _says(mine, True, rest if rest is not None else r._why if isinstance(r._why, RankedFile) else None)
    for i in range(len(candidates), len(out)):     # an added file: without the lift it lent away
        r = out[i]
        if r.added and r.file in moved:
            e = _rest(ranked[r.file], moved[r.file])
            r.score, r._why = e.score, e
    out[len(candidates):] = [r for r in out[len(candidates):] if r.score > EPS]
    for nid, c in deep.items():
        got = lifts[nid]
        out.append(Ranked(c.id, c.row, c.score + sum(x for x, _, _ in got), _says(got, True), got[0][2], False))
    for nid, (fid, row) in found.items():
        got = lifts[nid]
        out.append(Ranked(fid, row, sum(x for x, _, _ in got), _says(got, False), got[0][2], True))
    return set(deep)


__all__ = ["symbol_shares", "lend_to_symbols", "EPS"]
