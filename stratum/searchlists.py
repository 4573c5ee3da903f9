"""The ranked lists one search merges: for each shard, its fused text list reranked by every memory
and placed (exact names, a leading note's code, a traceback's frames), and for a branch session the
overlay's own list. Apart from ``stratum.tools`` (which checks the arguments, cuts the page and
renders it) because this is the part of search that decides the order.

A filter (kind, path, language) limits what is served, not what steers: the notes it leaves out
still rank with the code that passes and lift it, and are dropped after the placements (a probe:
`--kind method` lost every note's lift).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from stratum import branchscore, fileview, rank, rankplace, signals
from stratum import schema as S
from stratum import tracebacks as TB
from stratum.errors import InvalidArgument, StoreError
from stratum.limits import echo

if TYPE_CHECKING:
    from stratum.branchview import BranchView
    from stratum.memory import Memory
    from stratum.overlay import NotesOverlay
    from stratum.shard import Shard

STEERING_NOTES = 40         # notes a filtered search adds to steer: what an unfiltered one's two notes lists give


@dataclass
class Lists:
    """Each list's reranked entries in rank order (score, then id), its shard and the overlay that
    holds its unmerged notes; whether the totals are exact, their bound, and the notes' stamp the
    ranking saw (a page token carries it: a later page ranked with other notes warns)."""
    lists: list[tuple[list[rank.Ranked], "Shard", "NotesOverlay | None"]] = field(default_factory=list)
    exact: bool = True
    bound: int = 0
    stamp: int = 0
    notes_cut: bool = False     # a list took only its first agent notes, merged or not (search.NOTES_WINDOW)
    warnings: list[str] = field(default_factory=list)      # a store left out of the answer, and why


def scope(memory: "Memory", path_prefix: str) -> tuple[list["Shard"], str, str]:
    """The shards a search reads, the path filter within them and the prefix as read (``./`` dropped,
    as ``get`` reads a path): ``repo:path`` names one store's path (with several stores; it found
    nothing, silently: a probe). A path that is absolute or leaves the repository matched nothing,
    silently (probes): refused, after any ``repo:``."""
    while path_prefix.startswith("./"):
        path_prefix = path_prefix[2:]
    shards, rest = memory.in_repo(path_prefix, prefix=True)     # one store too: "flask:src/" found nothing
    while rest.startswith("./"):
        rest = rest[2:]
    if rest == "." or rest.endswith("/."):      # the folder itself, as get and tree read "." (it matched nothing)
        rest = rest[:-1]
    if rest.startswith("/"):
        raise InvalidArgument(f"path_prefix {echo(path_prefix)!r} is absolute; paths are relative to the "
                              f"repository root, e.g. {echo(rest.lstrip('/'))!r}")
    if ".." in rest.replace("\\", "/").split("/"):     # stored paths hold no ".."
        raise InvalidArgument(f"path_prefix {echo(path_prefix)!r} leaves the repository; paths are relative to "
                              "the repository root (\"src/\", or \"\" for all of it)")
    return list(shards), rest, path_prefix


def ranked_lists(memory: "Memory", shards: Sequence["Shard"], view: "BranchView | None", text: str,
                 paste: "TB.Paste", kinds: Sequence[str], path_prefix: str, language: str, want: int) -> Lists:
    """Every list a search merges (see the module docstring); ``want``: how deep pages reach.

    A store that cannot be read (moved, deleted, damaged since it loaded) is left out, with a
    warning naming it, when other stores answer: one such store failed every unscoped search of a
    fleet's server (a probe), though get and a scoped search of the others answered."""
    out = Lists()
    files = fileview.is_file_view(kinds)    # the whole ranking read as files (stratum.fileview)
    if files:
        kinds = ()
    filtered = bool(kinds or path_prefix or language)
    failed: list[StoreError] = []
    for sh in shards:
        part = Lists()
        try:
            _shard_lists(part, memory, sh, view, text, paste, kinds, path_prefix, language, want, filtered)
        except StoreError as err:
            failed.append(err)
            out.warnings.append(f"store {sh.repo!r} is left out of this answer: {err.message}")
            continue
        out.exact, out.bound, out.stamp = out.exact and part.exact, out.bound + part.bound, out.stamp + part.stamp
        out.notes_cut = out.notes_cut or part.notes_cut
        out.lists.extend(part.lists)
    if failed and len(failed) == len(shards):
        raise failed[0]
    if files:       # every file is in the lists when every item was: then the count is exact
        whole = out.exact and sum(len(ranked) for ranked, _, _ in out.lists) >= out.bound
        out.lists = [(_files_of(ranked, sh, view if ov is not None else None), sh, ov) for ranked, sh, ov in out.lists]
        out.bound, out.exact = sum(len(ranked) for ranked, _, _ in out.lists), whole
    return out


