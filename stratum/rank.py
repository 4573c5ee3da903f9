"""Ranking with every memory: text relevance fused with experience, history and structure.

Text alone decides today's search order (RRF of vector, BM25 and exact-name lists). Half of what
selection needs is elsewhere: notes say where a symptom's cause was, history says which files change
together, the graph says who imports or tests whom. ``rank_files`` scores files; ``rerank`` turns
that into the item order a search answer serves. Both are pure: they read the memories through a
``Signals`` object (``stratum.signals.ShardSignals`` adapts a loaded shard and its notes overlay).

File score (every term is on the scale of the fused text scores, ~1/60 per list):

    S(f) = T(f) + w.symbols * A(f) + w.notes * N(f) + w.mined * M(f) + w.changes * Ch(f)
           + w.cochange * Co(f) + w.graph * G(f) + w.file_text * F(f)

- T: the best code hit in f (a hit on a function counts for its file); what today's ranking uses.
- A: the file's other code hits, the j-th best counting 1/j (several matching functions beat one
  lucky method).
- N, M, Ch: note evidence (agent notes: rca/failure/insight; mined from history: ``fix`` nodes
  for past bug fixes, ``change`` nodes for every other small commit). A matching note passes its
  text score to each file it is about, divided by sqrt(number of files), times its standing:
  active 1, stale (its code in that file changed since) ``w.stale``, superseded ``w.superseded``,
  retracted or orphaned 0. Several notes add, the j-th counting 1/j.
- Co: from the ``w.seeds`` strongest files g (by T + notes), partner f gets
  S0(g) * confidence(g -> f) * support / (support + 2) * 0.5 ** (age / half-life), age counted from
  the newest co-change of g (a relative decay: no wall clock).
- G: the same seeds lift their import and test neighbours by S0(g) / sqrt(number of neighbours), at
  most GRAPH_PARTNERS of them per seed, the most specific first (tests, then the files with the
  fewest edges): at 1M nodes a popular file's hundreds of neighbours each got a sliver of lift and
  made most of a search's ranking work.
- F: a whole-file keyword list (``file_hits``: paths best first, e.g. BM25 over each file's entire
  source), the j-th counting 1 / (60 + j) like one RRF list. Symbol-level lists see a function's
  first lines only; a file whose body as a whole matches the symptom is a different vote. Optional:
  only callers holding such a list pass it (``stratum.filetext``; no shard index holds one yet).

Weights: ``DEFAULT_WEIGHTS`` were fitted by ``benchmarks/retrieval_memory.py --fit`` on the
repositories' own past only: stores at an earlier commit C' (flask and werkzeug 2019-01-01, requests
2015-01-01), 545 commits between C' and the evaluation index commit C, coordinate ascent over a grid
maximising file MRR; nothing after C is read (docs/bench/retrieval.md). ``mined`` (0.25) and
``changes`` (1.5) were refitted for the default day-one memory (fixes + changes) on the mean MRR of
the day-one and all-memories conditions (past 0.629 -> 0.663). On that past, co-change barely moves
MRR (0.05 is within 0.001 of 0: kept small, it re-orders little). ``file_text`` (1.0) was fitted the
same way (grid 0-2): on the past it lifts Acc@5 (day one 0.807 -> 0.835) with MRR flat. The
evaluation window's tables are in docs/bench/retrieval.md. History priors per
file (change and fix counts, recency-decayed: BugLocator-style), test-file rules, other note
weightings and learned (pairwise, listwise) combinations were measured on the same past by
``benchmarks/rank_diagnosis.py`` and not adopted: within noise, or worse held out (same doc).
Every ranked entry carries ``why``: the signals that put it there, short enough for an agent (it
counts in the item's tokens: a plain text hit says "text"; scores are in the item's own field).
Items (``rerank``): a file's best item carries the file's lift, but an agent note about a function,
class or method lends its share to that symbol's item, added if the text list lacks it
(``stratum.ranksymbols``; file scores are the same). An active agent note stays above the files it
lifts, and the one the query matches best of all (its own words, say) stays first; but none ranks
above code of another file that the query's text matches better (``stratum.ranknotes``). An active
agent note that holds a rare word of the query (``search.RARE_ROWS``: ``MAX_CHUNK_SPILL``, or a
prose word few rows hold) and that the keyword list ranks above all code (``SearchItem.rare``) goes
first whatever its fused rank, its why "rare word": RRF gives a keyword rank 1 only 1/61, and a probe
saw such a note 12th-26th below code that matched the query's common subwords (``max``, ``chunk``)
in both lists. A stale one too (a ticket id fell 1st -> 13th when the code changed), its why saying
stale and its lift to its code still counted at its standing; a fresh one before it; a superseded,
retracted or orphaned one never.
"""

