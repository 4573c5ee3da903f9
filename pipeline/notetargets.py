"""Where a merged note's targets are in the new version, when the code it is about moved.

The rule is ``stratum.placement``'s, which branch sessions read by too: the current target, else
the writer's own, else where the renames since the note lead; and a target whose id holds a
neighbour's code after same-named definitions were renumbered (``add``, ``add#2``: one added above,
a probe saw an rca note about ``add(item, n)`` shown, stale, on a new ``add(item, coupon)``) goes to
the same-named node holding the code it was written about. What the merge brings to it:

- the writer's targets (``WrittenTargets``): following a rename rewrites a target, so the writer's
  is kept beside it (``WRITTEN_KEY`` in the node's meta, ``with_written``; else the note's
  delta-log record, which merges read too). A rename undone by `git mv` back, a revert, or a
  checkout or reset to a branch without it, brings the note home;
- the renames (``Renames``): the history replayed once in commit order, so a cycle (A -> B -> A)
  ends where the file is, and a rename older than the note (another file that once had the path)
  moves nothing. They are followed from the writer's path, then from the note's current one (an
  earlier merge may have moved it: ``placement._led``), and the target takes the qualname its node
  has where they lead: a note an earlier merge renumbered (``add#2`` -> ``add#3``) kept its new name
  on its old id, and a rename then placed it on the neighbour now called ``add#2``, stale (a
  review; ``tests/integration/test_placement24_merge_renames.py``).

Else a target stays where it is: a note none of whose targets exist is orphaned by the merge, and
comes back when its code does. A target's ``given`` and content hash stay the writer's (stale only
if the code itself changed).
"""

from __future__ import annotations

import json
from typing import Iterable, Iterator, Mapping

import pyarrow as pa
import pyarrow.compute as pc

from stratum import notes as N
from stratum import placement
from stratum.codelookup import CodeLookup
from stratum.placement import WRITTEN_KEY   # node meta: the writer's targets, stored only while ``about`` differs
from stratum.schema import AGENT_NOTE_KINDS


