"""Mine a repository's history into ``commits`` and ``file_changes`` tables (stratum.schema).

Why a streaming ``git log`` and not pydriller: one ``git log -z --raw --numstat -M`` process emits
every commit with its changed files, change types, renames and line counts; parsing its NUL-separated
tokens costs less than git spends producing them, where pydriller builds GitPython objects and a
diff per commit (about 55 commits/s). See docs/history.md and docs/bench/history.md.

Definitions (documented, configurable through ``HistoryConfig``):

- **All commits** reachable from HEAD are read, not only the first-parent line: commits on merged
  branches are real edits. Merge commits are always recorded in ``commits`` (``is_merge``); their
  diff against the first parent is read only when ``skip_merges`` is False (it repeats the
  branch's own commits, which is why merges are skipped by default).
- **Renames** are detected with ``-M`` (git's default 50% similarity); copies are not detected.
  ``current_path`` is each change's file at HEAD after following renames (null when the file no
  longer exists); see ``current_paths``.
- **Binary** changes (numstat ``-``) have ``binary`` true and null line counts. With
  ``line_counts=False`` git compares trees only (5-8x faster on big histories): ``added``,
  ``deleted`` and ``binary`` are null.
- **Bug fix**: ``cfg.bugfix_rule`` (a regex) searched in the whole commit message of a non-merge
  commit (a merge's message names a branch or pull request, and its fix is the branch's commits).
- **Huge commits** (more than ``cfg.max_files_per_commit`` files) are kept here, counted in
  ``counters["huge_commits"]``, and skipped by co-change (pipeline.cochange).
- Paths are stored as ``gitio.path_text`` spells them: ``\\xNN`` for a byte that is not UTF-8 (Arrow
  strings must be UTF-8) and ``\\\\`` for a backslash, so one text names one file (``PATH_FORMAT``);
  non-UTF-8 messages and names are decoded with U+FFFD replacement. Both are counted.
- **Incremental**: ``since`` is the last mined sha (the manifest's ``history_watermark``). If it is
  an ancestor of HEAD, only ``since..HEAD`` is read; if not (history rewritten, or the commit is
  gone) the whole history is read and ``rewritten`` is True: replace the stored history, do not
  append. ``combine`` appends a ``since`` result to the stored tables. Stored rows read under other
  ``MINED_AS`` settings are not extended (``remine_reason``): the caller mines in full.
- **Stopping**: ``stop`` (any flag with ``is_set``) is looked at between chunks of git's output and
  every few thousand commits of the rename walk; once set, the mine ends git and raises
  ``RunStopped`` (nothing it read is kept). A full mine of a long history takes minutes, more than
  a pod's grace period after SIGTERM (30 s by default).
"""

from __future__ import annotations

import re
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Protocol

import pyarrow as pa

from pipeline import gitio
from pipeline.fixes import NEW_ROWS, is_bugfix
from pipeline.logparse import COUNTERS, LogParser, decoded_path, empty_commits, empty_file_changes
from stratum import schema as S
from stratum.config import HistoryConfig

_STOP_EVERY = 4096          # commits of the rename walk between two looks at the stop flag


class StopFlag(Protocol):
    """What a run is stopped with: ``threading.Event``, ``pipeline.watch.SignalStop``. A flag that
    also has ``mining(since, count)`` and ``read(commits)`` hears how far ``mine`` is (the index
    job's, ``pipeline.stagelines.MineWatch``: a long mine runs on a thread of its own, unseen)."""

    def is_set(self) -> bool: ...


class RunStopped(Exception):
    """The run's stop flag was set: it gave up before publishing, and the store is as it was.
    Not a ``StratumError``: nothing failed, the caller asked (a signal, a watch stopping)."""


def check_stop(stop: StopFlag | None, where: str) -> None:
    """Raise ``RunStopped`` if ``stop`` is set (``where``: the step it stopped in, for the message)."""
    if stop is not None and stop.is_set():
        raise RunStopped(f"stopped during {where}")