from __future__ import annotations

import math
from operator import attrgetter, itemgetter
from dataclasses import dataclass, field, replace
from itertools import islice
from datetime import datetime
from typing import NamedTuple, Protocol, Sequence, cast

from stratum import schema as S
from stratum.noteinfo import AGENT, CHANGES, MINED, NoteInfo   # re-exported: rank's vocabulary
from stratum.ranknotes import RARE_WHY, below_better_code, rare_first     # RARE_WHY: re-exported
from stratum.ranksymbols import EPS, lend_to_symbols, symbol_shares
from stratum.rankwhy import (WHY_REASONS, Ranked, RankedFile,     # the outputs live with the words of their why
                             co_reasons, file_text_reasons, graph_reasons, note_reasons, symbol_reasons)
from stratum.search import RRF_K    # a whole-file list counts like one of the fused text lists

CODE_ITEM_KINDS = ("file", "class", "function", "method")
CO_PARTNERS = 10            # co-change partners read per seed, by confidence (each read ~30 us; weaker ones add ~0)
GRAPH_PARTNERS = 16         # import/test neighbours lifted per seed, the most specific first (Signals.structure
                            # order); a popular file's others would each get < 0.18 of its score x w.graph
DEEP = 150                  # the fused list a search asks for (3 source lists x 50): every page of a query
                            # is cut from the same order
RERANK = 60                 # of it, the candidates the memories rerank; the rest keep their text order
                            # below (chosen on the pasts: depth 150/120/90/60 gave file MRR within 0.003,
                            # docs/bench/retrieval.md; a search at 1M read ~170 files' memories for it)


# ---- inputs ------------------------------------------------------------------------------------
class Candidate(NamedTuple):
    """One hit of the fused text list (``SearchItem`` has these fields)."""
    row: int                # shard row; -1 for an unmerged note
    score: float            # fused text score
    sources: tuple = ()
    id: str = ""
    rare: bool = False      # it holds a rare query word (``search.RARE_ROWS``; ``SearchItem.rare``)


class Scored(Protocol):
    """What ranking reads of a candidate: a ``Candidate``, or the searcher's ``SearchItem`` itself
    (the tool passes its items as they are: a copy of each was ~0.3 us of 150 a search)."""
    @property
    def row(self) -> int: ...
    @property
    def score(self) -> float: ...
    @property
    def id(self) -> str: ...
    @property
    def sources(self) -> tuple: ...
    # optional: rare (bool), it holds a rare query word (``SearchItem.rare``); read of notes only


@dataclass(frozen=True, slots=True)     # slots: one object a hit, read for each candidate of each search
class Hit:
    kind: str
    file: str | None                # the file a code hit belongs to (None: dir, repo, note)
    note: NoteInfo | None = None
    # a note hit's NoteInfo.facts (None: no note), kept in the hit: a search reads ~40 note hits
    # with 10,000 notes, and reaching each one's facts through its NoteInfo (the object, then its
    # attribute dict) was cache misses, ~1 us a note in flow; ranking reads the NoteInfo itself
    # only for a note that is not fresh and for the whys it serves
    facts: tuple | None = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.note is not None:
            object.__setattr__(self, "facts", self.note.facts)