class Renames(Mapping[str, str]):
    """The renames of a history, oldest first, grouped by commit (a swap a <-> b is one step).

    ``steps``: (committed_at in µs or None, sha, old path -> new path). "Since the note was
    written" is read on the commit graph when ``commits`` (schema.COMMITS) holds the note's commit:
    a rename made before it is one of its ancestors. A pull request's rename committed before the
    note but merged after it is not, and is followed (a time cut orphaned that note: a review).
    Else on git's clock: ``time_of`` gives a commit's time from the file changes; commits carry
    fixed or skewed dates the writer's wall clock knows nothing of.
    As a mapping (what ``renames_of`` returned before): old path -> the new path of its last rename.
    """

    def __init__(self, steps: Iterable[tuple[int | None, str, dict[str, str]]] = (),
                 file_changes: pa.Table | None = None, commits: pa.Table | None = None):
        self.steps = list(steps)
        self._changes = file_changes
        self._commits = commits
        self._children: dict[str, list[str]] | None = None
        self._below: dict[str, set[str]] = {}
        self._shas: set[str] | None = None
        self._times: dict[str, int | None] = {}
        self._last = {o: n for _, _, moves in self.steps for o, n in moves.items()}

    def __getitem__(self, old: str) -> str:
        return self._last[old]

    def __iter__(self) -> Iterator[str]:
        return iter(self._last)

    def __len__(self) -> int:
        return len(self._last)

    @classmethod
    def untimed(cls, renames: Mapping[str, str]) -> "Renames":
        """From old -> new pairs without dates (each a step, in the mapping's order): all apply."""
        return cls((None, "", {o: n}) for o, n in renames.items())

    def time_of(self, sha: str | None) -> int | None:
        """Commit time (µs) of ``sha`` when the file changes hold it; None otherwise."""
        t = self._changes
        if not sha or t is None or "committed_at" not in t.column_names:
            return None
        if sha not in self._times:      # one vectorised scan per commit asked, and few are asked
            i = pc.index(t.column("sha"), sha).as_py()
            at = t.column("committed_at")[i].cast(pa.int64()).as_py() if i >= 0 else None
            self._times[sha] = at
        return self._times[sha]

    def _descendants(self, sha: str) -> set[str]:
        """``sha`` and every commit of the history that has it as an ancestor (memoised: asked
        only of a rename step a note's path meets, and few are)."""
        if self._children is None:
            self._children = {}
            c = self._commits
            if c is not None and "parents" in c.column_names:
                for s, ps in zip(c.column("sha").to_pylist(), c.column("parents").to_pylist()):
                    for p in ps or ():
                        self._children.setdefault(p, []).append(s)
        got = self._below.get(sha)
        if got is None:
            got, todo = {sha}, [sha]
            while todo:
                for ch in self._children.get(todo.pop(), ()):
                    if ch not in got:
                        got.add(ch)
                        todo.append(ch)
            self._below[sha] = got
        return got

    def complete(self) -> bool:
        """Whether the history was mined and holds every commit's parents: a shallow clone's (or a
        capped mine's) lacks its older commits, so a commit absent from it says nothing."""
        c = self._commits
        if c is None or not c.num_rows or "parents" not in c.column_names:
            return False
        parents = pc.list_flatten(c.column("parents"))
        return not len(parents) or bool(pc.all(pc.is_in(parents, value_set=pc.unique(c.column("sha")))).as_py())

    def knows(self, sha: str | None) -> bool:
        """Is ``sha`` a commit of the history (its ancestry readable)?"""
        c = self._commits
        if not sha or c is None or "parents" not in c.column_names:
            return False
        if self._shas is None:
            self._shas = set(c.column("sha").to_pylist())
        return sha in self._shas

    def lead(self, path: str, since: int | None = None, after: str | None = None) -> list[str]:
        """The paths a file at ``path`` moved through, in order, by renames made since commit
        ``after`` (the one it was seen at): not its ancestors when the history knows it, else those
        committed at or after ``since`` (µs; None: all) other than ``after`` itself."""
        out = []
        graph = self.knows(after)
        for at, sha, moves in self.steps:
            new = moves.get(path) or next((n + path[len(o):] for o, n in moves.items()
                                           if path.startswith(o + "/")), None)
            if new is None or new == path:
                continue
            if graph:
                if after in self._descendants(sha):     # made before the note: its code had it
                    continue
            elif since is not None and at is not None and (at < since or sha == after):
                continue
            path = new
            out.append(path)
        return out


def renames_of(file_changes: pa.Table | None, commits: pa.Table | None = None) -> Renames:
    """The renames in ``file_changes`` (schema.FILE_CHANGES), oldest first; ``commits``
    (schema.COMMITS) lets a note's renames be read on the commit graph (``Renames``)."""
    if file_changes is None or not file_changes.num_rows:
        return Renames(commits=commits)
    r = file_changes.filter(pc.equal(file_changes.column("change_type"), "R"))
    if not r.num_rows:
        return Renames(file_changes=file_changes, commits=commits)
    # the history is mined newest first: reversed, a stable sort keeps same-second commits in order
    r = r.take(pa.array(range(r.num_rows - 1, -1, -1)))
    timed = "committed_at" in r.column_names
    if timed:
        r = r.sort_by([("committed_at", "ascending")])
    at = r.column("committed_at").cast(pa.int64()).to_pylist() if timed else [None] * r.num_rows
    steps: list[tuple[int | None, str, dict[str, str]]] = []
    for t, sha, o, n in zip(at, r.column("sha").to_pylist(), r.column("old_path").to_pylist(),
                            r.column("path").to_pylist()):
        if not o or not n:
            continue
        if not steps or steps[-1][1] != sha:
            steps.append((t, sha, {}))
        steps[-1][2][o] = n
    return Renames(steps, file_changes, commits)


