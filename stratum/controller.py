"""The per-session context controller: what is in the agent's context (the hot tier), and what
gives way when the session's token budget runs short.

Pure and in-process: no I/O. Graph facts arrive through the small :class:`GraphView` callback
interface (``stratum.graphview``: a shard implements it over its warm adjacency;
:class:`RecordGraph` implements it over plain node/edge records). Every tool response that puts
content into the agent's context calls :meth:`Controller.admit` first; the evictions it returns go
into the response envelope.

Rules (docs/controller.md has the worked details):

- The budget keeps a reserve of ``ceil(reserve_fraction * limit)`` tokens (15% by default). An
  admission that would leave less free than the reserve evicts first; leaving exactly the reserve
  free does not evict.
- Victims are chosen by the pluggable :class:`~stratum.policies.Policy` (S(v) or LRU); pinned
  entries and the entries being admitted are never victims.
- If the request cannot fit in the limit even after evicting everything the policy may evict,
  :class:`~stratum.errors.BudgetExceeded` is raised and nothing changes (no silent overrun). If it
  fits the limit but not the reserve, it is admitted and the result says how far short it is.
  ``admit(..., prefix=True)`` (a page cut to the budget) admits the leading items that fit instead,
  in the same lock, and says how many (``count``).
- Focus (the files being edited) is set explicitly, hinted by a prefetch until the next full-level
  read, or inferred from the last file (or symbol's file; ``max_inferred_focus`` of them) admitted
  at full level (``stratum.focusset``). An explicit focus wins while set.
  What it reaches in the graph (the G and C signals' facts) is ``stratum.focusreach``'s.
- Access history: each access adds 1 to a node's count, which halves every ``half_life`` calls (one
  call = one ``admit`` or ``touch``) or seconds (``now`` clock), per ``half_life_unit``.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from stratum.budgetadvice import last_resort_note, overrun_message, reserve_note
from stratum.controlvalues import Admitted, AdmitResult, ControllerConfig, PlannedItem, PrefetchPlan
from stratum.envelope import Budget, Eviction
from stratum import delivery
from stratum.errors import Abandoned, BudgetExceeded, InvalidArgument, NotFound
from stratum.focusreach import Focus, reach
from stratum.focusset import FocusSet
from stratum.graphview import GraphView, RecordGraph
from stratum.pinnames import PinNames
from stratum.policies import DEFAULT_WEIGHTS, RANK, Policy, ScorePolicy, Signals
from stratum.schema import LEVELS, RANGE_MARK


@dataclass
class _Entry:
    level: str
    tokens: int           # all it holds: ``older`` included
    last_access: int
    extra: int = 0        # tokens of what travels with the node at every level (its attached notes)
    version: str = ""     # the node's version held (its content hash; "" unknown: any version is this one)
    older: int = 0        # tokens of another version read before, still in the agent's context until demoted


_HIST_PRUNE_AT = 4096

# ---- the controller ------------------------------------------------------------------------------

class Controller:
    """One session's hot tier. Thread-safe; shares no state with other instances."""

    def __init__(self, budget_tokens: int, policy: Policy | None, graph: GraphView, *,
                 config: ControllerConfig | None = None, now: Callable[[], float] = time.monotonic):
        """``policy`` None means ``ScorePolicy()``; ``now`` is the clock of a seconds half-life."""
        if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int) or budget_tokens <= 0:
            raise InvalidArgument(f"the session budget must be a positive number of tokens, got {budget_tokens!r}")
        if graph is None:
            raise InvalidArgument("the controller needs a GraphView")
        self.limit = budget_tokens
        self.policy: Policy = policy if policy is not None else ScorePolicy()
        self.graph = graph
        self.config = config or ControllerConfig()
        self.reserve = math.ceil(self.limit * self.config.reserve_fraction - 1e-9)
        self._now = now
        self._lock = threading.RLock()
        self._entries: dict[str, _Entry] = {}
        self._used = 0
        self._pins: set[str] = set()
        self._named = PinNames()     # what the agent called each pin; those the served version lacks
        self._focusset = FocusSet(self.config.max_inferred_focus)
        self._hist: dict[str, tuple[float, float]] = {}   # node -> (count at time t, t)
        self._prune_at = _HIST_PRUNE_AT
        self._seq = 0          # access sequence (LRU order)
        self._calls = 0        # admit/touch calls (history clock in "calls" mode)
        self._file_cache: dict[str, str | None] = {}
        self._focus_cache: Focus | None = None
        self._stats = {"admits": 0, "items": 0, "hits": 0, "tokens_admitted": 0, "evictions": 0,
                       "tokens_freed": 0}

    # ---- public API ----------------------------------------------------------------------------
    def admit(self, items: Iterable[Sequence], *, infer_focus: bool = True, prefix: bool = False) -> AdmitResult:
        """Record that a response is about to put ``items`` ((node_id, level, tokens) each) into
        the agent's context; evict or demote first if the free budget would fall below the reserve.
        An item may carry a fourth value, ``extra``: the part of ``tokens`` that travels with the node
        at every level (the notes attached to it), kept in its cost when it is demoted; and a fifth,
        ``version``: which version of the node it is (its content hash; "" or absent: unknown).

        Held at a higher level, or at that level at the same size, an item adds nothing (``already``);
        another size is new content (a re-indexed function went uncharged: a probe), and so is another
        version, whole (``_adds``). ``infer_focus``:
        a full-level file or symbol joins the inferred focus. BudgetExceeded (nothing changed): no fit.

        With ``prefix`` (a page cut to the budget), admits the leading items up to the first one
        that would not fit, and ``count`` says how many: BudgetExceeded only if not even the first
        one fits. The run is found and admitted under one lock, so no other call can change it.
        """
        with self._lock:
            rows = self._validate(items)
            n = self._leading_fit(rows, infer_focus) if prefix else len(rows)
            # not even the first fits: admitting it alone raises the usual BudgetExceeded
            run = rows[:max(n, 1)]
            batch = self._merge(run)
            focus_files = self._focus_files_after(batch) if infer_focus else self.focus_files()
            focus = self._focus_info(focus_files)
            adds: list[Admitted] = []
            already: list[str] = []
            new: dict[str, _Entry] = {}
            carried = 0         # of what the adds add, the tokens of notes not held already (``_overrun_message``)
            for nid, (lvl, tok, extra, ver) in batch.items():
                added = self._adds(nid, lvl, tok, ver)
                if added is None:
                    already.append(nid)
                else:
                    e, new[nid] = self._entries.get(nid), self._held(nid, lvl, tok, extra, ver)
                    adds.append(Admitted(nid, lvl, new[nid].tokens, e.level if e else None, added))
                    held = e.extra if e is not None and not _other_version(e, ver) else 0
                    carried += min(added, max(0, extra - held))
            delta = sum(a.tokens_added for a in adds)
            need = self.reserve - (self.limit - self._used - delta)
            steps: list[tuple[Signals, str | None, int]] = []
            freed = 0
            if need > 0:
                steps, freed = self._plan(need, exclude=set(batch), focus=focus,
                                          need_limit=self._used + delta - self.limit)
                over = self._used + delta - freed - self.limit
                if over > 0:
                    raise BudgetExceeded(self._overrun_message(delta, freed, over, adds, page=prefix, notes=carried))
            if not delivery.awaited():      # the caller is gone: nothing charged, nothing evicted
                raise Abandoned("the caller stopped waiting (deadline or cancel) before this answer was "
                                "admitted; nothing was charged to the session")
            # commit: nothing above changed state
            self._calls += 1
            if infer_focus:
                self._focusset.push(self._full_files(batch))
            evictions = self._apply(steps)
            for a in adds:
                self._entries[a.node_id] = new[a.node_id]
                self._used += a.tokens_added
                if a.node_id.partition(RANGE_MARK)[0] in self._pins:
                    # lines of a pinned node read after the pin are pinned too (they were evicted,
                    # "focus neighbour dropped", by the next read of the pinned file: a probe)
                    self._pins.add(a.node_id)
            for nid in batch:
                self._record_access(nid)
            self._stats["admits"] += 1
            self._stats["items"] += len(batch)
            self._stats["hits"] += len(already)
            self._stats["tokens_admitted"] += delta
            free = self.limit - self._used
            short = max(0, self.reserve - free)
            # the focus files' own entries (their lines read) are not "neighbours" (a probe)
            notes = [last_resort_note({s.hops for s, to, _ in steps if s.focus_neighbour and to != "api"}
                                      if isinstance(self.policy, ScorePolicy) else set())]
            if short:
                pinned = self._pinned_tokens()
                mine = sum(self._entries[n].tokens for n in batch if n not in self._pins)
                notes.append(reserve_note(free, short, self.reserve, pinned, mine, self._used - pinned - mine,
                                          self.policy.name))
            warning = "; ".join(n for n in notes if n) or None
            return AdmitResult(adds, already, evictions, self.budget(), short, warning, len(run))

    def touch(self, node_id: str) -> None:
        """Record an access to ``node_id`` (in context or not) without adding content."""
        with self._lock:
            self._calls += 1
            self._record_access(node_id)

    def set_focus(self, refs: Iterable[str]) -> list[str]:
        """Set the files being edited (paths or node ids; a symbol stands for its file). An empty
        list clears the explicit focus and falls back to the prefetch's or the inferred one. Returns the focus."""
        with self._lock:
            self._focusset.explicit = self._focus_refs(refs)
            return list(self.focus_files())

    def hint_focus(self, refs: Iterable[str]) -> list[str]:
        """The files about to be edited (a prefetch's): the focus until the next file or symbol
        admitted at full level, or the next hint; an explicit focus wins. Returns the focus."""
        with self._lock:
            self._focusset.hint = self._focus_refs(refs)
            return list(self.focus_files())

    def _focus_refs(self, refs: Iterable[str]) -> tuple[str, ...]:
        files: list[str] = []
        for ref in refs:
            f = self._file(ref) or self.graph.file_id(ref)
            if f is None:
                raise NotFound(f"cannot focus on {ref!r}: no such file or node in this repository")
            if f not in files:
                files.append(f)
        return tuple(files)

    def set_graph(self, graph: GraphView) -> None:
        """Serve the session from another graph (a newly published version); ids are stable, so
        entries, pins and history carry over; cached graph facts are dropped."""
        with self._lock:
            self.graph = graph
            self._file_cache.clear()
            self._focus_cache = None

    def focus_files(self) -> tuple[str, ...]:
        """The effective focus: the explicit one if set, else the prefetch's, else the inferred one (oldest first)."""
        return self._focusset.files()

    def pin(self, node_id: str, names: Iterable[str] = ()) -> bool:
        """Never evict ``node_id`` (in context now or when admitted later), nor the lines of it held
        or read later (pinning a file left the lines just read of it to eviction: a probe). True if
        newly pinned. ``names``: what the agent called it, kept for ``pinned_as``."""
        with self._lock:
            new = node_id not in self._pins
            self._pins.add(node_id)
            self._pins.update(self._ranges(node_id))
            self._named.add(node_id, names)
            return new

    def unpin(self, node_id: str) -> bool:
        """Make ``node_id`` (and the lines of it held) evictable again. True if it was pinned."""
        with self._lock:
            was = node_id in self._pins
            self._pins.discard(node_id)
            self._pins.difference_update(self._ranges(node_id))
            self._named.drop(node_id)
            return was

    def pinned(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._pins)

    def pinned_as(self, name: str) -> str | None:
        """The pinned node the agent called ``name`` (``stratum.pinnames``): a deleted one has no node to look up."""
        with self._lock:
            return self._named.find(name, self._pins)

    def mark_gone(self, present: Callable[[str], bool], every: bool = False) -> list[dict]:
        """Mark the pins the served version lacks (not ``present``); ``status`` lists them (``pins_gone``).
        The newly gone (``every``: all), for the answer to say (``PinNames.info``: id, name pinned, tokens held)."""
        with self._lock:
            new = self._named.mark(self._pins, present)
            return [self._named.info(n, self._entries) for n in (sorted(self._named.gone) if every else new)]

    def _ranges(self, node_id: str) -> list[str]:      # its line-range entries held (``<id>#L<a>-<b>``)
        return [n for n in self._entries if n.startswith(node_id + RANGE_MARK)]

    def budget(self) -> Budget:
        return Budget(self.limit, self._used, self.limit - self._used)

    def level_of(self, node_id: str) -> str | None:
        """The level at which ``node_id`` is in context, or None."""
        e = self._entries.get(node_id)
        return e.level if e else None

    def free(self) -> int:
        """Tokens free above the reserve: what a prefetch may add without evicting anything."""
        return max(0, self.limit - self._used - self.reserve)

    def headroom(self) -> int:
        """Most tokens one admission could add now without exceeding the limit (after evicting all
        the policy may evict). Tools use it to pick a detail level or a page size that fits."""
        with self._lock:
            focus = self._focus_info(self.focus_files())
            return self.limit - self._used + sum(self._freeable(self._signals(n, e, focus))
                                                 for n, e in self._entries.items() if n not in self._pins)

    def status(self) -> dict:
        """Budget, focus, pins and every entry with its level, tokens, score and signals."""
        with self._lock:
            focus = self._focus_info(self.focus_files())
            rows: list[dict] = []
            for nid, e in self._entries.items():
                s = self._signals(nid, e, focus)
                rows.append({"node_id": nid, "level": e.level, "tokens": e.tokens,
                             "score": round(self.policy.score(s), 6),
                             "signals": {"G": round(s.g, 6), "C": round(s.c, 6), "H": round(s.h, 6),
                                         "P": s.p},
                             "pinned": nid in self._pins, "in_focus": s.hops == 0,
                             "focus_neighbour": s.focus_neighbour, "last_access": e.last_access})
            rows.sort(key=lambda r: (-r["score"], r["node_id"]))
            return {"policy": self.policy.name,
                    "budget": {**dataclasses.asdict(self.budget()), "reserve": self.reserve},
                    "reserve_fraction": self.config.reserve_fraction,
                    "focus": {"files": list(focus.files), "source": self._focusset.source()},
                    "pins": sorted(self._pins), "entries": rows, "stats": dict(self._stats),
                    "pins_gone": [self._named.info(n, self._entries) for n in sorted(self._named.gone & self._pins)]}

    def prefetch_plan(self, focus: Iterable[str] | None = None, budget: int | None = None, *,
                      extra: Callable[[str], int] | None = None,
                      version: Callable[[str], str] | None = None) -> PrefetchPlan:
        """A working set to warm for ``focus`` (default: the current focus): the focus files and
        their imports/tests neighbours and co-change partners, best S(v) first, each at api level
        (summary if api does not fit), within ``budget`` tokens, never over the free room above the
        reserve (``free``, the default), each item at its whole cost (what the answer returns; with
        ``extra(node_id)``, its attached notes). The focus files first: each at its cheapest level, then at api
        where it fits, then the rest (a fill in S(v) order passed over a focus file too large and
        served six unrelated small files: a probe); ``unfit``: the focus files that fit at no level,
        at their cheapest, and ``before``: what the focus files ranked before each took.
        Nodes held at that level (of that ``version(node_id)``) are skipped. No state changes."""
        with self._lock:
            if focus is None:
                files = self.focus_files()
            else:
                files = tuple(dict.fromkeys(f for ref in focus
                                            if (f := self._file(ref) or self.graph.file_id(ref))))
            if budget is not None and budget < 0:
                raise InvalidArgument(f"prefetch budget must be >= 0, got {budget}")
            # never more than the free room above the reserve: a prefetch warms the working set, it
            # does not evict it (a budget over the session's evicted and demoted what it had just
            # warmed: a probe)
            left = self.free() if budget is None else min(budget, self.free())
            info = self._focus_info(files)
            cands = {f for f, hops in info.hops.items() if hops <= 1} | set(info.affinity)
            scorer = self.policy if isinstance(self.policy, ScorePolicy) else ScorePolicy(DEFAULT_WEIGHTS)
            ranked = sorted(((scorer.score(self._signals(n, self._entries.get(n) or _Entry("summary", 0, 0), info)), n)
                             for n in cands), key=lambda t: (-t[0], t[1]))
            held = {n: e for n in cands if (e := self._entries.get(n)) and not (version and _other_version(e, version(n)))}
            # each (level, whole cost), api first: the whole item is sent (the agent reads it all), so all
            # of it counts against the budget, not only what it adds to a copy held (that overshot by ~10%)
            carried = {n: extra(n) if extra is not None else 0 for _, n in ranked}    # once a node, not a level
            opts = {n: [(lvl, tok + carried[n]) for lvl in ("api", "summary")
                        if (tok := self.graph.levels(n).get(lvl)) is not None
                        and not (n in held and RANK[held[n].level] >= RANK[lvl])] for _, n in ranked}
            top = [n for _, n in ranked if n in files]
            pick: dict[str, tuple[str, int]] = {}
            before: dict[str, int] = {}             # what the focus files ranked before each took
            for n in top:                            # each focus file at its cheapest level first
                if opts[n]:
                    before[n] = sum(t for _, t in pick.values())
                    cheap = min(opts[n], key=lambda o: o[1])
                    if cheap[1] <= left:
                        pick[n] = cheap
                        left -= cheap[1]
            for n in top + [n for _, n in ranked if n not in files]:    # then the largest level that fits
                for lvl, tok in opts[n]:
                    if n in pick and pick[n][0] == lvl:
                        break
                    if tok - (pick[n][1] if n in pick else 0) <= left:
                        left -= tok - (pick[n][1] if n in pick else 0)
                        pick[n] = (lvl, tok)
                        break
            return PrefetchPlan([PlannedItem(n, *pick[n], round(sc, 6)) for sc, n in ranked if n in pick],
                                [PlannedItem(n, *min(opts[n], key=lambda o: o[1]), round(sc, 6)) for sc, n in ranked
                                 if n in files and n not in pick and opts[n] and n not in held], before)

    # ---- internals -----------------------------------------------------------------------------
    def _validate(self, items: Iterable[Sequence]) -> list[tuple[str, str, int, int, str]]:
        rows: list[tuple[str, str, int, int, str]] = []
        for it in items:
            try:
                nid, lvl, tok, *rest = it
                extra = int(rest[0]) if rest else 0
                ver = rest[1] if len(rest) > 1 else ""
                if len(rest) > 2 or not 0 <= extra <= tok or not isinstance(ver, str):
                    raise ValueError(it)
            except (TypeError, ValueError):
                raise InvalidArgument(f"admit items are (node_id, level, tokens[, extra <= tokens[, version]]), "
                                      f"got {it!r}") from None
            if lvl not in RANK:
                raise InvalidArgument(f"unknown detail level {lvl!r}; choose one of {', '.join(LEVELS)}")
            if isinstance(tok, bool) or not isinstance(tok, int) or tok < 0:
                raise InvalidArgument(f"tokens of {nid} must be an int >= 0, got {tok!r}")
            rows.append((nid, lvl, tok, extra, ver))
        return rows

    @staticmethod
    def _merge(rows: Sequence[tuple[str, str, int, int, str]]) -> dict[str, tuple[str, int, int, str]]:
        """One entry per node: its highest level asked (the first of equal ones)."""
        batch: dict[str, tuple[str, int, int, str]] = {}
        for nid, lvl, tok, extra, ver in rows:
            old = batch.get(nid)
            if old is None or RANK[lvl] > RANK[old[0]]:
                batch[nid] = (lvl, tok, extra, ver)
        return batch

    def _leading_fit(self, rows: Sequence[tuple[str, str, int, int, str]], infer_focus: bool) -> int:
        """How many leading rows one admission can hold: up to the first row that takes the request
        past the limit after every eviction the policy allows (as ``admit`` decides it: the reserve
        may fall short). One pass: what an entry can free depends only on its ladder, and that only
        on the focus, so the run's own entries (never their own victims) are taken off as it grows.
        The held entries' ladders are read only once the run passes the limit as it is (what
        evictions free is never negative): reading them for every page made each paged answer's
        admission grow with the session's context (~160 searches: 9.6 ms a search against 1.8)."""
        files: tuple[str, ...] | None = None
        can: dict[str, int] = {}
        free = held = delta = 0
        asked: dict[str, tuple[str, int, str]] = {}  # node -> (level, tokens, version) the run asks for it
        for i, (nid, lvl, tok, _, ver) in enumerate(rows):
            prev = asked.get(nid)
            if prev is None or RANK[lvl] > RANK[prev[0]]:
                delta += (self._adds(nid, lvl, tok, ver) or 0) - ((self._adds(nid, *prev) or 0) if prev else 0)
                held += can.get(nid, 0) if prev is None else 0
                asked[nid] = (lvl, tok, ver)
            if self._used + delta <= self.limit:
                continue            # fits with nothing freed
            # the focus admit would use (it moves only with a full-level file)
            now = self._focus_files_after(self._merge(rows[:i + 1])) if infer_focus else self.focus_files()
            if now != files:        # first needed, or the focus moved: what each entry can free too
                files, focus = now, self._focus_info(now)
                can = {n: self._freeable(self._signals(n, e, focus)) for n, e in self._entries.items()
                       if n not in self._pins}
                free, held = sum(can.values()), sum(can.get(n, 0) for n in asked)
            if self._used + delta - (free - held) > self.limit:
                return i
        return len(rows)

    def _adds(self, nid: str, lvl: str, tok: int, ver: str = "") -> int | None:
        """Tokens admitting ``nid`` at ``lvl`` (``tok`` tokens, version ``ver``) adds to what is held,
        never negative; None when it adds nothing: held at a higher level, or at that level at that
        size or larger, of the same version (or one unknown).
        Another version is new content, whole: the agent read the old text, not this one, and its
        context now holds both (a re-indexed function shortened 130 -> 119 tokens was served as
        "already in context" and charged nothing, and so was its api after the old full: a probe).
        A smaller rendering of what is held (a tree row without the notes a get carried) takes
        nothing out of the agent's context: counted as less, it lowered ``used`` with no eviction
        said (742 -> 591 on a tree that returned 125 tokens: a probe); an upgrade to a level smaller
        than what is held adds 0 and keeps the larger size (``_held``). The one rule of both
        ``admit`` and ``_leading_fit`` (the run finder counted a node held at the same level as
        adding 0 where admit charged its larger size, so it picked runs admit refused: a probe)."""
        e = self._entries.get(nid)
        if e is None or _other_version(e, ver):
            return tok
        cur = e.tokens - e.older             # this version's part (an older one's is not this text)
        if RANK[e.level] > RANK[lvl] or (e.level == lvl and cur >= tok):
            return None
        return max(0, tok - cur)

    def _held(self, nid: str, lvl: str, tok: int, extra: int, ver: str = "") -> _Entry:
        """The entry once ``nid`` is admitted at ``lvl`` (``_adds`` not None): the larger of the two
        sizes, and the larger of the two note parts (what the agent has read stays in its context);
        another version: what was held becomes ``older``, kept in its tokens until it is demoted."""
        e = self._entries.get(nid)
        if e is None:
            return _Entry(lvl, tok, 0, extra, ver)
        if _other_version(e, ver):
            return _Entry(lvl, e.tokens + tok, 0, extra, ver, e.tokens)
        cur = max(tok, e.tokens - e.older)
        return _Entry(lvl, cur + e.older, 0, min(max(extra, e.extra), cur), ver or e.version, e.older)

    def _file(self, node_id: str) -> str | None:
        if node_id not in self._file_cache:
            self._file_cache[node_id] = self.graph.file_of(node_id)
        return self._file_cache[node_id]

    def _focus_files_after(self, batch: Mapping[str, tuple]) -> tuple[str, ...]:
        return self._focusset.after(self._full_files(batch))

    def _full_files(self, batch: Mapping[str, tuple]) -> list[str]:
        """The files of the batch's full-level items, in order: they join the inferred focus."""
        if not self.config.max_inferred_focus:
            return []
        return [f for nid, (lvl, *_) in batch.items() if lvl == "full" and (f := self._file(nid)) is not None]

    def _focus_info(self, files: tuple[str, ...]) -> Focus:
        if self._focus_cache is None or self._focus_cache.files != files:
            self._focus_cache = reach(self.graph, files, self.config.max_hops, self.config.proximity_kinds)
        return self._focus_cache

    def _history(self, node_id: str) -> float:
        h = self._hist.get(node_id)
        if h is None:
            return 0.0
        count, t0 = h
        return count * 0.5 ** ((self._clock() - t0) / self.config.half_life)

    def _clock(self) -> float:
        return float(self._calls) if self.config.half_life_unit == "calls" else self._now()

    def _record_access(self, node_id: str) -> None:
        self._hist[node_id] = (self._history(node_id) + 1.0, self._clock())
        if len(self._hist) > self._prune_at:  # forget long-decayed history of nodes not in context
            self._hist = {n: v for n, v in self._hist.items()
                          if n in self._entries or self._history(n) >= 0.01}
            self._prune_at = max(_HIST_PRUNE_AT, 2 * len(self._hist))
        self._seq += 1
        e = self._entries.get(node_id)
        if e is not None:
            e.last_access = self._seq

    def _signals(self, node_id: str, e: _Entry, focus: Focus) -> Signals:
        f = self._file(node_id)
        hops = focus.hops.get(f) if f is not None else None
        g = 1.0 / (1 + hops) if hops is not None else 0.0
        c = focus.affinity.get(f, 0.0) if f is not None else 0.0
        h = self._history(node_id)
        return Signals(node_id, e.level, e.tokens, g, c, h / (1.0 + h),
                       1.0 if node_id in self._pins else 0.0, hops, e.last_access)

    def _plan(self, need: float, *, exclude: set[str], focus: Focus,
              need_limit: float | None = None) -> tuple[list, int]:
        """Steps (signals, to_level, tokens_freed) that free at least ``need`` tokens in policy
        order, round by round down each victim's ladder; all possible steps if ``need`` is more.
        Rounds from the policy's ``last_resort_round`` on only run to free ``need_limit`` (what
        the request needs to fit the limit at all), never just to restore the reserve."""
        cands = [self._signals(nid, e, focus) for nid, e in self._entries.items()
                 if nid not in exclude and nid not in self._pins]
        cands.sort(key=self.policy.victim_key)
        ladders = {s.node_id: self.policy.ladder(s) for s in cands}
        state: dict[str, tuple[str | None, int]] = {s.node_id: (s.level, s.tokens) for s in cands}
        last = self.policy.last_resort_round
        steps: list[tuple[Signals, str | None, int]] = []
        freed = 0
        for r in range(max((len(v) for v in ladders.values()), default=0)):
            target = need if last is None or r < last or need_limit is None else need_limit
            for s in cands:
                if freed >= target:
                    return steps, freed
                lad = ladders[s.node_id]
                if r >= len(lad):
                    continue
                to = lad[r]
                lvl, tok = state[s.node_id]
                new_tok = self._rung(s.node_id, lvl, tok, to)
                if new_tok is None:
                    continue      # that level is missing or saves nothing: try the next rung later
                steps.append((s, to, tok - new_tok))
                state[s.node_id] = (to, new_tok)
                freed += tok - new_tok
        return steps, freed

    def _rung(self, nid: str, lvl: str | None, tok: int, to: str | None) -> int | None:
        """Tokens ``nid`` holds after stepping from ``lvl`` (``tok`` tokens) to rung ``to`` (None:
        dropped); None when the step is skipped: the node lacks that level, or it is not below."""
        if to is None:
            return 0
        cost = self.graph.levels(nid).get(to)
        if cost is None or lvl is None:
            return None
        new_tok = cost + self._entries[nid].extra         # attached notes stay with the node
        return None if new_tok >= tok or RANK[to] >= RANK[lvl] else new_tok

    def _freeable(self, s: Signals) -> int:
        """Tokens an entry frees going all the way down its ladder (``_plan`` with no target)."""
        lvl: str | None = s.level
        tok = s.tokens
        for to in self.policy.ladder(s):
            new_tok = self._rung(s.node_id, lvl, tok, to)
            if new_tok is not None:
                lvl, tok = to, new_tok
        return s.tokens - tok

    def _apply(self, steps: list) -> list[Eviction]:
        """Carry out planned steps; one report per node (a demotion then a drop reads as a drop)."""
        merged: dict[str, list] = {}
        for s, to, freed in steps:
            e = self._entries[s.node_id]
            if to is None:
                del self._entries[s.node_id]
            else:       # a rung holds the level's text and the notes (``_rung``): no older version
                e.level, e.tokens, e.older = to, e.tokens - freed, 0
            self._used -= freed
            if s.node_id in merged:
                m = merged[s.node_id]
                m[1], m[2], m[3] = to, m[2] + freed, self.policy.reason(s, to)
            else:
                merged[s.node_id] = [s.level, to, freed, self.policy.reason(s, to)]
        out = [Eviction(nid, frm, to or "cold", freed, why) for nid, (frm, to, freed, why) in merged.items()]
        self._stats["evictions"] += len(out)
        self._stats["tokens_freed"] += sum(e.tokens_freed for e in out)
        return out

    def _pinned_tokens(self) -> int:
        return sum(e.tokens for nid, e in self._entries.items() if nid in self._pins)

    def _overrun_message(self, delta: int, freed: int, over: int, adds: list[Admitted], *, page: bool,
                         notes: int = 0) -> str:
        """What did not fit, what holds the budget, and what the agent's tools can do (``budgetadvice``;
        ``notes``: the tokens of the notes the added items carry)."""
        pinned = self._pinned_tokens()
        kept = self._used - pinned - freed
        why = f"{pinned} tokens are pinned{self._named.gone_note(self._entries)}"
        if kept:
            why += f" and {kept} more cannot be evicted under the {self.policy.name} policy"
            if isinstance(self.policy, ScorePolicy) and self.policy.strict_neighbours:
                why += " (focus neighbours keep api level)"
        return overrun_message(limit=self.limit, delta=delta, over=over, why=why, pinned=pinned,
                               asked={a.node_id: a.level for a in adds}, page=page, notes=notes)


def _other_version(e: _Entry, ver: str) -> bool:
    """Whether ``ver`` is another version of the node than the one held (both known and different)."""
    return bool(ver and e.version and ver != e.version)


__all__ = ["GraphView", "RecordGraph", "ControllerConfig", "Budget", "Eviction", "Admitted", "AdmitResult",
           "PlannedItem", "Controller"]