class CoEdge(NamedTuple):
    partner: str
    support: int
    confidence: float               # P(partner changes | this file changes)
    last_time: datetime | None


class Signals(Protocol):
    def hit(self, c: Scored) -> Hit: ...
    def cochange(self, path: str) -> list[CoEdge]: ...
    def structure(self, path: str) -> tuple[int, list[tuple[str, str]]]: ...
    # (how many other files are import/test neighbours, the first GRAPH_PARTNERS of them as
    # (path, edge word), most specific first)
    def locate(self, path: str) -> tuple[str, int] | None: ...      # (node id, row) of a file
    # optional: locate_node(node id) -> (node id, row) of a class, function or method, or None
    # (a symbol a note is about that the text list lacks is added only where the signals have it)


@dataclass(frozen=True)
class Weights:
    """Defaults fitted on the three benchmark repositories' pasts (module docstring)."""
    text: float = 1.0
    symbols: float = 0.25
    notes: float = 1.0
    mined: float = 0.25
    changes: float = 1.5            # fitted with mined on the pasts (grid .25-4; 1.0 is within 0.002 there)
    cochange: float = 0.05
    graph: float = 0.25
    stale: float = 0.5              # standing of a stale note (not fitted: no stale notes in the benchmark)
    superseded: float = 0.2         # standing of a superseded note (retracted, orphaned: 0); not fitted
    file_text: float = 1.0          # the whole-file keyword list, when the caller has one (fitted on the pasts)
    seeds: int = 5
    half_life_days: float = 365.0

    SIGNALS = ("symbols", "notes", "mined", "changes", "cochange", "graph", "file_text")

    def of(self, channel: str) -> float:
        """The weight of a note channel (AGENT, MINED, CHANGES); asked once per note a search, so
        no mapping is built per call (and none kept: ``vars`` of the weights is what is printed)."""
        if channel == AGENT:
            return self.notes
        if channel == MINED:
            return self.mined
        if channel == CHANGES:
            return self.changes
        raise KeyError(channel)

    def only(self, *keep: str) -> "Weights":
        """These weights with every fusion signal but ``keep`` switched off (ablation rows)."""
        bad = [k for k in keep if k not in self.SIGNALS]
        if bad:
            raise ValueError(f"unknown signal(s) {bad}; choose from {self.SIGNALS}")
        off: dict = {s: (getattr(self, s) if s in keep else 0.0) for s in self.SIGNALS}
        return replace(self, **off)


DEFAULT_WEIGHTS = Weights()
TEXT_ONLY = DEFAULT_WEIGHTS.only()


# ---- fusion ------------------------------------------------------------------------------------
def _standing(n: NoteInfo, w: Weights) -> tuple[float, str]:
    if n.status in ("retracted", "orphaned"):
        return 0.0, f"{n.status}: not counted"
    if n.status == "superseded":
        return w.superseded, f"superseded: counted x{w.superseded:g}"
    if n.stale:
        return w.stale, f"{n.stale}: counted x{w.stale:g}"
    return 1.0, ""


_CODE_KINDS = frozenset(CODE_ITEM_KINDS)
_new = object.__new__
_FIRST = itemgetter(0)          # evidence lists sort by score, best first (stable: ties keep their order)
_ID, _SCORE = attrgetter("id"), attrgetter("score")


def _harmonic(ev: Sequence[tuple]) -> float:
    """Sum of the scores of (score, ...) entries sorted best first, the j-th counting 1/j: more
    evidence helps, with diminishing returns."""
    if len(ev) == 1:            # most lists: the same float as the sum (0 + x / 1)
        return 0 + ev[0][0] / 1
    return sum([e[0] / j for j, e in enumerate(ev, 1)])      # a list: the same floats in order, no generator


