"""Freshness on every answer: which commit an answer reflects, and a warning when it is stale.

An agent that reads code from the index while the repository has moved on (new commits, a branch
switch, uncommitted edits) must be told, on the answer itself, not only by ``status``. The git work
is the composition root's (``pipeline.gitio.GitFreshness``, the seam: core runs no git): a cheap
``probe`` (a few stats of HEAD, refs and the index) and a ``view`` (HEAD, the paths changed since
the indexed commit, the uncommitted paths). Here the view is cached per store, keyed by the probe
and re-probed at most every ``PROBE_SECONDS``; per call the cost is a ``stat`` of each returned
file, because an edit that is not staged moves neither HEAD nor the index: a file modified after the
view was taken, or one it holds dirty whose stat moved since (put back by hand: an editor's undo, a
copy of HEAD's bytes; it was said uncommitted indefinitely), is judged again. A file git listed
with its blobs (``git status --porcelain=v2``: at HEAD and in the index) is judged by its bytes,
hashed as git hashes a blob (``_by_bytes``): staged, it stays uncommitted; else it is clean again
exactly when its bytes are the index's blob, so an editor's saves and undos run no git. Git looks
again (once per change of the file's stat; answers in flight share it) where git would not hash
those bytes as they are: core.autocrlf=true or core.eol=crlf, a ``filter``, ``ident``,
``working-tree-encoding`` or ``eol=crlf`` attribute (the source's ``plain``: ``config`` and
``check-attr``, once per view), a CR in the bytes (CRLF conversion), a symlink or submodule, an
executable bit unlike the index's (core.filemode), an unmerged file, or a file git had not listed
(a clean file's first edit: its blobs are not known). Where git's stat cache and the bytes
disagree (a checkout under core.autocrlf wrote CRLF, then the blob's own LF bytes are saved: "M" to
git, ``git diff`` empty) git's word stands: those settings always ask git.
An uncommitted file the version read as it is on disk (``stratum index`` reads the work tree) is
no staleness while the disk still holds those bytes (``matches``: a stat, a hash only when the stat
moved); nor, once those edits are committed unchanged, is it a file changed since the indexed
commit: HEAD's version is the one read.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import stat
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Collection, Iterable, Mapping, Sequence

PROBE_SECONDS = 0.5        # re-probe the repository state at most this often
MTIME_SLACK_NS = 20_000_000  # file clocks lag the wall clock a little: count an edit this close as after
NOT_STALE = "not stale: "     # the one warning line that is no staleness (status: files served as read)
NAMED_PATHS = 10           # paths a warning names (the rest are counted)
DIR_KINDS = ("dir", "repo")
_UNSEEN = object()         # a file RepoView.vouched holds no stat for
RACY_NS = 50_000_000       # a modification this close to a look may share its mtime with one after it
COARSE_RACY_NS = 2_000_000_000   # ... on a clock of whole seconds (HFS+, ext3, some NFS; FAT: 2 s)


def racy(mtime_ns: int, now_ns: int) -> bool:
    """Whether a later save may keep this mtime (and size): it is within the file clock's tick of
    now, so an equal stat proves no bytes. A whole second is taken for a coarse clock's (one in 10**9
    finer ones is, which costs a hash): a same-size save in that second kept the stat (a probe)."""
    return mtime_ns >= now_ns - (COARSE_RACY_NS if mtime_ns % 1_000_000_000 == 0 else RACY_NS)


def _vouch(st, now_ns: int):
    """What ``RepoView.vouched`` records for a verdict on a file of stat ``st``: the stat, or, while
    it is ``racy``, a mark no stat equals, so the next answer judges the file again (a same-size save
    in the tick keeps the stat; a later copy restoring an old mtime moves it: both are seen). An mtime
    ahead of the clock (an NFS server's skew, a tar from a skewed machine) is no tick: it was judged
    again, by git, at every answer until the clock caught up (a review)."""
    if st is None or not racy(st[0], now_ns) or st[0] > now_ns + MTIME_SLACK_NS:
        return st       # past the tick, or ahead of the clock (skew): a later save stamps now and moves it
    return ("racy", *st)


@dataclass(frozen=True)
class RepoView:
    """The repository as of one probe state, against one shard's indexed commit."""

    indexed: str | None
    head: str | None
    ahead: int                     # commits HEAD is ahead; -1: HEAD does not descend from the index
    changed: frozenset[str] | None  # paths differing between the indexed commit and HEAD (None: unknown)
    dirty: frozenset[str]          # uncommitted paths (staged, unstaged, untracked)
    taken_ns: int                  # wall clock just before the view was computed
    # returned files by the stat (mtime, size; None: absent) the view's verdict on them is for: ones
    # modified around the time it was taken whose state git then read, and uncommitted ones as first
    # returned unmodified since (as git listed them). Not suspects again until that stat moves: an
    # uncommitted one put back by hand may be clean again, which moves no probe key
    vouched: dict = field(default_factory=dict, compare=False)
    status: dict | None = field(default=None, compare=False)   # the source's status dict from the same look
    # uncommitted tracked files git listed with (mode at HEAD, in the index, blob at HEAD, in the
    # index), and the untracked ones: their later edits are judged by their bytes (``_by_bytes``)
    blobs: Mapping[str, tuple[str, str, str, str]] = field(default_factory=dict, compare=False)
    untracked: frozenset[str] = field(default=frozenset(), compare=False)
    plain: dict = field(default_factory=dict, compare=False)   # path -> whether git hashes its bytes as they are

    @property
    def behind(self) -> bool:
        return bool(self.head and self.indexed and self.head != self.indexed)


class _Entry:
    __slots__ = ("key", "view", "probed")

    def __init__(self, key: Any, view: RepoView | None, probed: float):
        self.key, self.view, self.probed = key, view, probed


class Freshness:
    """Per-store cache of ``RepoView``s over a source with ``probe(repo)`` and ``view(repo, commit)``."""

    def __init__(self, source: Any, *, probe_seconds: float = PROBE_SECONDS):
        self.source = source
        self.probe_seconds = probe_seconds
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._sums: dict[str, tuple[tuple[int, int], str]] = {}   # file -> (its stat, sha1) when hashed

    @staticmethod
    def supports(source: Any) -> bool:
        return source is not None and callable(getattr(source, "probe", None)) and callable(getattr(source, "view", None))

    def view(self, repo_path: str, indexed: str | None, store_root: str = "", *, force: bool = False,
             newer_than: RepoView | None = None) -> RepoView | None:
        """The cached view, recomputed when the probe says the repository state changed. ``force``
        with ``newer_than`` (the view the caller found wanting): a view another caller forced since
        serves instead (N answers in flight after one edit each ran git, one after another under
        the lock: ``_looked_again`` checks what it covers)."""
        ck = f"{repo_path}\0{indexed}"
        now = time.monotonic()
        e = self._entries.get(ck)
        if e is not None and not force and now - e.probed < self.probe_seconds:
            return e.view
        key = self.source.probe(repo_path)
        if e is not None and not force and key is not None and key == e.key:
            e.probed = now
            return e.view
        with self._lock:                 # one computation per state, however many calls wait for it
            e2 = self._entries.get(ck)
            if e2 is not None and e2 is not e and not force and e2.key == key:
                return e2.view
            if (newer_than is not None and e2 is not None and e2.view is not None
                    and e2.view.taken_ns > newer_than.taken_ns):
                return e2.view
            v = self._compute(repo_path, indexed, store_root) if key is not None else None
            self._entries[ck] = _Entry(key, v, time.monotonic())
            return v

    def _compute(self, repo_path: str, indexed: str | None, store_root: str) -> RepoView | None:
        taken = time.time_ns()
        d = self.source.view(repo_path, indexed)
        if not d:
            return None
        inside = _inside(repo_path, store_root)      # a store kept in the repository is not the code
        dirty = frozenset(p for p in d.get("dirty", ()) if not (inside and (p == inside or p.startswith(inside + "/"))))
        changed = d.get("changed")
        status = d.get("status")
        if status is not None and "uncommitted_changes" in status:   # the same files the warnings count
            status = {**status, "uncommitted_changes": bool(dirty)}
        blobs = {p: tuple(b) for p, b in (d.get("blobs") or {}).items() if p in dirty and len(b) == 4}
        return RepoView(indexed, d.get("head"), int(d.get("new_commits", 0)),
                        None if changed is None else frozenset(changed), dirty, taken, status=status,
                        blobs=blobs, untracked=frozenset(p for p in d.get("untracked", ()) if p in dirty))

    def last(self, repo_path: str, indexed: str | None) -> RepoView | None:
        """The view last computed (or kept) for this repository and commit, without probing:
        what the answer being built was just checked against (status shows its facts)."""
        e = self._entries.get(f"{repo_path}\0{indexed}")
        return e.view if e is not None else None

    def check(self, repo_path: str, indexed: str | None, paths: Iterable[tuple[str, str]], *,
              store_root: str = "", everything: bool = False, label: str = "",
              indexed_dirty: Iterable[str] | Mapping[str, Any] = ()) -> tuple[list[str], bool]:
        """(warnings, stale) for an answer returning items at ``paths`` ((path, kind) pairs) from one
        shard. ``everything``: the answer is about the whole view (status), so every uncommitted path
        counts. A returned file edited since the view was taken (one it holds dirty too) makes it be
        taken again (``_looked_again``).
        ``indexed_dirty``: the paths the version read with uncommitted edits (its run report's
        ``dirty_paths``), with what each held (``pipeline.storestate.as_parsed``) since that was
        recorded: one the disk still holds as read is served as it is, so it is not stale."""
        v = self.view(repo_path, indexed, store_root, force=everything)   # status looks afresh
        if v is None:
            return [], False
        paths = [(p, k) for p, k in paths if p is not None]
        if not everything:
            v = self._looked_again(repo_path, indexed, store_root, v, paths)
        held = self._as_indexed(repo_path, v, paths, everything, indexed_dirty)
        return warnings_for(v, paths, everything=everything, label=label,
                            indexed_dirty=indexed_dirty, as_indexed=held)

    def _looked_again(self, repo_path: str, indexed: str | None, store_root: str, v: RepoView,
                      paths: list[tuple[str, str]]) -> RepoView:
        """V, or a view git takes again when a returned file changed since V was taken
        (``_edited_since``): once per change of its stat. A file still a suspect in the new view
        (its mtime within the clock slack of it) is vouched for by its stat, if that did not move
        while git looked: git's verdict on it stands until it changes. A look another answer forced
        meanwhile serves when it covers these files (answers in flight after one edit: one git run)."""
        edited = _edited_since(repo_path, v, paths)
        if not edited:
            return v
        judged = self._by_bytes(repo_path, indexed, v, edited)
        if judged is not None:
            return judged
        before = {p: _stat(os.path.join(repo_path, p)) for p in edited}
        asked = time.time_ns()
        w = self.view(repo_path, indexed, store_root, force=True, newer_than=v) or v
        still = _edited_since(repo_path, w, paths)
        if still and w.taken_ns < asked:     # another answer's look, begun before these stats: git looks again
            w = self.view(repo_path, indexed, store_root, force=True) or w
            still = _edited_since(repo_path, w, paths)
        v = w
        now = time.time_ns()
        for p in still:
            st = _stat(os.path.join(repo_path, p))
            if p in before and before[p] == st:
                v.vouched[p] = _vouch(st, now)
        return v

    def _by_bytes(self, repo_path: str, indexed: str | None, v: RepoView, edited: list[str]) -> RepoView | None:
        """V with every edited file judged without git (``_verdict``), kept as the cached view; None
        when one of them needs git. Each verdict is vouched for by the file's stat when that held
        while it was read and is past the clock's tick (``racy``): else the next answer reads it again."""
        verdicts = {}
        for p in edited:
            got = self._verdict(repo_path, v, p)
            if got is None:
                return None
            verdicts[p] = got
        dirty = frozenset(p for p in v.dirty if verdicts.get(p, (True,))[0]) | {p for p, (d, _) in verdicts.items() if d}
        w = v
        if dirty != v.dirty:
            status = v.status if v.status is None or "uncommitted_changes" not in v.status \
                else {**v.status, "uncommitted_changes": bool(dirty)}
            w = dataclasses.replace(v, dirty=dirty, status=status)
            with self._lock:
                e = self._entries.get(f"{repo_path}\0{indexed}")
                if e is not None and e.view is v:
                    e.view = w
        now = time.time_ns()
        for p, (_, st) in verdicts.items():
            if st is _UNSEEN:
                continue
            w.vouched[p] = _vouch(st, now)
        return w

    def _verdict(self, repo_path: str, v: RepoView, path: str) -> tuple[bool, Any] | None:
        """(whether ``path`` is uncommitted now, the stat that verdict is for, ``_UNSEEN``: none held
        while it was read), from what git listed of it and its bytes; None: git must say."""
        full = os.path.join(repo_path, path)
        before = _stat(full)
        try:
            st: os.stat_result | None = os.lstat(full)
        except FileNotFoundError:
            st = None
        except OSError:
            return None
        if path in v.untracked:
            return st is not None, before      # still there: still untracked (or gone: no change)
        b = v.blobs.get(path)
        if b is None:
            return None
        mode_head, mode_index, at_head, in_index = b
        if (mode_head, at_head) != (mode_index, in_index):
            return True, before                # staged: uncommitted whatever the work tree holds
        if st is None:
            return True, before                # deleted from the work tree
        if (not stat.S_ISREG(st.st_mode) or mode_index not in ("100644", "100755")
                or bool(st.st_mode & stat.S_IXUSR) != (mode_index == "100755")):
            return None                        # a link, a submodule, or an executable bit git may heed
        if not self._plain(repo_path, v, path):
            return None
        try:
            with open(full, "rb") as f:
                data = f.read()
        except OSError:
            return None
        if b"\r" in data:
            return None                        # CRLF conversion may apply: git's clean bytes are not these
        after = _stat(full)
        return blob_id(data, len(in_index)) != in_index, (before if after == before else _UNSEEN)

    def _plain(self, repo_path: str, v: RepoView, path: str) -> bool:
        """Whether git stores ``path``'s bytes as they are (the source's ``plain``, asked once per view
        for all the files it listed with blobs); a source that cannot say trusts none."""
        if path not in v.plain:
            ask = getattr(self.source, "plain", None)
            todo = [p for p in v.blobs if p not in v.plain]
            ok = ask(repo_path, todo) if callable(ask) else frozenset()
            v.plain.update((p, p in ok) for p in todo)
        return bool(v.plain.get(path, False))

    def _as_indexed(self, repo_path: str, v: RepoView, paths: list[tuple[str, str]], everything: bool,
                    indexed_dirty: Iterable[str] | Mapping[str, Any]) -> frozenset[str]:
        """The paths this answer would name as uncommitted or changed since (every one for status;
        returned files, and files below returned folders) that the version read with uncommitted
        edits the disk still holds (``matches``). One changed since and clean was committed as read:
        HEAD's version is the indexed one (a probe: index an edit, commit it, and every answer
        returning the file said it "changed since" though the index held HEAD's bytes)."""
        if not isinstance(indexed_dirty, Mapping) or not indexed_dirty:
            return frozenset()
        moved = _moved(v)
        folders = () if everything else tuple(p.rstrip("/") + "/" for p, k in paths if k == "dir" and p)
        # per answer, its returned files (and, for a returned folder or status, the recorded paths):
        # not sets of every uncommitted and changed path, which grow with the repository's state
        files = set() if everything else {p for p, k in paths if k not in DIR_KINDS}
        named = indexed_dirty if everything or folders else files
        return frozenset(p for p in named if p in indexed_dirty and (p in v.dirty or p in moved)
                         and (everything or p in files or (folders and p.startswith(folders)))
                         and self.matches(repo_path, p, indexed_dirty[p]))

    def matches(self, repo_path: str, path: str, state: Any) -> bool:
        """Whether the file at ``path`` holds what ``state`` (``[size, mtime_ns, sha1]``, None: it
        was deleted; ``pipeline.storestate.as_parsed``) says it held: the same size and mtime
        prove it (0: too recent to), else its bytes are hashed, once per stat of it."""
        full = os.path.join(repo_path, path)
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            return state is None
        except OSError:
            return False
        if state is None or not stat.S_ISREG(st.st_mode):
            return False
        try:
            size, mtime, sha = int(state[0]), int(state[1]), str(state[2])
        except (TypeError, ValueError, IndexError):
            return False                 # a state this code cannot read: said uncommitted, as before
        if st.st_size != size:
            return False
        if mtime and st.st_mtime_ns == mtime:
            return True
        return self._sha1(full, (st.st_mtime_ns, st.st_size)) == sha

    def _sha1(self, full: str, key: tuple[int, int]) -> str | None:
        """The file's sha1, kept by its stat unless that is too recent to tell a later edit apart."""
        kept = self._sums.get(full)
        if kept is not None and kept[0] == key:
            return kept[1]
        try:
            with open(full, "rb") as f:
                sha = hashlib.sha1(f.read()).hexdigest()
        except OSError:
            return None
        if not racy(key[0], time.time_ns()):
            self._sums[full] = (key, sha)
        return sha

    def uncommitted(self, repo_path: str, indexed: str | None, paths: Sequence[str], *,
                    store_root: str = "", indexed_dirty: Iterable[str] | Mapping[str, Any] = ()) -> list[str]:
        """Which of these files the checkout holds in another version than the indexed one:
        uncommitted (a file modified since the view was taken makes it be taken again), or changed
        by a commit after it. A note about them is about that version (``stratum.checkoutnotes``).
        ``indexed_dirty`` as for ``check``: a file the version read with its uncommitted edits is the
        indexed version while the disk holds what was read, committed since or not (a probe: a note
        about it was written "against the work tree's version (it differs from the indexed commit)",
        marked as uncommitted work on the checkout's branch, though the index held those bytes)."""
        v = self.view(repo_path, indexed, store_root)
        if v is None:
            return []
        v = self._looked_again(repo_path, indexed, store_root, v, [(p, "file") for p in paths])
        other = {p for p in paths if p in v.dirty or p in _moved(v)}
        if isinstance(indexed_dirty, Mapping):
            other = {p for p in other if not (p in indexed_dirty and self.matches(repo_path, p, indexed_dirty[p]))}
        return sorted(other)


def warnings_for(v: RepoView, paths: list[tuple[str, str]], *, everything: bool = False,
                 label: str = "", indexed_dirty: Iterable[str] = (),
                 as_indexed: Collection[str] = ()) -> tuple[list[str], bool]:
    """The warning lines for one view and the returned paths; ``stale`` when any but status's line
    of uncommitted files served as read was given.
    ``indexed_dirty``: paths indexed with uncommitted edits; one the work tree no longer has dirty
    (stashed, reverted: no hook fires) serves code that is neither HEAD's nor on disk (a probe).
    ``as_indexed``: paths the version read with uncommitted edits whose disk still holds them
    (``Freshness.check``): what is served is what the agent would open, so an uncommitted one is not
    named, nor a clean one changed since (committed as read: HEAD's version is the indexed one; an
    answer whose every such file is one says that none of its files changed since, as for a commit
    elsewhere; status names them apart, the uncommitted ones in a line that is no staleness: its
    per-shard ``uncommitted_changes`` is git's view of the work tree, true for them too, as
    ``moved_on`` stays true once they are committed; it said nothing beside that flag)."""
    pre = f"{label}: " if label else ""
    held = frozenset(as_indexed)
    dirty = v.dirty - held
    committed = sorted((held - v.dirty) & v.changed) if held and v.behind and v.changed else []
    changed = v.changed - frozenset(committed) if committed and v.changed is not None else v.changed
    out: list[str] = []
    if v.behind:
        ahead = (f"{v.ahead} commit{'s' if v.ahead != 1 else ''} ahead" if v.ahead >= 0
                 else "HEAD does not descend from the indexed commit")
        msg = f"stale: {pre}the index is at {_short(v.indexed)} and HEAD is {_short(v.head)} ({ahead})"
        if changed is None:
            msg += "; which files changed is unknown (the indexed commit is gone)"
        elif everything:
            msg += f"; {len(changed)} file{'s' if len(changed) != 1 else ''} changed since" + (
                f": {_names(sorted(changed))}" if changed else "") + (
                f"; {len(committed)} file{'s' if len(committed) != 1 else ''} committed as the index read "
                f"{'them' if len(committed) != 1 else 'it'} (with uncommitted edits): {_names(committed)}" if committed else "")
        else:
            hit, under = _touched(changed, paths)
            msg += (f"; these returned files changed since: {_names(hit)}" if hit else "") + (
                f"; files changed since below the returned folders: {_folders(under)}" if under else "") + (
                "" if hit or under else "; none of the returned files changed since")
        out.append(msg)
    if dirty:
        if everything:
            out.append(f"uncommitted changes: {pre}{len(dirty)} file{'s' if len(dirty) != 1 else ''}: "
                       f"{_names(sorted(dirty))}")
        else:
            hit, under = _touched(dirty, paths)
            if hit:
                out.append(f"uncommitted changes in {pre}{_names(hit)} (returned here)")
            if under:
                out.append(f"uncommitted changes below the returned folders: {pre}{_folders(under)}")
    read = sorted(v.dirty & held) if everything else []
    if read:
        n = len(read)         # not an "uncommitted changes" line: the CLI prints those as staleness
        out.append(f"{NOT_STALE}{pre}{n} uncommitted file{'s' if n != 1 else ''} the index read as the work tree "
                   f"holds {'them' if n != 1 else 'it'}: {_names(read)}")
    gone = frozenset(p for p in indexed_dirty if p not in v.dirty
                     and not (v.behind and v.changed is not None and p in v.changed))     # said above
    if gone:                                    # every answer: none, mostly
        hit, under = (sorted(gone), {}) if everything else _touched(gone, paths)
        if hit or under:
            said = (_names(hit) if hit else "") + (" and " if hit and under else "") + (
                f"files below the returned folders {_folders(under)}" if under else "")
            out.append(f"stale: {pre}this version indexed uncommitted edits of {said} that the work tree "
                       "no longer has (stashed or reverted since): run `stratum index`")
    return out, any(not w.startswith(NOT_STALE) for w in out)     # every line but that one is staleness


def blob_id(data: bytes, width: int = 40) -> str:
    """The id git gives a blob of these bytes: sha1 of ``blob <size>\\0`` and them (sha256 in a
    repository of 64-digit ids)."""
    h = hashlib.sha1() if width != 64 else hashlib.sha256()
    h.update(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


def _moved(v: RepoView) -> frozenset[str]:
    """The paths a commit after the indexed one changed (none known: empty)."""
    return (v.changed or frozenset()) if v.behind else frozenset()


def _touched(changed: frozenset[str], paths: list[tuple[str, str]]) -> tuple[list[str], dict[str, int]]:
    """(the changed paths that are returned files, {returned folder: how many changed paths lie
    below it}). A warning names only what the answer returned: a folder's files are counted under
    it, not named as returned (a tree page of .ci/, bin/, doc/ said "these returned files changed
    since: sympy/core/numbers.py"), and the repository's own item is the repository that moved on,
    which the warning says first (its summary counts everything: every change lay below it)."""
    hit: set[str] = set()
    under: dict[str, int] = {}
    for p, kind in paths:
        if kind in DIR_KINDS:
            if kind == "dir" and p and p not in under:
                pre = p.rstrip("/") + "/"
                n = sum(1 for c in changed if c.startswith(pre))
                if n:
                    under[p] = n
        elif p in changed:
            hit.add(p)
    return sorted(hit), under


def _folders(under: dict[str, int]) -> str:
    """``docs/ (1), src/ (14)``: returned folders, each with how many of the files below it changed."""
    items = [f"{p.rstrip('/')}/ ({n})" for p, n in sorted(under.items())]
    return _names(items)


def _edited_since(repo_path: str, v: RepoView, paths: list[tuple[str, str]]) -> list[str]:
    """Returned files git's verdict in the view may no longer hold for: modified (or removed) after
    it was taken, or whose stat moved since the one the verdict is for (``RepoView.vouched``): an
    uncommitted file put back by hand runs no git command, so no probe key moves (it was said
    uncommitted indefinitely); a copy that restores its old mtime is caught by that stat too. "After"
    is ``racy``: within the clock slack of the look, or in its second on a whole-second clock (an
    edit in the second of git's look kept its stat and was never reported: a review)."""
    edge = v.taken_ns + MTIME_SLACK_NS     # racy against it: within the slack, or a whole-second clock's tick
    seen: set[str] = set()
    out = []
    for p, kind in paths:
        if kind in DIR_KINDS or not p or p in seen:
            continue
        seen.add(p)
        st = _stat(os.path.join(repo_path, p))
        known = v.vouched.get(p, _UNSEEN)
        if known is not _UNSEEN:
            if st != known:
                out.append(p)                  # moved since git's verdict on it
        elif p in v.dirty:
            if st is not None and racy(st[0], edge):
                out.append(p)                  # git may have listed another version of it
            else:
                v.vouched[p] = st              # unmodified since git listed it: its stat then
        elif st is None:
            if v.changed is None or p not in v.changed:
                out.append(p)        # removed from the work tree since (a commit that deleted it is in changed)
        elif racy(st[0], edge):
            out.append(p)
    return out


@functools.lru_cache(maxsize=256)
def repo_at(store_root: str, recorded: str) -> str:
    """The repository a store answers for: the work tree holding it when it is that work tree's
    default store (``<repository>/.git/stratum``, or ``<repository>/.stratum`` beside a ``.git``; a
    worktree's own store by git's record of it: ``storehome.repository_of``): a copied or moved clone
    carries its store, whose manifest still names the folder it was indexed in (a probe: a copy's
    answers were judged against the original's HEAD, a moved one's against nothing). Else the path
    the manifest records."""
    from stratum.storehome import repository_of

    return (repository_of(store_root) if store_root else None) or recorded


def _stat(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _inside(repo_path: str, store_root: str) -> str:
    if not store_root:
        return ""
    try:
        rel = os.path.relpath(os.path.realpath(store_root), os.path.realpath(repo_path))
    except ValueError:
        return ""
    return "" if rel.startswith("..") else rel.replace(os.sep, "/")


def _short(sha: str | None) -> str:
    return (sha or "none")[:7]


def _names(paths: list[str]) -> str:
    head = ", ".join(paths[:NAMED_PATHS])
    return head + (f" and {len(paths) - NAMED_PATHS} more" if len(paths) > NAMED_PATHS else "")


__all__ = ["Freshness", "RepoView", "warnings_for", "racy", "blob_id", "PROBE_SECONDS"]