@dataclass
class MineResult:
    """What one mining run read. Tables use stratum.schema COMMITS and FILE_CHANGES."""

    commits: pa.Table
    file_changes: pa.Table
    head: str | None                       # HEAD sha mined up to (the next watermark); None: no commits
    shallow: bool                          # the clone is shallow: history before its boundary is absent
    rewritten: bool                        # ``since`` was not an ancestor of HEAD: this is a full mine
    since: str | None                      # the watermark actually used (None for a full mine)
    head_paths: list[str] = field(default_factory=list)   # files at HEAD (for exact rename following)
    counters: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    boundary: str = ""                     # gitio.boundary_key of the shallow boundary ("" for a full clone)

    @property
    def incremental(self) -> bool:
        return self.since is not None

    def summary(self) -> dict:
        """Plain dict for the run report."""
        return {"head": self.head, "shallow": self.shallow, "shallow_boundary": self.boundary,
                "rewritten": self.rewritten, "incremental": self.incremental, "seconds": round(self.seconds, 3),
                **self.counters}


def mine(repo_root: str | Path, cfg: HistoryConfig = HistoryConfig(), since: str | None = None,
         boundary: list[str] | None = None, stop: StopFlag | None = None) -> MineResult:
    """Read the history of ``repo_root`` (all of it, or after ``since``) into Arrow tables.

    A repository without commits gives empty tables; a path outside any git work tree raises
    stratum.errors.NotARepository. ``boundary``: ``gitio.shallow_boundary`` when the caller has it.
    A shallow clone's boundary commits are kept without their changes: git shows each as adding
    its whole tree (its parents were not fetched), which would make every file a fix's or a
    co-change's (``counters["boundary_commits"]``). ``stop``: see the module docstring.
    """
    t0 = time.perf_counter()
    root = gitio.repo_root(repo_root)
    head = gitio.head_commit(root)
    bound = gitio.shallow_boundary(root) if boundary is None else boundary
    shallow, key = bool(bound), gitio.boundary_key(bound)
    if head is None:                      # no commits (any stored history was rewritten away)
        return MineResult(empty_commits(), empty_file_changes(), None, shallow, since is not None, None,
                          counters=dict.fromkeys(COUNTERS, 0), seconds=time.perf_counter() - t0, boundary=key)
    rewritten = False
    rev_range = "HEAD"
    if since is not None:
        if gitio.is_ancestor(root, since, head):
            rev_range = f"{since}..{head}"
        else:
            rewritten, since = True, None
    if rev_range == "HEAD":
        rev_range = head  # pin: a commit landing while we read cannot sneak in
    parser = LogParser(cfg)
    heard = getattr(stop, "read", None)
    if heard is not None:              # how many a whole history holds, if asked: git counts them in a moment
        count = lambda: int(gitio.run_git(root, "rev-list", "--count", rev_range))     # noqa: E731
        stop.mining(since, count)      # type: ignore[union-attr]
    # closed at once: a stop leaves the loop with git still writing, and closing its pipe ends it
    # (SIGPIPE); left to the collector, it stays open while the error's traceback holds this frame
    with closing(gitio.stream_history(root, rev_range, merge_diffs=not cfg.skip_merges,
                                      line_counts=cfg.line_counts)) as stream:
        for chunk in stream:
            check_stop(stop, "the history mine")
            parser.feed(chunk)
            if heard is not None:
                heard(parser.counters["commits"])
    commits, changes = parser.finish()
    if bound:
        commits, changes = _without_boundary_changes(commits, changes, set(bound), parser.counters)
    check_stop(stop, "the history mine")
    head_paths = [decoded_path(p)[0] for p in gitio.tree_paths(root, head)]
    changes = changes.set_column(changes.schema.get_field_index("current_path"), "current_path",
                                 pa.array(current_paths(changes, commits, head_paths, stop), pa.string()))
    return MineResult(commits, changes, head, shallow, rewritten, since, head_paths, parser.counters,
                      time.perf_counter() - t0, key)


# The settings the stored rows were read under (the run report records them: ``mined_as``): a
# merge's diff, line counts. Rows read under others are not what this run would read, so extending
# them mixed the two until --full. The other settings act on every row each run (co-change, huge
# commits) or are applied to the stored rows again (the bug-fix rule: ``combine(rejudge=)``).
MINED_AS = ("skip_merges", "line_counts")


