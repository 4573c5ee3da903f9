"""The parser of ``git log`` output that ``pipeline.history`` mines (``gitio.history_log_args``):
NUL-separated tokens in, ``commits`` and ``file_changes`` tables (stratum.schema) out. Kept apart
from the mining policy (what is read, rename following, combining runs) in ``pipeline.history``."""

from __future__ import annotations

import re

import pyarrow as pa

from pipeline import gitio
from pipeline.fixes import is_bugfix
from stratum import schema as S
from stratum.config import HistoryConfig

_US = 1_000_000
_TS = pa.timestamp("us", tz="UTC")
COUNTERS = ("commits", "merges", "merges_skipped", "empty_commits", "huge_commits", "file_changes",
             "renames", "binary_changes", "submodule_changes", "non_utf8_paths", "non_utf8_messages",
             "bugfix_commits", "boundary_commits")


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
        self.counters = dict.fromkeys(COUNTERS, 0)
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
        self.f_binary: list[bool | None] = []  # None: no numstat line (unknown)
        self.f_ct: list[int] = []
        # parser state
        self._header: list[bytes] = []
        self._in_header = False
        self._pending_paths = 0          # path tokens still owed to the current raw/numstat entry
        self._pending_kind = ""          # "raw" or "num"
        self._entry: list[bytes] = []
        self._raw: list[tuple[bytes, bytes, bytes | None]] = []       # (raw meta, path, old path)
        self._num: list[tuple[bytes, bytes]] = []                     # (added, deleted)
        self._has_commit = False

    def feed(self, chunk: bytes) -> None:
        tokens = (self._rest + chunk).split(b"\0")
        self._rest = tokens.pop()
        self._tokens(tokens)

    def finish(self) -> tuple[pa.Table, pa.Table]:
        if self._rest:
            self._tokens([self._rest])
            self._rest = b""
        self._end_commit()
        return self._tables()

    def _tokens(self, tokens: list[bytes]) -> None:
        """The grammar, one token at a time (one tight loop: this is the miner's hot path)."""
        nfields = gitio.LOG_FIELDS
        header, entry = self._header, self._entry
        in_header, pending, kind = self._in_header, self._pending_paths, self._pending_kind
        raw, num = self._raw, self._num
        for tok in tokens:
            if in_header:
                header.append(tok)
                if len(header) == nfields:
                    in_header = False
                    self._start_commit()
                continue
            if pending:
                entry.append(tok)
                pending -= 1
                if not pending:
                    if kind == "raw":        # (":old new oldsha newsha status", path[, new path])
                        if len(entry) == 3:
                            raw.append((entry[0], entry[2], entry[1]))
                        else:
                            raw.append((entry[0], entry[1], None))
                    else:
                        num.append((entry[0], entry[1]))
                continue
            c = tok[:1]
            if c == b"\x1e":                      # a new commit header
                self._end_commit()
                header = self._header = [tok[1:]]
                in_header = True
                continue
            if c == b"\n":                        # the line break between header and diff
                tok = tok[1:]
                c = tok[:1]
            if not tok:
                continue
            if c == b":":                         # raw: ":old new oldsha newsha status" + paths
                entry = self._entry = [tok]
                kind = "raw"
                sp = tok.rfind(b" ") + 1
                pending = 2 if tok[sp:sp + 1] in (b"R", b"C") else 1
                continue
            # numstat: "added\tdeleted\tpath" or "added\tdeleted\t" followed by old and new paths
            added, deleted, path = tok.split(b"\t", 2)
            if path:
                num.append((added, deleted))
            else:
                entry = self._entry = [added, deleted]
                kind = "num"
                pending = 2
        self._in_header, self._pending_paths, self._pending_kind = in_header, pending, kind

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
        bug = not merge and is_bugfix(msg, self._bugfix)
        self.c_bugfix.append(bug)
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
        f_sha, f_path, f_old, f_type = self.f_sha, self.f_path, self.f_old, self.f_type
        f_added, f_deleted, f_binary, f_ct = self.f_added, self.f_deleted, self.f_binary, self.f_ct
        for (meta, path_b, old_b), (added, deleted) in zip(raw, num):
            sp = meta.rfind(b" ") + 1
            status = meta[sp:sp + 1].decode()
            if meta.startswith(b":160000") or meta[8:14] == b"160000":
                c["submodule_changes"] += 1
            path, bad = decoded_path(path_b)
            c["non_utf8_paths"] += bad
            if old_b is not None:
                old, bad = decoded_path(old_b)
                c["non_utf8_paths"] += bad
                c["renames"] += status == "R"
            else:
                old = None
            if added:
                binary = added == b"-"
                f_added.append(None if binary else int(added))
                f_deleted.append(None if binary else int(deleted))
                c["binary_changes"] += binary
            else:
                binary = None
                f_added.append(None)
                f_deleted.append(None)
            f_sha.append(sha)
            f_path.append(path)
            f_old.append(old)
            f_type.append(status)
            f_binary.append(binary)
            f_ct.append(ct)
        n = len(raw)
        raw.clear()
        self._num.clear()
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


def decoded_path(b: bytes) -> tuple[str, bool]:
    """A path as ``gitio.path_text`` spells it, and whether it is not UTF-8 (counted); one decode
    for a UTF-8 path without a backslash, as nearly every path is."""
    if b"\\" not in b:
        try:
            return b.decode("utf-8"), False
        except UnicodeDecodeError:
            return gitio.path_text(b), True
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return gitio.path_text(b), True
    return gitio.path_text(b), False


def empty_commits() -> pa.Table:
    return S.COMMITS.empty_table()


def empty_file_changes() -> pa.Table:
    return S.FILE_CHANGES.empty_table()


__all__ = ["LogParser", "COUNTERS", "decoded_path", "empty_commits", "empty_file_changes"]