def _shard_lists(out: Lists, memory: "Memory", sh: "Shard", view: "BranchView | None", text: str, paste: "TB.Paste",
                 kinds: Sequence[str], path_prefix: str, language: str, want: int, filtered: bool) -> None:
    """One shard's lists (and a branch session's overlay list) into ``out``."""
    ov = memory.overlay(sh)
    # the whole fused list (rank.DEEP), so every page is cut from the same memory-steered order
    page = sh.warm.search(text, kinds=tuple(kinds), path_prefix=path_prefix, language=language,
                          limit=max(want, rank.DEEP), offset=0, extra_docs=ov.search_docs())
    out.exact = out.exact and page.total_is_exact
    out.notes_cut = out.notes_cut or page.notes_cut
    out.bound += page.total_or_lower_bound
    code = memory.branch_code(view, sh) if view is not None else None
    sig = signals.ShardSignals(sh, ov, extra=ov.rank_infos) if code is None else \
        signals.BranchSignals(sh, ov, code, extra=ov.rank_infos)
    status = ov.status_of           # None for code: a dict look, cheaper than the row's kind
    out.stamp += ov.records         # the notes this ranking saw (search_docs refreshed them)
    items, served = page.items, None
    if filtered and not (kinds and set(kinds) <= set(S.NOTE_KINDS)):
        items, served = _with_notes(items, sh.warm.search(
            text, kinds=S.NOTE_KINDS, limit=rank.DEEP, offset=0, extra_docs=ov.search_docs()).items)
    live = []
    for it in items:
        counted = served is None or it.id in served     # a steering note was never in the bound
        if it.row >= 0 and status(it.id) not in (None, "active") and sig.kind_of(it.row) in S.NOTE_KINDS:
            out.bound -= counted            # merged, then retracted or superseded since
        elif view is not None and it.row >= 0 and view.hidden(sh, it.row):
            out.bound -= counted            # changed or deleted on the session's branch
        else:
            live.append(it)
    sig.prefetch(live[:rank.RERANK])        # the rows the rerank reads (the rest keep text order)
    # notes lift the code they are about, co-change and imports/tests the strongest files'
    # partners (stratum.rank); a file only another memory found joins unless a filter is set
    ranked = rank.rerank(live, sig, add=not filtered)   # items as candidates
    o = view.of(sh) if view is not None else None
    # a pasted traceback: its frames' definitions first, then what their lines call, as the
    # session sees the files (a changed file's frame is its branch version), under the filters
    located = TB.placed(sh, paste, o, kinds, path_prefix, language)
    # `IntegerConverter`, "fix parse_row on ...", a leading note's code, the frames: first
    ranked = rankplace.in_order(ranked, sig, text, live, [f for f in located if f.shard is sh],
                                dotted=not filtered)
    if view is not None:                    # a hidden file lifted in by co-change or imports
        ranked = [r for r in ranked if not view.hidden(sh, r.row if r.row >= 0 else None)]
    if served is not None:                  # the notes that only steered; the frames passed the filter
        served |= {f.id for f in located if f.shard is sh}
        ranked = [r for r in ranked if r.id in served]
    out.lists.append((ranked, sh, ov))
    if view is not None and o is not None and o.shard is not None:
        mine = view.search_overlay(sh, text, kinds=tuple(kinds), path_prefix=path_prefix, language=language,
                                   limit=max(want, rank.DEEP), offset=0, extra_docs=ov.search_docs())
        out.bound += len(mine)
        # the branch's code reranked among the default branch's candidates, as one index holding
        # it would rank it (those stay in their own list): a note about a function the branch
        # changed lifts the branch's version of it, and a file the branch changed keeps the
        # co-change and import lifts the default branch's strongest files give its path
        head = live[:rank.RERANK]
        notes = [it for it in head if it.row < 0 or sig.kind_of(it.row) in S.NOTE_KINDS]
        ids, base_ids = {it.id for it in notes}, {it.id for it in head}
        own = signals.ShardSignals(o.shard)
        osig = signals.BranchListSignals(own, sig, base_ids, o)
        cands = sorted([*mine, *head], key=_by_score)     # reranked as deep as in the merged list
        theirs = rank.rerank(cands, osig, add=not filtered, depth=branchscore.rerank_depth(cands, live, rank.RERANK))
        theirs = [r for r in theirs if r.id in ids or r.id not in base_ids]     # the notes: dropped below
        frames = [f for f in located if f.shard is o.shard]
        if notes and ranked and theirs and theirs[0].id == ranked[0].id:
            # the note leading both lists leads the merged one: placed with it, the code the
            # query names stays right below it, as in one list (placed after it was dropped,
            # that code rose above it: "named in the query" scores 1 over its own)
            # osig: the notes' hits from the session's signals, the names the overlay's code
            theirs = rankplace.in_order(theirs, osig, text, mine, frames,
                                        lead_note=False, dotted=not filtered)
            theirs = _under_notes(theirs, ids, {r.id: r.score for r in ranked if r.id in ids})
        else:
            if notes:
                theirs = _under_notes(theirs, ids, {r.id: r.score for r in ranked if r.id in ids})
            theirs = rankplace.in_order(theirs, own, text, mine, frames,
                                        lead_note=False, dotted=not filtered)   # a dotted name's node is unchecked by the filter
        out.lists.append((theirs, o.shard, None))


