"""The default branch's version of a few files, for a note written in the checkout while a feature
branch is the version served (``stratum.checkoutnotes.note_scope``).

Such a note marks a target the default branch has in another version as the branch's version,
with the default branch's hash of it (``Target.base_hash``), as a ``--branch fz`` session does.
That hash was read from an overlay of the default branch over the version served: parsing,
linking and embedding every file the two differ in (main rewrote 300 files after fz forked: 6.6 s
for a note about a file main never touched, again after each re-index of fz; a review). Here only
the note's own paths are asked: one ``git diff`` limited to them, then the default branch's blob
of each that differs, parsed as an overlay parses it (``pipeline.parse.parse_file``, whose
``content_hash`` is the one any index or overlay records). No path differs: no blob is read.

The default branch is ``refs/heads/<name>``, else the remote-tracking branch of the remote whose
HEAD named it (``gitio.default_branch``): a clone whose local ``main`` was deleted has
``origin/main`` only, and the note was written unmarked (a review).
"""

from __future__ import annotations

from typing import Callable, Sequence

from pipeline import gitio
from stratum.config import IndexConfig
from stratum.errors import InvalidArgument
from stratum.store import Store


def default_commit(repo: str, name: str) -> str:
    """The commit the default branch NAME is at: ``refs/heads/NAME``, else ``refs/remotes/R/NAME``
    of a remote R whose HEAD names it (origin's first); "" when there is neither."""
    if not name or name.startswith("-") or any(c in name for c in "\n\0*?["):
        return ""
    out = gitio.decode(gitio.run_git(repo, "for-each-ref", "--format=%(refname)%00%(symref)%00%(objectname)",
                                     f"refs/heads/{name}", "refs/remotes/**/HEAD", check=False))
    refs = {r: (s, sha) for r, s, sha in (line.split("\0") for line in out.splitlines() if line.count("\0") == 2)}
    if (mine := refs.get(f"refs/heads/{name}")) is not None:
        return mine[1]
    heads = sorted((r for r in refs if r.endswith("/HEAD")), key=lambda r: r != "refs/remotes/origin/HEAD")
    return next((refs[r][1] for r in heads if refs[r][0] == r[:-4] + name), "")


def default_hashes(store_root: str, default: str, paths: Sequence[str],
                   config: IndexConfig | None = None) -> dict[str, str]:
    """Node id -> content hash of the code the default branch DEFAULT has in each of PATHS where its
    file differs from the store's indexed commit ({} when none does, or there is no such branch).
    A file it lacks, a link, or a file an index skips gives nothing. InvalidArgument when git fails."""
    m = Store(store_root).manifest()
    if not paths or not m.repo_path or not m.indexed_commit:
        return {}
    try:
        sha = default_commit(m.repo_path, default)
        if not sha:
            return {}
        out = gitio.run_git(m.repo_path, "--literal-pathspecs", "-c", "core.quotepath=off", "diff", "--raw", "-z",
                            "--no-renames", m.indexed_commit, sha, "--", *paths)
        recs = out.split(b"\0")
        blobs = {gitio.decode(p): f[3] for h, p in zip(recs[0::2], recs[1::2])    # ":old new old_sha new_sha status"
                 if len(f := h.split(b" ")) > 4 and not f[4].startswith(b"D") and f[1] not in (b"120000", b"160000")}
        if not blobs:
            return {}
        return _hashes(m.repo_path, m.repo_name, blobs, config)
    except gitio.GitError as e:
        raise InvalidArgument(str(e)) from None