def rank_files(candidates: Sequence[Scored], signals: Signals, weights: Weights = DEFAULT_WEIGHTS,
               *, limit: int | None = None, file_hits: Sequence[str] = (), depth: int | None = RERANK) -> list[RankedFile]:
    """Files ranked by every memory, best first (ties: path), from the first ``depth`` candidates.
    ``file_hits``: a whole-file keyword list, best first (F in the module docstring)."""
    if depth is not None:
        candidates = candidates[:depth]
    hits = _hits(signals, candidates)
    out = sorted(_rank_files(candidates, hits, _standings(hits, weights), signals, weights, file_hits).values(),
                 key=lambda e: (-e.score, e.path))
    return out[:limit] if limit is not None else out


def _hits(signals: Signals, candidates: Sequence[Scored]) -> list[Hit]:
    """Each candidate's hit, in one call where the signals offer one (``ShardSignals.hit_many``)."""
    many = getattr(signals, "hit_many", None)
    return many(candidates) if many is not None else [signals.hit(c) for c in candidates]


_ACTIVE = (1.0, "")         # _standing of an active note that is not stale


def _standings(hits: Sequence[Hit], w: Weights) -> list[tuple[float, str] | None]:
    """Each candidate's note standing (None: not a note), read once per search; an active, fresh
    note's (most of them) without a call."""
    out: list[tuple[float, str] | None] = []
    for h in hits:
        f = h.facts             # its NoteInfo's: the object itself is not read for a fresh note
        out.append(None if f is None else _ACTIVE if f[0] else _standing(h.note, w))    # type: ignore[arg-type]
    return out


def _parts(files: dict[str, RankedFile], key: str, weight: float, table: dict[str, list], say, notes: bool) -> None:
    """Each file's weighted evidence for one signal (``table``: file -> (score, ...) entries, sorted
    best first here; the j-th counts 1/j, as ``_harmonic`` sums them), its entry made when the file
    has no text hit, and what says it: ``say`` of the best entry's label and the entries' count
    (``notes``), else of the best entry's seed and support or edge word. One call a signal, not one
    a file (~70 files a search)."""
    get = files.get
    for f, ev in table.items():
        e = get(f)
        if e is None:
            e = files[f] = _new(RankedFile)
            e.path, e.score, e.text, e.parts, e.said = f, 0.0, 0.0, {}, {}
        if len(ev) > 1:
            ev.sort(key=_FIRST, reverse=True)
            e.parts[key] = weight * sum([x[0] / j for j, x in enumerate(ev, 1)])
        else:
            e.parts[key] = weight * (0 + ev[0][0] / 1)
        best = ev[0]
        e.said[key] = (say, (best[1], len(ev))) if notes else (say, (best[1], best[2]))