# How stored rows spell a path (``gitio.path_text``; the run report records it). 2: a backslash is
# ``\\`` (1 kept it single, and a name holding ``\xe9`` read as the byte E9): rows of 1 holding a
# backslash are mined again (``stages.history``), rows without one are spelled alike.
PATH_FORMAT = 2


def mined_as(cfg: HistoryConfig) -> dict[str, bool]:
    return {k: bool(getattr(cfg, k)) for k in MINED_AS}


def remine_reason(recorded: dict | None, cfg: HistoryConfig) -> str:
    """Why a stored history recorded as mined under ``recorded`` (``mined_as`` of its run, None
    when its report predates the record) cannot be extended under ``cfg``; "" when it can."""
    now = mined_as(cfg)
    if recorded == now:
        return ""
    if not isinstance(recorded, dict):
        return ("history re-mined in full once: the previous version did not record the settings "
                f"it was mined under ({', '.join(MINED_AS)})")
    changed = ", ".join(f"{k} {recorded.get(k)} -> {v}" for k, v in now.items() if recorded.get(k) != v)
    return f"history re-mined in full: {changed} since the previous version (its rows were read under the old settings)"


def _without_boundary_changes(commits: pa.Table, changes: pa.Table, boundary: set[str],
                              counters: dict[str, int]) -> tuple[pa.Table, pa.Table]:
    """``commits`` with the boundary commits' ``n_files`` 0, and ``changes`` without their rows."""
    shas = commits.column("sha").to_pylist()
    at = [i for i, s in enumerate(shas) if s in boundary]
    counters["boundary_commits"] = len(at)
    if not at:
        return commits, changes
    n_files = commits.column("n_files").to_pylist()
    for i in at:
        n_files[i] = 0
    commits = commits.set_column(commits.schema.get_field_index("n_files"), commits.schema.field("n_files"),
                                 pa.array(n_files, commits.schema.field("n_files").type))
    keep = [s not in boundary for s in changes.column("sha").to_pylist()]
    counters["file_changes"] = counters.get("file_changes", 0) - keep.count(False)
    return commits, changes.filter(pa.array(keep, pa.bool_()))


def combine(prev_commits: pa.Table, prev_file_changes: pa.Table, new: MineResult,
            stop: StopFlag | None = None, rejudge: str | None = None) -> tuple[pa.Table, pa.Table]:
    """The stored history plus an incremental result, with ``current_path`` re-resolved at the new HEAD.

    For a full (or rewritten) result the stored tables are ignored. The output equals what a full
    mine at the new HEAD gives (same rows; order may differ: consumers order by commit generation).
    ``rejudge``: the bug-fix rule, when the stored rows may have been judged by another (the
    settings changed): their ``is_bugfix`` is decided again (one regex a commit), else a changed
    rule counted fixes by the old one until ``--full`` (``stratum history``, the Polars tables).
    The new commits come first, and the commits table says how many (``fixes.new_rows``).
    """
    if not new.incremental:
        return new.commits, new.file_changes
    known = set(prev_commits.column("sha").to_pylist())
    fresh = [s not in known for s in new.commits.column("sha").to_pylist()]
    prev_commits = prev_commits.cast(S.COMMITS)
    if rejudge is not None:
        rx = re.compile(rejudge)
        bug = [not merge and is_bugfix(msg or "", rx) for msg, merge in
               zip(prev_commits.column("message").to_pylist(), prev_commits.column("is_merge").to_pylist())]
        prev_commits = prev_commits.set_column(prev_commits.schema.get_field_index("is_bugfix"), "is_bugfix",
                                               pa.array(bug, pa.bool_()))
    commits = pa.concat_tables([new.commits.filter(pa.array(fresh, pa.bool_())), prev_commits])
    fresh_fc = [s not in known for s in new.file_changes.column("sha").to_pylist()]
    changes = pa.concat_tables([new.file_changes.filter(pa.array(fresh_fc, pa.bool_())),
                                prev_file_changes.cast(S.FILE_CHANGES)])
    changes = changes.set_column(changes.schema.get_field_index("current_path"), "current_path",
                                 pa.array(current_paths(changes, commits, new.head_paths, stop), pa.string()))
    return commits.replace_schema_metadata({**(commits.schema.metadata or {}), NEW_ROWS: str(sum(fresh)).encode()}), \
        changes