class WrittenTargets:
    """Looked up only for a note with a target whose code is gone, or one moved before."""

    def __init__(self, meta: Mapping[str, str], bodies: Mapping[str, Mapping]):
        self._meta, self._bodies = meta, bodies

    def _dicts(self, note: N.Note) -> list:
        if note.id in self._meta:
            return json.loads(self._meta[note.id]).get(WRITTEN_KEY) or []
        return (self._bodies.get(note.record_uid) or {}).get("about") or []

    def moved(self, note: N.Note) -> bool:
        """Do ``note``'s targets differ from the writer's? (no Target built: asked of every note)"""
        if note.id not in self._meta:
            body = self._bodies.get(note.record_uid)
            if body is None:
                return False
            about = body.get("about") or []
            if len(about) == 1 and len(note.about) == 1:    # the common case, without a list built
                return about[0].get("node_id") != note.about[0].node_id
        return [t.get("node_id") for t in self._dicts(note)] != [t.node_id for t in note.about]

    def of(self, note: N.Note) -> list[N.Target]:
        """The writer's targets of ``note`` (its current ones when nothing else is known)."""
        try:
            targets = [N.Target(**t) for t in self._dicts(note)]
        except TypeError:       # a form this build does not know: the current targets are all it has
            targets = []
        return targets if len(targets) == len(note.about) else list(note.about)


def written_targets(prev_rows: Iterable[Mapping], records: Iterable) -> WrittenTargets:
    """The writer's targets of every note: from the previous version's meta, else its log record."""
    meta = {r["id"]: r["meta"] for r in prev_rows if r.get("kind") in AGENT_NOTE_KINDS
            and isinstance(r.get("meta"), str) and WRITTEN_KEY in r["meta"]}     # only moved notes hold it
    bodies = {r.uid: r.body for r in records if r.type == "note"}
    return WrittenTargets(meta, bodies)


class Existing:
    """Is this node id code of the new version? Each id asked of the index once: a merge asks of
    every target three times (placing, orphaned, edges), and a look-up builds a ``Resolved``."""

    def __init__(self, index: CodeLookup):
        self._index = index
        self._known: dict[str, bool] = {}

    def __call__(self, node_id: str) -> bool:
        v = self._known.get(node_id)
        if v is None:
            v = self._known[node_id] = node_id in self._index
        return v


def place(note: N.Note, index: CodeLookup, exists: Existing, written: WrittenTargets,
          renames: Renames) -> list[N.Target] | None:
    """Move ``note``'s targets whose code is gone or renumbered (``stratum.placement``, the rule a
    branch session reads by too); returns the writer's targets when the note's now differ from
    them (to keep in its meta), else None."""
    mine: list[N.Target] = []
    since: list[int | None] = []            # when it was written, on git's clock: read once, if needed

    def writer() -> list[N.Target]:
        if not mine:
            mine.extend(written.of(note))
        return mine

    def leads(path: str) -> list[str]:
        if not since:
            since.append(_written_at(note, renames))
        return renames.lead(path, since[0], note.commit)

    out = placement.place(note.about, _Here(index, exists), writer, leads)
    if out is None:
        return written.of(note) if written.moved(note) else None
    note.about = out
    return mine if [t.node_id for t in out] != [w.node_id for w in mine] else None


class _Here:
    """The new version as ``stratum.placement`` asks of it: existence through the merge's cache."""

    def __init__(self, index: CodeLookup, exists: Existing):
        self.hash_of, self.resolve, self._exists = index.hash_of, index.resolve, exists

    def __contains__(self, node_id: object) -> bool:
        return isinstance(node_id, str) and self._exists(node_id)


def _written_at(note: N.Note, renames: Renames) -> int | None:
    """The note's commit's time (µs), else its writing time cut to the second (commit dates are)."""
    at = renames.time_of(note.commit)
    return at if at is not None else int(note.created_at.timestamp()) * 1_000_000


def with_written(node: dict, mine: list[N.Target]) -> dict:
    """``node`` (``notes.note_to_records``) with the writer's targets in its meta."""
    meta = json.loads(node["meta"])
    meta[WRITTEN_KEY] = [w.to_dict() for w in mine]
    node["meta"] = json.dumps(meta, sort_keys=True, ensure_ascii=False)
    return node


__all__ = ["Existing", "Renames", "WrittenTargets", "place", "renames_of", "with_written", "written_targets"]