def _rank_files(candidates: Sequence[Scored], hits: Sequence[Hit], stands: Sequence[tuple[float, str] | None],
                signals: Signals, w: Weights, file_hits: Sequence[str],
                lead: dict[str, tuple[float, str]] | None = None, shares: dict | None = None) -> dict[str, RankedFile]:
    """Every file with evidence, by path (unordered: ``rank_files`` sorts, ``rerank`` places by item).
    ``lead``, when given, is filled in the same pass over the candidates: file -> (own score, id) of
    the active agent note about it that matches the query best (ties: the earlier candidate);
    ``shares``, when given and some agent note is about a symbol (``NoteInfo.nodes``), with the shares
    of their files' lift those symbols take (``ranksymbols.symbol_shares``; else it stays empty)."""
    # file entries are made as RankedFile(f, 0.0, 0.0, {}, {}) would make them, without its __init__
    # (a Python call for each of ~60-170 files a search); a code file's entry when its first code hit
    # is met (its score held in .score until the last loop sets it), the files with several hits
    # gathered apart
    files: dict[str, RankedFile] = {}
    get = files.get
    multi: dict[str, list[tuple[float]]] = {}
    # file -> [(share, (note id, its Hit, standing's why)[, its symbols_at entry]), ...] per channel
    notes: dict[str, dict[str, list[tuple]]] = {AGENT: {}, MINED: {}, CHANGES: {}}
    symbolic = False                            # an agent note about a symbol is among the hits
    for c, h, st in zip(candidates, hits, stands):
        if st is not None:                      # a note (_standings)
            stand, note_why = st
            _, mined, its_files, about, root, channel, syms, _, _ = h.facts     # type: ignore[misc]
            if lead is not None and not mined:
                if syms is not None:
                    symbolic = True
                own = c.score * stand
                if own > 0:
                    for f in its_files:
                        if f and (f not in lead or own > lead[f][0]):
                            lead[f] = (own, c.id)
            if not about:
                continue
            share = c.score * stand / root
            label = (c.id, h, note_why)         # formatted only for a file's best note (note_reasons)
            by_file = notes[channel]
            if syms is None:
                for f in about:
                    ev = by_file.get(f)
                    if ev is None:
                        by_file[f] = [(share, label)]
                    else:
                        ev.append((share, label))
            else:       # an agent note about symbols: its symbols in each file ride with its evidence
                for f, sy in zip(about, syms):
                    ev = by_file.get(f)
                    if ev is None:
                        by_file[f] = [(share, label, sy)]
                    else:
                        ev.append((share, label, sy))
            for f in cast(NoteInfo, h.note).fresh_at if note_why else ():    # stale, not there (stratum.targetstale)
                by_file[f][-1] = (c.score / root, (c.id, h, ""), *by_file[f][-1][2:])
            for f, flags in cast(NoteInfo, h.note).split if note_why else ():     # stale on some targets there
                by_file[f][-1] = _apart(by_file[f][-1], flags, c.score / root, stand, cast(NoteInfo, h.note), f)
        elif h.file and h.kind in _CODE_KINDS:
            f = h.file
            e = get(f)
            if e is None:
                e = files[f] = _new(RankedFile)
                e.path, e.score, e.text, e.parts, e.said = f, c.score, w.text * c.score, {}, {}
            else:
                sym = multi.get(f)
                if sym is None:
                    multi[f] = [(e.score,), (c.score,)]
                else:
                    sym.append((c.score,))
    for f, sym in multi.items():        # T is the best hit, the others count as symbols
        e = files[f]
        sym.sort(key=_FIRST, reverse=True)
        e.text = w.text * sym[0][0]
        if w.symbols:
            e.parts["symbols"] = w.symbols * _harmonic(sym[1:])
            e.said["symbols"] = (symbol_reasons, (len(sym),))
    for key, part in ((AGENT, "notes"), (MINED, "mined"), (CHANGES, "changes")):
        weight = w.of(key)
        if not weight:
            continue
        _parts(files, part, weight, notes[key], note_reasons, True)       # sorts each file's evidence
        if key == AGENT and symbolic and shares is not None:
            # read now, while the evidence just summed is in cache (a pass of its own in
            # lend_to_symbols met each note's objects cold: ~0.1 ms a search with 10,000 notes)
            shares.update(symbol_shares(notes[AGENT], weight))
    if w.cochange or w.graph:
        # T + note evidence (a file with no parts: the same float as the sum, text + 0.0)
        base = {}
        for f, e in files.items():
            parts = e.parts         # the note channels' parts, missing ones 0.0, summed in this order
            base[f] = e.text + sum((parts.get("notes", 0.0), parts.get("mined", 0.0), parts.get("changes", 0.0))) if parts \
                else e.text + 0.0
        seeds = _seeds(base, w.seeds)
        terms = getattr(signals, "cochange_terms", None)
        # file -> (lift, seed, support or edge word); the reason strings are made for a file's best only
        co: dict[str, list[tuple]] = {}
        gr: dict[str, list[tuple]] = {}
        for g in seeds:
            s0 = base[g]
            if s0 <= 0:
                continue
            if w.cochange:
                for p, conf, sup, decay in (terms(g, w.half_life_days) if terms is not None else
                                            co_terms(signals.cochange(g), w.half_life_days)):
                    lift = s0 * conf * sup / (sup + 2.0) * decay
                    if lift > 0 and p != g:
                        co.setdefault(p, []).append((lift, g, sup))
            if w.graph:
                n_nbrs, nbrs = signals.structure(g)
                each = s0 / math.sqrt(n_nbrs) if n_nbrs else 0.0
                for p, k in nbrs[:GRAPH_PARTNERS]:
                    gr.setdefault(p, []).append((each, g, k))
        for key, weight, table, say in (("cochange", w.cochange, co, co_reasons), ("graph", w.graph, gr, graph_reasons)):
            _parts(files, key, weight, table, say, False)
    if w.file_text:
        for j, f in enumerate(dict.fromkeys(file_hits), 1):
            e = get(f)
            if e is None:
                e = files[f] = _new(RankedFile)
                e.path, e.score, e.text, e.parts, e.said = f, 0.0, 0.0, {}, {}
            e.parts["file_text"] = w.file_text / (RRF_K + j)
            e.said["file_text"] = (file_text_reasons, (j,))
    for e in files.values():
        p = e.parts
        e.score = e.text + sum(p.values()) if p else e.text + 0       # + 0: the sum of no parts
    return files