# ---- commit order and rename following ------------------------------------------------------------

class _NotYet(Exception):
    """A parent's generation is not known yet (commit_order falls back to a DFS)."""


def _missing(_sha: str) -> int:
    raise _NotYet


def commit_order(commits: pa.Table) -> list[str]:
    """Commit shas newest first, in one canonical topological order of the DAG.

    Order: generation (1 + the highest parent generation; parents missing from the table, as in a
    shallow clone, count as 0) descending, then committed time descending, then sha. It depends
    only on the DAG, never on how the history was read in pieces, so an incremental mine and a full
    mine order commits the same way.
    """
    return _ordered(commits)[0]


def _ordered(commits: pa.Table) -> tuple[list[str], dict[str, int], dict[str, list[str]]]:
    """``commit_order``'s order, with each commit's generation and parents (for ancestry questions)."""
    shas = commits.column("sha").to_pylist()
    parents = commits.column("parents").to_pylist()
    times = commits.column("committed_at").cast(pa.int64()).to_pylist()
    pmap = dict(zip(shas, parents))
    gen: dict[str, int] = {}
    for start in reversed(shas):                      # git lists children first: parents come first here
        if start in gen:
            continue
        ps = pmap[start]
        if not ps:
            gen[start] = 1
            continue
        try:
            gen[start] = 1 + max(gen[p] if p in gen else (0 if p not in pmap else _missing(p)) for p in ps)
            continue
        except _NotYet:
            pass
        stack = [start]
        while stack:                                  # iterative DFS: deep histories, no recursion
            s = stack[-1]
            if s in gen:
                stack.pop()
                continue
            todo = [p for p in (pmap.get(s) or ()) if p in pmap and p not in gen]
            if todo:
                stack.extend(todo)
            else:
                gen[s] = 1 + max((gen[p] for p in (pmap.get(s) or ()) if p in gen), default=0)
                stack.pop()
    tmap = dict(zip(shas, times))
    return sorted(shas, key=lambda s: (-gen[s], -(tmap[s] or 0), s)), gen, pmap


class _Ancestry:
    """Whether a commit is an ancestor of one of the ``targets`` (the commits asked about), from one
    pass over the history newest first (``order``: every child before its parents): each commit gets
    the set of targets it is an ancestor of as a bit mask, its children's passed down. A lazy walk
    down from each rename cost 3 s a re-index on sympy (62,658 commits: ~2,000 questions, 2.3 million
    heap steps, a probe); the pass is linear in the history and the masks are kept only for the
    commits ``kept`` names (those holding a row a question can be about)."""

    def __init__(self, order: list[str], parents: dict[str, list[str]], targets: Iterable[str],
                 kept: set[str]):
        self.bit = {t: 1 << k for k, t in enumerate(dict.fromkeys(targets))}
        self.masks: dict[str, int] = {}
        if not self.bit:
            return
        bit, masks = self.bit, self.masks
        passing: dict[str, int] = {}        # sha -> its children's masks so far
        for sha in order:
            m = passing.pop(sha, 0)
            if sha in kept and m:
                masks[sha] = m
            down = m | bit.get(sha, 0)
            if down:
                for p in parents.get(sha) or ():
                    passing[p] = passing.get(p, 0) | down

    def below(self, sha: str, of: str) -> bool:
        """``sha`` is an ancestor of ``of`` (a commit is not its own; ``of`` one of the targets)."""
        return bool(self.masks.get(sha, 0) & self.bit.get(of, 0))