def hashes_at(repo: str, repo_name: str, default: str, paths: Sequence[str],
              config: IndexConfig | None = None) -> dict[str, str]:
    """Node id -> content hash of the code the default branch DEFAULT has in each of PATHS, whether
    or not it differs from any index ({} when there is no such branch; InvalidArgument when git
    fails): for the merge, which gives a note's uncommitted target on its own branch, once that
    branch's index has it, the default branch's hash (``pipeline.merge._committed``)."""
    if not paths or not repo:
        return {}
    try:
        sha = default_commit(repo, default)
        if not sha:
            return {}
        out = gitio.run_git(repo, "--literal-pathspecs", "-c", "core.quotepath=off", "ls-tree", "-z", "--full-tree",
                            sha, "--", *paths)
        blobs = {gitio.decode(p): f[2] for rec in out.split(b"\0") if b"\t" in rec     # "mode type sha\tpath"
                 for h, _, p in [rec.partition(b"\t")]
                 if len(f := h.split(b" ")) == 3 and f[1] == b"blob" and f[0] != b"120000"}
        return _hashes(repo, repo_name, blobs, config) if blobs else {}
    except gitio.GitError as e:
        raise InvalidArgument(str(e)) from None


def _hashes(repo: str, repo_name: str, blobs: dict[str, bytes], config: IndexConfig | None) -> dict[str, str]:
    """The content hash of every node of each path's blob, skipped and parsed as an overlay does
    (``pipeline.overlay._index``)."""
    from pipeline.files import content_skip_reason, name_skip_reason
    from pipeline.job import _parse_batch

    cfg = (config or IndexConfig()).parse
    items = []
    for p, blob in sorted(blobs.items()):
        data = _checked_out(repo, blob, p) if not name_skip_reason(p) else None
        if data is not None and not content_skip_reason(data, cfg):
            items.append((p, data))
    return {n["id"]: n["content_hash"] for pf in _parse_batch(repo_name, items, cfg)
            if not (pf.skip_reason and not pf.nodes) for n in pf.nodes}


def _checked_out(repo: str, blob: bytes, path: str) -> bytes | None:
    """BLOB's bytes as a checkout of PATH writes them (``git cat-file --filters``: eol, ident,
    smudge filters): the index reads the work tree, so with ``core.autocrlf`` or ``eol=crlf`` the
    raw blob's LF hashed otherwise, and a note read "stale" on the default branch (a review). One
    git a file (few: the note's own, that differ); ``--batch --filters`` gives the raw size in its
    header (git 2.39), so it cannot be framed. None when git cannot read it."""
    try:
        return gitio.run_git(repo, "cat-file", "--filters", f"--path={path}", gitio.decode(blob))
    except gitio.GitError:
        return None


class OverlayCallback:
    """The overlay callback (``pipeline.overlaybuilder.builder``'s: ``(store root, rev, worktree,
    branch=) -> overlay info``) with ``default_hashes`` beside it: the one object the composition
    roots hand to ``Tools(overlay_builder=)``."""

    def __init__(self, build: Callable[..., dict], config: IndexConfig | None = None):
        self._build, self._config = build, config

    def __call__(self, store_root: str, rev: str, worktree: str = "", *, branch: bool = False) -> dict:
        return self._build(store_root, rev, worktree, branch=branch)

    def default_hashes(self, store_root: str, default: str, paths: Sequence[str]) -> dict[str, str]:
        """``default_hashes`` with the callback's parse settings."""
        return default_hashes(store_root, default, paths, self._config)


class DefaultHashes:
    """path -> the default branch DEFAULT's hashes of the code in it (``hashes_at``), read once a
    path and only when asked ({} for a path it lacks, or when git fails): what the merge gives a
    note's uncommitted target once its own branch's index has that version (``merge._committed``)."""

    def __init__(self, repo: str, repo_name: str, default: str, config: IndexConfig | None = None):
        self._repo, self._name, self._default, self._config = repo, repo_name, default, config
        self._read: dict[str, dict[str, str]] = {}

    def __call__(self, path: str) -> dict[str, str]:
        if path not in self._read:
            self._read[path] = {}
            if path:
                try:
                    self._read[path] = hashes_at(self._repo, self._name, self._default, [path], self._config)
                except (InvalidArgument, OSError):
                    pass
        return self._read[path]


__all__ = ["OverlayCallback", "DefaultHashes", "default_commit", "default_hashes", "hashes_at"]