def ends(n_hits: int, notes_cut: bool) -> list[str]:
    """What the last page of a ranking cut at its lists' windows says (a notes-only search's lists
    are as deep as its pages reach, ``HybridSearcher.search``: it never ends so)."""
    said = [f"the ranking ends here ({n_hits} items); more weaker matches exist: narrow the query or "
            "filter by kind, path or language to reach them"]      # not "that is all" (probe P4)
    if notes_cut:       # stronger notes than the last ones shown exist (a fleet probe)
        said.append("more agent notes match than this mixed ranking holds (each list takes only its best "
                    "notes, merged or not, while code fills it): search with "
                    f"kinds={list(S.AGENT_NOTE_KINDS)} to page through them")
    return said


def _files_of(ranked: list[rank.Ranked], sh: "Shard", view: "BranchView | None") -> list[rank.Ranked]:
    """One list read as files, located in its own shard (a branch overlay's list: in the overlay's),
    a default-branch file node the session's branch changed or deleted left out (``view``)."""
    hidden = (lambda row: view.hidden(sh, row)) if view is not None else (lambda row: False)
    return fileview.as_files(ranked, sh, signals.ShardSignals(sh).locate, hidden)


def _by_score(it) -> float:
    return -it.score


def _under_notes(ranked: list[rank.Ranked], notes: set[str], served: dict[str, float]) -> list[rank.Ranked]:
    """A branch's list ranked with the default branch's notes (``ranked``, best first; ``notes``:
    their ids), without those notes, each code item kept below every note that ranked above it
    there, at the score that note is served with (``served``: id -> its score in the default
    branch's list; a note filtered out there holds nothing down). The order the rerank chose
    between a note and the code it explains holds across the two lists: the note whose own words
    the query is stays first, above the branch's code it lifts (a test saw that code served first)."""
    out: list[rank.Ranked] = []
    cap = prev = math.inf
    moved = False                   # an item was held down: the ones after it stay below it
    for r in ranked:
        if r.id in notes:
            cap = min(cap, served.get(r.id, math.inf))
            continue
        if r.score >= cap or (moved and r.score >= prev):
            r.score = min(cap * (1 - 1e-6), prev * (1 - 1e-9))
            moved = True
        prev = r.score
        out.append(r)
    return out


def _with_notes(items: Sequence, notes: Sequence) -> tuple[list, set[str]]:
    """A filtered search's items with the best notes of an unfiltered notes-only search that it
    lacks (at most STEERING_NOTES: more would push the filter's code out of the rerank's window),
    in score order (each list's own fusion: the same scale), and the ids the filter serves."""
    served = {it.id for it in items}
    extra = [it for it in notes if it.id not in served][:STEERING_NOTES]
    if not extra:
        return list(items), served
    return sorted([*items, *extra], key=_by_score), served


__all__ = ["Lists", "scope", "ranked_lists", "ends", "STEERING_NOTES"]