def _apart(entry: tuple, flags: tuple[bool, ...], whole: float, stand: float, note: NoteInfo, path: str) -> tuple:
    """A stale note's evidence ``entry`` in a file where only some of its targets changed (``flags``,
    ``NoteInfo.split``), each target's part (``whole`` over their count there) counted by its own
    standing, as ``get`` judges each item: its symbols' parts ride in the entry's symbols entry with
    their own labels (an unchanged one fresh, ``ranksymbols.symbol_shares``), and the file's label
    says the mix ("counted x0.75": one of two changed; the file is stale as ``get`` of it says, a
    target there having changed)."""
    n = len(flags)
    k = sum([stand if ch else 1.0 for ch in flags]) / n
    nid, h, _ = entry[1]
    label = (nid, h, f"{note.stale}: counted x{round(k, 2):g}")
    sy = entry[2] if len(entry) > 2 else None
    here = [i for i, p in note.nodes if p == path]
    if sy is None or len(here) != n:        # no symbol here (or targets the nodes do not match): the file's part
        return (whole * k, label, *entry[2:])
    fresh, unit = (nid, h, ""), whole / n
    per = tuple((unit * (stand if ch else 1.0), entry[1] if ch else fresh) for i, ch in zip(here, flags) if i)
    # what the file keeps when its symbols took theirs: its whole-file targets' parts, said by theirs
    rest = [ch for i, ch in zip(here, flags) if not i]
    kept = entry[1] if rest and all(rest) else fresh if rest and not any(rest) else label
    return (whole * k, label, (sy[0], sy[1], per, kept))


def _seeds(base: dict[str, float], k: int) -> list[str]:
    """The ``k`` files of highest ``base`` score (ties: path), best first: ``sorted(base, key=(-score,
    path))[:k]``, keyed only among the files scoring at least the k-th best score (a key tuple for
    each of ~170 files was most of picking 5)."""
    if k <= 0:
        return []
    if len(base) > k:
        cut = sorted(base.values(), reverse=True)[k - 1]
        base = {f: v for f, v in base.items() if v >= cut}
    return sorted(base, key=lambda f: (-base[f], f))[:k]


def co_terms(edges: Sequence[CoEdge], half_life_days: float) -> list[tuple[str, float, int, float]]:
    """(partner, confidence, support, recency decay) of a seed's co-change edges: the decay is
    0.5 ** (age / half-life), age counted from the seed's newest co-change. Per seed, not per search
    (``ShardSignals.cochange_terms`` keeps them: the date arithmetic was a third of rank_files)."""
    newest = max((x.last_time for x in edges if x.last_time), default=None)
    out = []
    for x in edges:
        decay = 1.0
        if newest and x.last_time and half_life_days > 0:
            age = (newest - x.last_time).total_seconds() / 86400.0
            decay = 0.5 ** (age / half_life_days)
        out.append((x.partner, x.confidence, x.support, decay))
    return out