def current_paths(file_changes: pa.Table, commits: pa.Table, head_paths: list[str] | None = None,
                  stop: StopFlag | None = None) -> list[str | None]:
    """Each file change's path at HEAD after following renames (None: the file is gone).

    Walks commits newest first (``commit_order``) with a map "path at this point -> path at HEAD":
    a rename old->new maps old to new's current path, and the new side of a rename (or copy) ends
    the path's earlier life there: the file's past is the old path's, so an older, unrelated file
    that was renamed away or deleted at ``new`` is not confused with it. The end holds for the
    rename's ancestors only: a commit on a parallel branch (one branch made ``new`` while another
    renamed ``old`` to it, and the merge kept one file) keeps the path it had, whichever branch the
    walk meets first (``_Ancestry``: one pass down the history). An add does not end it: a
    file deleted and later added again at the same path (a restore, or another file under the
    same name, as ``git log -- path`` sees it) keeps its earlier fixes, changes and co-change,
    unless that earlier life was renamed away (then the rename re-points it, as for a branch edit
    below). ``head_paths`` (the files at HEAD) decides which paths exist now; without it a path
    exists if its newest change does not delete it.

    Parallel branches: an edit to ``p`` on a branch, while another branch renamed ``p`` to ``q``,
    is met before that rename when the edit is newer. Such an edit is *tentative* (``p`` is not at
    HEAD, or, without ``head_paths``, only presumed alive) until the walk reaches a rename of ``p``
    within the same life of ``p``: then it takes the rename's current path, as git's merge did.
    Merge commits' diffs (mined when merges are not skipped) repeat their branches' adds and
    renames, so they map paths but never start or end a file's life. ``stop``: looked at every
    ``_STOP_EVERY`` commits (a million-commit history walks for seconds).
    """
    n = file_changes.num_rows
    out: list[str | None] = [None] * n
    if not n:
        return out
    rows_by_sha: dict[str, list[int]] = {}
    for i, s in enumerate(file_changes.column("sha").to_pylist()):
        rows_by_sha.setdefault(s, []).append(i)
    path = file_changes.column("path").to_pylist()
    old = file_changes.column("old_path").to_pylist()
    ctype = file_changes.column("change_type").to_pylist()
    head = set(head_paths) if head_paths is not None else None
    cur: dict[str, str | None] = {}
    tentative: dict[str, list[int]] = {}   # path -> rows a later-met rename of the path re-points
    merges = {s for s, m in zip(commits.column("sha").to_pylist(), commits.column("is_merge").to_pylist()) if m}
    order, _, parents = _ordered(commits)
    # the renames (and copies) whose new path has rows of other commits: the questions asked below
    renamed_to = {path[i] for s_, rows_ in rows_by_sha.items() if s_ not in merges for i in rows_ if ctype[i] in "RC"}
    asked = {s_ for s_, rows_ in rows_by_sha.items() if any(path[i] in renamed_to for i in rows_)}
    below = _Ancestry(order, parents, (s_ for s_ in order if s_ in asked and s_ not in merges
                                       and any(ctype[i] in "RC" for i in rows_by_sha[s_])), asked).below
    ends: dict[str, list[tuple[str, str | None]]] = {}   # path -> (a rename that ended a life of it, the path before)

    for k, sha in enumerate(order):
        if not k % _STOP_EVERY:
            check_stop(stop, "the history mine")
        rows = rows_by_sha.get(sha)
        if not rows:
            continue
        # every change of a commit sees the state after the commit; then step back before it
        for i in rows:
            p = path[i]
            if p not in cur:
                alive = ctype[i] != "D"
                if head is not None:
                    cur[p] = p if p in head else None
                    if alive and cur[p] is None:
                        tentative[p] = []
                else:
                    cur[p] = p if alive else None
                    if alive:
                        tentative[p] = []
            c = cur[p]
            for x, before in reversed(ends.get(p, ())):    # an end is the past of its rename's ancestors only
                if below(sha, x):
                    break
                c = before
            out[i] = c
            if p in tentative:
                tentative[p].append(i)
        if sha in merges:          # a merge's diff replays its branches' changes: no new file lives
            continue
        for i in rows:
            if ctype[i] in "RC":       # the file came from another path: its earlier life is that path's
                ends.setdefault(path[i], []).append((sha, out[i]))
                cur[path[i]] = None
                tentative.pop(path[i], None)
            elif ctype[i] == "A":      # (re)created: an earlier life here is the same path's, unless renamed away
                tentative[path[i]] = []
        for i in rows:
            if ctype[i] == "R":
                o, c = old[i], out[i]
                cur[o] = c
                for j in tentative.pop(o, ()):
                    out[j] = c
    return out


__all__ = ["MineResult", "mine", "combine", "MINED_AS", "PATH_FORMAT", "mined_as", "remine_reason", "StopFlag", "RunStopped", "check_stop", "LogParser", "commit_order", "current_paths", "empty_commits",
           "empty_file_changes"]
