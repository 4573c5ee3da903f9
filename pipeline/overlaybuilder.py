"""Which overlay a session's call gets, answered without git while the files that decide it hold.

``builder`` is the callback the composition roots hand to ``stratum.tools.Tools(overlay_builder=)``;
a branch or worktree session calls it on every call (``stratum.tools.Tools._session``). A branch's
last overlay stands while git's ref files say the branch has not moved (``_Heads``); a worktree's
while its HEAD, index and files are as they were at the last look (``_Looks``): an agent's edit
after a worktree session opened is served from its next call (a probe: `stratum mcp` in a linked
worktree kept serving the code as read at open, saying nothing, while the CLI there served the
edit). Only a look that finds a change runs git and ``pipeline.overlay.build``.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass

from pipeline import gitio
from pipeline.overlay import build
from stratum.config import IndexConfig
from stratum.errors import InvalidArgument
from stratum.freshness import MTIME_SLACK_NS
from stratum.store import Store


def builder(config: IndexConfig | None = None):
    """The overlay callback: ``(store root, rev, worktree, branch=) -> overlay info`` (``build``'s).
    A branch session's rev is a branch's before a tag's of the same name (``_Heads.branch_ref``)."""
    heads = _Heads()
    looks = _Looks()

    def build_for(store_root: str, rev: str, worktree: str = "", *, branch: bool = False) -> dict:
        try:
            if worktree:
                return looks.get(store_root, worktree, config)
            key = heads.key(store_root, rev)        # the name's ref files, loose and packed, settle the cache
            name = f"\0branch {rev}" if branch else rev    # a branch session's and a commit session's apart
            got = heads.last(store_root, name, key)
            if got is not None:
                return got
            # a branch session's name is a branch's before a tag's (git's order puts tags first): read on a
            # miss only (packed-refs may be megabytes)
            info = build(store_root, heads.branch_ref(store_root, rev) if branch else rev, config)
            heads.keep(store_root, name, key, info)
            return info
        except gitio.GitError as e:
            raise InvalidArgument(str(e)) from None
    return build_for


@dataclass
class _Look:
    """A worktree's overlay as one look found it, and what says it still holds: the probe of its
    HEAD, the ref that names, packed-refs and its index (``gitio.GitFreshness.probe``: staging and
    commits), the store's manifest (a re-index moves the base), and the folders and files git
    lists there (tracked and untracked, and the folders holding them), none changed since the look
    began (``since_ns``: its wall clock less the file clock's slack). An unstaged edit moves no
    probe, but it stamps its file's mtime and ctime (a ctime no copy or ``touch`` can set back); a
    file made, removed or renamed stamps its folder's."""

    info: dict
    probe: tuple | None
    manifest: tuple | None
    paths: tuple[str, ...]
    since_ns: int

    def holds(self, store_root: str) -> bool:
        root = self.paths[0]
        if self.probe is None or gitio.freshness.probe(root) != self.probe \
                or _stat(os.path.join(store_root, "manifest.json")) != self.manifest:
            return False
        since = self.since_ns
        for p in self.paths:
            try:
                st = os.lstat(p)
            except OSError:
                continue           # gone since: its folder's stamp says so
            if st.st_mtime_ns >= since or st.st_ctime_ns >= since:
                return False
        return True


class _Looks:
    """The last look at each (store, worktree) a session names: ~N stats a call (N: the worktree's
    files and folders; werkzeug's ~330, ~0.7 ms a call), where a look runs git 5-6 times (``git status``
    alone took 12 ms there, 270 ms on sympy with a stale stat cache) and reads every edited file."""

    def __init__(self) -> None:
        self._last: dict[tuple[str, str], _Look] = {}

    def get(self, store_root: str, worktree: str, config: IndexConfig | None) -> dict:
        k = (store_root, worktree)
        look = self._last.get(k)
        if look is not None and look.holds(store_root):
            return dict(look.info, cached=True, seconds=0.0)
        began = time.time_ns()
        manifest = _stat(os.path.join(store_root, "manifest.json"))
        info = build(store_root, "", config, worktree=worktree)
        root = str(gitio.repo_root(worktree))
        files = gitio.ls_files(root)
        folders = {os.path.dirname(p) for p in files} | {os.path.dirname(p) for p in info.get("dirty", ())}
        for d in list(folders):
            while d:
                d = os.path.dirname(d)
                folders.add(d)
        paths = (root, *(os.path.join(root, d) for d in sorted(folders - {""})),
                 *(os.path.join(root, p) for p in files))
        if len(self._last) >= _HEADS_KEPT:
            self._last.clear()
        self._last[k] = _Look(info, gitio.freshness.probe(root), manifest, paths, began - MTIME_SLACK_NS)
        return info


class _Heads:
    """The overlay a branch got at its last build, and the state of the files that said which
    commit it names: the loose ref files git reads a name from (their content, a commit), packed-refs
    (its stat) and the store's manifest (a re-index moves the base). While they hold, the last
    overlay is the answer without a git run: a branch session asks on every call, and ``git
    rev-parse`` costs ~2.4 ms there (the whole cached path ~5 ms; this ~0.1 ms). A name those files
    cannot settle (HEAD, ``feature~1``, a symbolic ref, the reftable backend) is asked of git
    every time."""

    def __init__(self) -> None:
        self._git: dict[str, tuple[tuple | None, str]] = {}          # store root -> (manifest stat, common dir/)
        self._last: dict[tuple[str, str], tuple[tuple, dict]] = {}

    def _common(self, store_root: str) -> tuple[tuple | None, str]:
        """(the manifest's stat, the repository's shared git directory + "/"), read again at a re-index."""
        mstat = _stat(os.path.join(store_root, "manifest.json"))
        got = self._git.get(store_root)
        if got is None or got[0] != mstat:
            m = Store(store_root).manifest()
            got = self._git[store_root] = (mstat, str(gitio.common_dir(m.repo_path)) + os.sep)
        return got

    def branch_ref(self, store_root: str, name: str) -> str:
        """``refs/heads/NAME`` when that branch exists (a loose ref file or a packed-refs line), else
        NAME as given (a remote branch, a full ref): a tag of the same name is served otherwise, and
        the session never follows the branch (a probe)."""
        if not _PLAIN_REF.fullmatch(name) or name.startswith("refs/") or _PER_WORKTREE.match(name) or ".." in name:
            return name
        common = self._common(store_root)[1]
        ref = f"refs/heads/{name}"
        if os.path.isfile(common + ref):
            return ref
        try:
            with open(common + "packed-refs", "rb") as f:
                packed = f.read()
        except OSError:
            return name
        return ref if re.search(rb"^[0-9a-f]{40,64} " + re.escape(ref.encode()) + rb"$", packed, re.M) else name

    def key(self, store_root: str, rev: str) -> tuple | None:
        if not _PLAIN_REF.fullmatch(rev) or ".." in rev or rev.endswith(".lock") or _PER_WORKTREE.match(rev):
            return None
        mstat, common = self._common(store_root)
        if os.path.exists(common + "reftable"):
            return None
        said = []
        for p in (rev, f"refs/{rev}", f"refs/tags/{rev}", f"refs/heads/{rev}", f"refs/remotes/{rev}",
                  f"refs/remotes/{rev}/HEAD"):     # git's order of lookup (gitrevisions)
            try:
                with open(common + p, "rb") as f:
                    data: bytes | None = f.read(4096)
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
                data = None
            if data is not None and data.startswith(b"ref:"):
                return None                # symbolic: what it names lives elsewhere
            said.append(data)
        return (mstat, _stat(common + "packed-refs"), tuple(said))

    def last(self, store_root: str, rev: str, key: tuple | None) -> dict | None:
        got = self._last.get((store_root, rev)) if key is not None else None
        if got is None or got[0] != key or (got[1]["dir"] and not os.path.isdir(got[1]["dir"])):
            return None
        return dict(got[1], cached=True, seconds=0.0)

    def keep(self, store_root: str, rev: str, key: tuple | None, info: dict) -> None:
        if key is not None:
            if len(self._last) >= _HEADS_KEPT:
                self._last.clear()
            self._last[(store_root, rev)] = (key, info)


_PLAIN_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")
# names git reads from a worktree's own directory, not the shared one (HEAD, ORIG_HEAD, refs/bisect/...)
_PER_WORKTREE = re.compile(r"[A-Z_]*HEAD$|(refs/)?(worktree|bisect|rewritten)/|(main-)?worktrees?/")
_HEADS_KEPT = 1024


def _stat(p: str) -> tuple | None:
    try:
        st = os.stat(p)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino



__all__ = ["builder"]