def rerank(candidates: Sequence[Scored], signals: Signals, weights: Weights = DEFAULT_WEIGHTS,
           *, limit: int | None = None, add: bool = True, file_hits: Sequence[str] = (),
           depth: int | None = RERANK) -> list[Ranked]:
    """The search items in fused order: a file's best code item gains the file's non-text lift, notes keep
    their text score, and a file lifted by another memory but absent from the text list is added
    (``added``; not when ``add`` is False, e.g. under a kind or path filter the file may not pass),
    so a note or a co-change partner can bring its code to the answer. An agent note about a symbol
    lends its share to that symbol's item instead (``stratum.ranksymbols``). Candidates past ``depth``
    keep their text score and say "text" (no memory is read for them)."""
    tail: Sequence[Scored] = ()
    if depth is not None and len(candidates) > depth:
        candidates, tail = candidates[:depth], candidates[depth:]
    hits = _hits(signals, candidates)
    stands = _standings(hits, weights)
    # by path, unordered: every entry below is placed by (score, id) at the end
    lead: dict[str, tuple[float, str]] = {}
    lifts: dict[str, list] = {}
    ranked = _rank_files(candidates, hits, stands, signals, weights, file_hits, lead, lifts)
    # note id -> the best score of the files it leads (what its item is kept above)
    led: dict[str, float] = {}
    for f, (_, nid) in lead.items():
        e = ranked.get(f)
        if e is not None and (nid not in led or e.score > led[nid]):
            led[nid] = e.score
    # entries are made without Ranked.__init__ (object.__new__ and the six slots: the Python call was
    # ~0.2 us of each of ~200 entries a search); the same objects as Ranked(...) gives
    out: list[Ranked] = []
    seen_files: dict[str, int] = {}     # path -> its best or added item's position (ranksymbols edits it)
    at: list[int] = []                  # the positions of the code items of symbols in ``lifts``
    whys: dict = {}             # (plain why, standing's why) -> a note's why
    agent_at, agent_t = [], []  # the agent notes' positions and text scores (ranknotes.below_better_code)
    rare_at: list[int] = []     # the active agent notes holding a rare query word: first (rare_first)
    stale_at: set[int] = set()  # those of them that are stale
    code_at, code_t = [], []    # the code items'
    of = {AGENT: weights.notes, MINED: weights.mined, CHANGES: weights.changes}     # Weights.of, as a look
    for c, h, st in zip(candidates, hits, stands):
        if st is not None:
            stand, note_why = st
            _, mined, _, _, _, channel, _, root, why = h.facts      # type: ignore[misc]
            # a note ranks with the evidence it lends its files, so it stays just above the code it
            # explains (unless that code matches the query better on its own); an agent note stays
            # above its file however much else (mined history, co-change) lifts that file: it is the
            # explanation the agent should read first. Mined notes do not (thousands would crowd code).
            rare = not mined and getattr(c, "rare", False) and (
                st is _ACTIVE or cast(NoteInfo, h.note).status == "active")
            # a rare-word note (rare_first) scores as a fresh one: a stale one first at just above
            # this list's best capped, there, a branch session's code it lifts in the branch's list
            # (merged by score: searchlists._under_notes) under that best item (test_branch_lift);
            # the lift it lends its files is counted at its standing (rank_files) all the same
            own = 1.0 if rare else stand
            lent = of[channel] * c.score * own / root
            if note_why:
                key = (why, note_why)
                got = whys.get(key)
                if got is None:
                    got = whys[key] = f"{why}; {note_why}"
                why = got
            score = c.score * own + lent or c.score * 1e-3
            if rare:
                # first, so no code holds it down; a stale one too (its own word is the user's way
                # to it: a ticket id fell 13th), its why saying stale
                rare_at.append(len(out))
                if st is not _ACTIVE:
                    stale_at.add(len(out))
            elif not mined:
                agent_at.append(len(out))
                agent_t.append(c.score)
            if not mined and stand > 0:      # the best-matching agent note of each file only: the
                # others about the same file keep their own order (else every note about a lifted
                # file ties at the file's score and the one the query names is lost among them)
                top = led.get(c.id)
                if top is not None:
                    score = max(score, own * top * (1 + 1e-6))
                elif score < 0:             # max(score, stand * 0.0 ...), without the call
                    score = 0.0
            r = _new(Ranked)
            r.id, r.row, r.score, r._why, r.file, r.added = c.id, c.row, score, why, None, False
            out.append(r)
            continue
        # the file's best item carries the file's lift (it must not fill a page alone); its why,
        # "text; <the file's lift_why>", is formatted if it is read
        path = h.file
        fe: RankedFile | None = None
        if path and path not in seen_files:
            seen_files[path] = len(out)
            fe = ranked.get(path)
        lift = (fe.score - fe.text) if fe is not None else 0.0
        if lifts and c.id in lifts:         # a symbol an agent note is about (ranksymbols)
            at.append(len(out))
        if h.kind in _CODE_KINDS:
            code_at.append(len(out))
            code_t.append(c.score)
        r = _new(Ranked)
        r.id, r.row, r.score, r.file, r.added = c.id, c.row, c.score + lift, path, False
        r._why = fe if fe is not None and lift > 0 else "text"
        out.append(r)
    if add:
        # a file lending to its symbols' items ranks its added item after the move: one left at EPS
        # or less is float noise (ranksymbols), so none at or below it is added when some do
        floor = EPS if lifts else 0.0
        todo = [(p, e) for p, e in ranked.items() if e.text <= 0 and e.score > floor and p not in seen_files]
        many = getattr(signals, "locate_many", None)
        locs = many([p for p, _ in todo]) if many is not None else [signals.locate(p) for p, _ in todo]
        for (path, e), loc in zip(todo, locs):
            if loc is not None:
                r = _new(Ranked)
                r.id, r.row, r.score, r._why, r.file, r.added = loc[0], loc[1], e.score, e, path, True
                seen_files[path] = len(out)
                out.append(r)
    # a note about a symbol lends its share to that symbol's item, bringing it in if need be
    taken = lend_to_symbols(out, candidates, hits, tail, ranked, lifts, signals, add, seen_files, at) if lifts else ()
    if stands and stands[0] is _ACTIVE and not cast(NoteInfo, hits[0].note).mined:
        # the query's best text match is an active agent note (its own words, say): it stays first,
        # above the files it and mined history lift (a probe saw its rca note 3rd-6th)
        best = max(map(_SCORE, islice(out, 1, None)), default=0.0)
        if best >= out[0].score:
            out[0].score = best * (1 + 1e-6)
    if agent_at and code_at:
        below_better_code(out, hits, agent_at, agent_t, code_at, code_t)
    if rare_at:
        rare_first(out, rare_at, stale_at)
    if tail:
        # a node both added and in the tail: once (the candidates' own items, first in out, are not added)
        added = {r.id for r in islice(out, len(candidates), None) if r.added}.union(taken)
        for c in tail:
            if c.id not in added:
                r = _new(Ranked)
                r.id, r.row, r.score, r._why, r.file, r.added = c.id, c.row, c.score, "text", None, False
                out.append(r)
    # by score, best first, then id: two stable sorts (of plain keys) order as one by (-score, id)
    out.sort(key=_ID)
    out.sort(key=_SCORE, reverse=True)
    return out[:limit] if limit is not None else out


def candidates_of(items) -> list[Candidate]:
    """Search items (``SearchItem`` or anything with row, score, sources, id) as candidates."""
    return [Candidate(int(i.row), float(i.score), tuple(getattr(i, "sources", ()) or ()), i.id,
                      bool(getattr(i, "rare", False))) for i in items]


__all__ = ["Candidate", "Scored", "NoteInfo", "Hit", "CoEdge", "Signals", "Weights", "DEFAULT_WEIGHTS", "TEXT_ONLY",
           "RankedFile", "Ranked", "rank_files", "rerank", "candidates_of", "RERANK", "DEEP", "RARE_WHY"]
