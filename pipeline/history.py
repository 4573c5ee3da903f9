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
- Non-UTF-8 paths are stored with ``\\xNN`` escapes for the undecodable bytes (Arrow strings must
  be UTF-8, and escapes keep distinct paths distinct); non-UTF-8 messages and names are decoded
  with U+FFFD replacement. Both are counted.
- **Incremental**: ``since`` is the last mined sha (the manifest's ``history_watermark``). If it is
  an ancestor of HEAD, only ``since..HEAD`` is read; if not (history rewritten, or the commit is
  gone) the whole history is read and ``rewritten`` is True: replace the stored history, do not
  append. ``combine`` appends a ``since`` result to the stored tables.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from pipeline import gitio
from stratum import schema as S
from stratum.config import HistoryConfig

_US = 1_000_000
_TS = pa.timestamp("us", tz="UTC")


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

    @property
    def incremental(self) -> bool:
        return self.since is not None

    def summary(self) -> dict:
        """Plain dict for the run report."""
        return {"head": self.head, "shallow": self.shallow, "rewritten": self.rewritten,
                "incremental": self.incremental, "seconds": round(self.seconds, 3), **self.counters}


_COUNTERS = ("commits", "merges", "merges_skipped", "empty_commits", "huge_commits", "file_changes",
             "renames", "binary_changes", "submodule_changes", "non_utf8_paths", "non_utf8_messages",
             "bugfix_commits")


def mine(repo_root: str | Path, cfg: HistoryConfig = HistoryConfig(), since: str | None = None) -> MineResult:
    """Read the history of ``repo_root`` (all of it, or after ``since``) into Arrow tables.

    A repository without commits gives empty tables; a path outside any git work tree raises
    stratum.errors.NotARepository.
    """
    t0 = time.perf_counter()
    root = gitio.repo_root(repo_root)
    head = gitio.head_commit(root)
    shallow = gitio.is_shallow(root)
    if head is None:                      # no commits (any stored history was rewritten away)
        return MineResult(empty_commits(), empty_file_changes(), None, shallow, since is not None, None,
                          counters=dict.fromkeys(_COUNTERS, 0), seconds=time.perf_counter() - t0)
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
    for chunk in gitio.stream_history(root, rev_range, merge_diffs=not cfg.skip_merges,
                                      line_counts=cfg.line_counts):
        parser.feed(chunk)
    commits, changes = parser.finish()
    head_paths = [_path_text(p)[0] for p in gitio.tree_paths(root, head)]
    changes = changes.set_column(changes.schema.get_field_index("current_path"), "current_path",
                                 pa.array(current_paths(changes, commits, head_paths), pa.string()))
    return MineResult(commits, changes, head, shallow, rewritten, since, head_paths, parser.counters,
                      time.perf_counter() - t0)


def combine(prev_commits: pa.Table, prev_file_changes: pa.Table, new: MineResult) -> tuple[pa.Table, pa.Table]:
    """The stored history plus an incremental result, with ``current_path`` re-resolved at the new HEAD.

    For a full (or rewritten) result the stored tables are ignored. The output equals what a full
    mine at the new HEAD gives (same rows; order may differ: consumers order by commit generation).
    """
    if not new.incremental:
        return new.commits, new.file_changes
    known = set(prev_commits.column("sha").to_pylist())
    fresh = [s not in known for s in new.commits.column("sha").to_pylist()]
    commits = pa.concat_tables([new.commits.filter(pa.array(fresh, pa.bool_())),
                                prev_commits.cast(S.COMMITS)])
    fresh_fc = [s not in known for s in new.file_changes.column("sha").to_pylist()]
    changes = pa.concat_tables([new.file_changes.filter(pa.array(fresh_fc, pa.bool_())),
                                prev_file_changes.cast(S.FILE_CHANGES)])
    changes = changes.set_column(changes.schema.get_field_index("current_path"), "current_path",
                                 pa.array(current_paths(changes, commits, new.head_paths), pa.string()))
    return commits, changes


# ---- the log parser -------------------------------------------------------------------------------

class LogParser:
    """Incremental parser of ``gitio.history_log_args`` output (feed chunks, then finish).

    The stream is NUL-separated tokens: a header of ``gitio.LOG_FIELDS`` fields (the first starts
    with \\x1e), then raw entries (``:modes shas status`` + one or two path tokens), then numstat
    entries (``added\\tdeleted\\tpath``, or ``added\\tdeleted\\t`` + old + new for a rename). The
    position in that grammar, never the content of a path or message, decides what a token is.
    """

    def __init__(self, cfg: HistoryConfig = HistoryConfig()):
        self.cfg = cfg
        self._bugfix = re.compile(cfg.bugfix_rule)
        self._rest = b""
        self.counters = dict.fromkeys(_COUNTERS, 0)
        # commit columns
        self.c_sha: list[str] = []
        self.c_parents: list[list[str]] = []
        self.c_an: list[str] = []
        self.c_ae: list[str] = []
        self.c_at: list[int] = []
        self.c_ct: list[int] = []
        self.c_msg: list[str] = []
        self.c_merge: list[bool] = []
        self.c_bugfix: list[bool] = []
        self.c_nfiles: list[int] = []
        # file change columns
        self.f_sha: list[str] = []
        self.f_path: list[str] = []
        self.f_old: list[str | None] = []
        self.f_type: list[str] = []
        self.f_added: list[int | None] = []
        self.f_deleted: list[int | None] = []
        self.f_binary: list[bool] = []
        self.f_ct: list[int] = []
        # parser state
        self._header: list[bytes] = []
        self._in_header = False
        self._pending_paths = 0          # path tokens still owed to the current raw/numstat entry
        self._pending_kind = ""          # "raw" or "num"
        self._entry: list[bytes] = []
        self._raw: list[tuple[str, bytes, bytes | None, bool]] = []   # (status, path, old, submodule)
        self._num: list[tuple[bytes, bytes]] = []                     # (added, deleted)
        self._has_commit = False

    def feed(self, chunk: bytes) -> None:
        tokens = (self._rest + chunk).split(b"\0")
        self._rest = tokens.pop()
        for tok in tokens:
            self._token(tok)

    def finish(self) -> tuple[pa.Table, pa.Table]:
        if self._rest:
            self._token(self._rest)
            self._rest = b""
        self._end_commit()
        return self._tables()

    # one token of the grammar
    def _token(self, tok: bytes) -> None:
        if self._in_header:
            self._header.append(tok)
            if len(self._header) == gitio.LOG_FIELDS:
                self._in_header = False
                self._start_commit()
            return
        if self._pending_paths:
            self._entry.append(tok)
            self._pending_paths -= 1
            if not self._pending_paths:
                self._close_entry()
            return
        if tok[:1] == b"\x1e":                      # a new commit header
            self._end_commit()
            self._header = [tok[1:]]
            self._in_header = True
            return
        if tok[:1] == b"\n":                        # the line break between header and diff
            tok = tok[1:]
        if not tok:
            return
        if tok[:1] == b":":                         # raw: ":old new oldsha newsha status"
            status = tok.rsplit(b" ", 1)[1].decode()
            self._entry = [tok]
            self._pending_kind = "raw"
            self._pending_paths = 2 if status[0] in "RC" else 1
            return
        # numstat: "added\tdeleted\tpath" or "added\tdeleted\t" followed by old and new paths
        added, deleted, path = tok.split(b"\t", 2)
        if path:
            self._num.append((added, deleted))
        else:
            self._entry = [added, deleted]
            self._pending_kind = "num"
            self._pending_paths = 2

    def _close_entry(self) -> None:
        e = self._entry
        if self._pending_kind == "raw":
            meta = e[0].split(b" ")
            status = meta[4].decode()
            sub = meta[0] == b":160000" or meta[1] == b"160000"
            if len(e) == 3:
                self._raw.append((status[0], e[2], e[1], sub))
            else:
                self._raw.append((status[0], e[1], None, sub))
        else:
            self._num.append((e[0], e[1]))
        self._entry = []

    def _start_commit(self) -> None:
        h = self._header
        sha = h[0].decode()
        parents = h[1].decode().split() if h[1] else []
        msg_b = h[6]
        try:
            msg = msg_b.decode("utf-8")
        except UnicodeDecodeError:
            msg = msg_b.decode("utf-8", "replace")
            self.counters["non_utf8_messages"] += 1
        self.c_sha.append(sha)
        self.c_parents.append(parents)
        self.c_an.append(h[2].decode("utf-8", "replace"))
        self.c_ae.append(h[3].decode("utf-8", "replace"))
        self.c_at.append(int(h[4] or 0) * _US)
        self.c_ct.append(int(h[5] or 0) * _US)
        self.c_msg.append(msg)
        merge = len(parents) > 1
        self.c_merge.append(merge)
        bug = not merge and bool(self._bugfix.search(msg))
        self.c_bugfix.append(bug)
        self._raw = []
        self._num = []
        self._has_commit = True
        c = self.counters
        c["commits"] += 1
        c["bugfix_commits"] += bug
        if merge:
            c["merges"] += 1
            c["merges_skipped"] += self.cfg.skip_merges

    def _end_commit(self) -> None:
        if not self._has_commit:
            return
        self._has_commit = False
        raw, num = self._raw, self._num
        sha, ct = self.c_sha[-1], self.c_ct[-1]
        c = self.counters
        if len(num) != len(raw):                     # no numstat (line_counts off): files, no counts
            num = [(b"", b"")] * len(raw)
        for (status, path_b, old_b, sub), (added, deleted) in zip(raw, num):
            path, bad = _path_text(path_b)
            c["non_utf8_paths"] += bad
            if old_b is not None:
                old, bad = _path_text(old_b)
                c["non_utf8_paths"] += bad
                c["renames"] += status == "R"
            else:
                old = None
            binary = added == b"-" if added else None
            self.f_sha.append(sha)
            self.f_path.append(path)
            self.f_old.append(old)
            self.f_type.append(status)
            self.f_added.append(None if binary or not added else int(added))
            self.f_deleted.append(None if binary or not deleted else int(deleted))
            self.f_binary.append(binary)
            self.f_ct.append(ct)
            c["binary_changes"] += bool(binary)
            c["submodule_changes"] += sub
        n = len(raw)
        self.c_nfiles.append(n)
        c["file_changes"] += n
        c["empty_commits"] += n == 0 and not self.c_merge[-1]
        c["huge_commits"] += n > self.cfg.max_files_per_commit

    def _tables(self) -> tuple[pa.Table, pa.Table]:
        commits = pa.table({
            "sha": pa.array(self.c_sha, pa.string()),
            "parents": pa.array(self.c_parents, pa.list_(pa.string())),
            "author_name": pa.array(self.c_an, pa.string()),
            "author_email": pa.array(self.c_ae, pa.string()),
            "authored_at": pa.array(self.c_at, pa.int64()).cast(_TS),
            "committed_at": pa.array(self.c_ct, pa.int64()).cast(_TS),
            "message": pa.array(self.c_msg, pa.string()),
            "is_merge": pa.array(self.c_merge, pa.bool_()),
            "is_bugfix": pa.array(self.c_bugfix, pa.bool_()),
            "n_files": pa.array(self.c_nfiles, pa.int32()),
        }, schema=S.COMMITS)
        changes = pa.table({
            "sha": pa.array(self.f_sha, pa.string()),
            "path": pa.array(self.f_path, pa.string()),
            "old_path": pa.array(self.f_old, pa.string()),
            "current_path": pa.nulls(len(self.f_sha), pa.string()),
            "change_type": pa.array(self.f_type, pa.string()),
            "added": pa.array(self.f_added, pa.int32()),
            "deleted": pa.array(self.f_deleted, pa.int32()),
            "binary": pa.array(self.f_binary, pa.bool_()),
            "committed_at": pa.array(self.f_ct, pa.int64()).cast(_TS),
        }, schema=S.FILE_CHANGES)
        return commits, changes


def _path_text(b: bytes) -> tuple[str, bool]:
    """A path as Arrow-safe text: UTF-8, or ``\\xNN`` escapes for bytes that are not (flagged)."""
    try:
        return b.decode("utf-8"), False
    except UnicodeDecodeError:
        return b.decode("utf-8", "backslashreplace"), True


def empty_commits() -> pa.Table:
    return S.COMMITS.empty_table()


def empty_file_changes() -> pa.Table:
    return S.FILE_CHANGES.empty_table()


# ---- commit order and rename following ------------------------------------------------------------

def commit_order(commits: pa.Table) -> list[str]:
    """Commit shas newest first, in one canonical topological order of the DAG.

    Order: generation (1 + the highest parent generation; parents missing from the table, as in a
    shallow clone, count as 0) descending, then committed time descending, then sha. It depends
    only on the DAG, never on how the history was read in pieces, so an incremental mine and a full
    mine order commits the same way.
    """
    shas = commits.column("sha").to_pylist()
    parents = commits.column("parents").to_pylist()
    times = commits.column("committed_at").cast(pa.int64()).to_pylist()
    pmap = dict(zip(shas, parents))
    gen: dict[str, int] = {}
    for start in shas:
        if start in gen:
            continue
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
    return sorted(shas, key=lambda s: (-gen[s], -(tmap[s] or 0), s))


def current_paths(file_changes: pa.Table, commits: pa.Table, head_paths: list[str] | None = None
                  ) -> list[str | None]:
    """Each file change's path at HEAD after following renames (None: the file is gone).

    Walks commits newest first (``commit_order``) with a map "path at this point -> path at HEAD":
    a rename old->new maps old to new's current path; an add (or the new side of a rename/copy)
    ends the path's earlier life, so an older, unrelated file with the same name is not confused
    with it. ``head_paths`` (the files at HEAD) decides which paths exist now; without it a path
    exists if its newest change does not delete it.

    Parallel branches: an edit to ``p`` on a branch, while another branch renamed ``p`` to ``q``,
    is met before that rename when the edit is newer. Such an edit is *tentative* (``p`` is not at
    HEAD, or, without ``head_paths``, only presumed alive) until the walk reaches a rename of ``p``
    within the same life of ``p``: then it takes the rename's current path, as git's merge did.
    Merge commits' diffs (mined when merges are not skipped) repeat their branches' adds and
    renames, so they map paths but never start or end a file's life.
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

    for sha in commit_order(commits):
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
            out[i] = cur[p]
            if p in tentative:
                tentative[p].append(i)
        if sha in merges:          # a merge's diff replays its branches' changes: no new file lives
            continue
        for i in rows:
            if ctype[i] in "ARC":
                cur[path[i]] = None
                tentative.pop(path[i], None)
        for i in rows:
            if ctype[i] == "R":
                o, c = old[i], out[i]
                cur[o] = c
                for j in tentative.pop(o, ()):
                    out[j] = c
    return out


__all__ = ["MineResult", "mine", "combine", "LogParser", "commit_order", "current_paths", "empty_commits",
           "empty_file_changes"]
