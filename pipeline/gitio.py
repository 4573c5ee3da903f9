"""All git access of the project lives here (subprocess `git`, byte-exact, -z separated).

Paths come back as ``str`` decoded with ``surrogateescape`` so non-UTF-8 file names survive a
round trip; callers never shell out to git themselves. ``path_text`` is how a path is spelled where
it must be UTF-8 text (the history datasets, a report's samples); ``structure_path`` reads it back.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Generator, Iterable, Iterator

from pipeline.logargs import LOG_FIELDS, LOG_FORMAT, history_log_args, patch_log_args
from stratum.errors import NotARepository, StratumError
from stratum.storehome import LEGACY, git_dirs

ENC = "utf-8"
ERRS = "surrogateescape"


class GitError(StratumError):
    code = "git_error"


def run_git(repo: str | os.PathLike, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
    """Run git in ``repo`` and return stdout bytes; a failure is a GitError with git's own message."""
    try:
        p = subprocess.run(["git", "-C", str(repo), *args], input=input, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH") from None
    if check and p.returncode != 0:
        raise GitError(f"git {' '.join(args[:3])} failed in {repo}: {p.stderr.decode(ENC, ERRS).strip()}")
    return p.stdout


def decode(b: bytes) -> str:
    return b.decode(ENC, ERRS)


def path_text(b: bytes | str) -> str:
    """A path (git's bytes, or ``decode``'s str) as UTF-8 text: a byte that is not UTF-8 spelled
    ``\\xNN`` and a backslash ``\\\\``, everything else as it is. With the backslash kept single,
    ``caf\\xe9.py`` (a backslash, x, e, 9: a valid name) and ``caf<E9>.py`` read the same, and their
    histories merged into one file; escaped, each text names one file (``structure_path``)."""
    if isinstance(b, str):
        b = b.encode(ENC, ERRS)
    if b"\\" in b:
        b = b.replace(b"\\", b"\\\\")
    try:
        return b.decode(ENC)
    except UnicodeDecodeError:
        return b.decode(ENC, "backslashreplace")


_ESCAPED = re.compile(rb"\\(\\|x[0-9a-f]{2})")


def structure_path(text: str) -> str | None:
    """The file name ``path_text`` spelled as ``text``, as the structure side names it (the name
    itself: files.discover indexes UTF-8 names only); None for a name that is not UTF-8, which is
    no node (``undecodable_path``) and must match none."""
    if "\\" not in text:
        return text
    raw = _ESCAPED.sub(lambda m: b"\\" if m[1] == b"\\" else bytes([int(m[1][1:], 16)]), text.encode(ENC))
    try:
        return raw.decode(ENC)
    except UnicodeDecodeError:
        return None


def repo_root(path: str | os.PathLike) -> Path:
    """The top of the work tree holding ``path``. A folder below the top is that repository's only
    when the repository holds it: a folder it ignores, or one it tracks no file in (scratch space
    inside another checkout), is NotARepository, never silently the enclosing repository. When git
    cannot look (permission denied, "dubious ownership") the error says git's own reason."""
    p = Path(path)
    if not p.exists():
        raise NotARepository(f"{path} does not exist")
    if not p.is_dir():
        raise NotARepository(f"{path} is not a directory")
    try:                                # --show-cdup first: "../" steps, so a newline in the top's name is the top's
        out = subprocess.run(["git", "-C", str(p), "rev-parse", "--show-cdup", "--show-toplevel"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH") from None
    if out.returncode != 0:
        said = " ".join(ln.strip() for ln in decode(out.stderr).splitlines() if ln.strip())   # with git's hint
        reason = said.removeprefix("fatal: ") or f"git exited {out.returncode}"
        if reason.startswith("not a git repository"):
            raise NotARepository(f"{path} is not inside a git repository (git init it, or pass a repository path)")
        raise NotARepository(f"git cannot read {path}: {reason}")
    cdup, _, top = decode(out.stdout).partition("\n")
    root = Path(top.removesuffix("\n"))
    if cdup:
        _held_by(root, p, path)
    return root


def _held_by(root: Path, folder: Path, path: str | os.PathLike) -> None:
    """NotARepository unless the repository at ``root`` holds ``folder``, a folder below its top
    (not ignored, at least one file tracked in it): ``path`` then stands for that repository."""
    ignored = subprocess.run(["git", "-C", str(folder), "check-ignore", "-q", "--", "."],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if ignored:
        raise NotARepository(f"{path} is not a git repository: it is inside {root}, which ignores it")
    # the first entry that is not a gitlink answers it (no need to list a big folder): an
    # uninitialised submodule's empty folder is "tracked" only as the superproject's gitlink (160000)
    with subprocess.Popen(["git", "-C", str(folder), "ls-files", "-z", "--cached", "--stage", "--", "."],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as ls:
        tracked, buf = False, b""
        while ls.stdout is not None and not tracked:
            chunk = os.read(ls.stdout.fileno(), 65536)
            if not chunk:
                break
            *entries, buf = (buf + chunk).split(b"\0")
            tracked = any(e and not e.startswith(b"160000 ") for e in entries)
        tracked = tracked or bool(buf) and not buf.startswith(b"160000 ")
        ls.kill()
    if not tracked:
        raise NotARepository(f"{path} is not a git repository: it is inside {root}, which tracks no file in it")


def head_commit(repo: str | os.PathLike) -> str | None:
    """HEAD's sha, or None for a repository with no commits yet."""
    out = run_git(repo, "rev-parse", "--verify", "-q", "HEAD", check=False).strip()
    return decode(out) or None


def checkout_branch(repo: str | os.PathLike) -> str:
    """The branch REPO's work tree has checked out, "" when its HEAD is detached. Its full ref less
    ``refs/heads/``: ``--short`` says ``heads/fz`` when a tag fz exists too (a review)."""
    return decode(run_git(repo, "symbolic-ref", "-q", "HEAD", check=False)).strip().removeprefix("refs/heads/")


def default_branch(repo: str | os.PathLike) -> str:
    """REPO's default branch, "" when git cannot say: the one a remote's HEAD names (origin's, else by name; a dangling
    or plain one names none), else init.defaultBranch if a branch here, else main or master if just one is a branch."""
    mine = decode(run_git(repo, "config", "--get", "init.defaultBranch", check=False)).strip()
    heads = [f"refs/heads/{b}" for b in dict.fromkeys(b for b in (mine, "main", "master") if b)]
    out = decode(run_git(repo, "for-each-ref", "--format=%(refname)%00%(symref)", "refs/remotes/**/HEAD", *heads,
                         check=False))      # `**`: a remote named team/up; a dangling HEAD is left out
    refs = dict(line.partition("\0")[::2] for line in out.splitlines())
    named = (s[len(r) - 4:] for r, s in sorted(refs.items(), key=lambda i: i[0] != "refs/remotes/origin/HEAD")
             if r.startswith("refs/remotes/") and s.startswith(r[:-4]))      # refs/remotes/<remote>/<branch>
    found = [h[len("refs/heads/"):] for h in heads if h in refs]
    return next(named, "") or (found[0] if len(found) == 1 or found and found[0] == mine else "")


def root_commits(repo: str | os.PathLike) -> list[str]:
    """The parentless commits reachable from HEAD, sorted: a repository's identity across clones,
    moves and force pushes of recent history ([] without commits)."""
    out = run_git(repo, "rev-list", "--max-parents=0", "HEAD", check=False)
    return sorted(decode(out).split())


def has_any_commit(repo: str | os.PathLike, shas: list[str]) -> bool:
    """True when at least one of ``shas`` is a commit in ``repo``'s object store (one git call)."""
    if not shas:
        return False
    out = run_git(repo, "cat-file", "--batch-check", check=False,
                  input="".join(f"{s}^{{commit}}\n" for s in shas).encode())
    return any(line and not line.endswith(b" missing") for line in out.splitlines())


def main_worktree(repo: str | os.PathLike) -> Path | None:
    """The main checkout's root when ``repo`` is a linked worktree (``git worktree add``), else None
    (a main checkout, or a bare repository's worktrees, whose common dir is not a ``.git``)."""
    out = decode(run_git(repo, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir",
                         check=False)).split()
    if len(out) != 2 or Path(out[0]) == Path(out[1]) or Path(out[1]).name != ".git":
        return None
    return Path(out[1]).parent


def shallow_boundary(repo: str | os.PathLike) -> list[str]:
    """The boundary commits of a shallow clone (git's ``shallow`` file: commits whose parents were
    not fetched), sorted; [] for a full clone. One git call; the file is read only when shallow."""
    out = decode(run_git(repo, "rev-parse", "--is-shallow-repository", "--git-path", "shallow", check=False)).split("\n")
    if not out or out[0].strip() != "true" or len(out) < 2:
        return []
    path = Path(out[1].strip())
    try:
        text = (path if path.is_absolute() else Path(repo) / path).read_text(encoding="ascii", errors="replace")
    except OSError:
        return []
    return sorted({ln.strip() for ln in text.splitlines() if ln.strip()})


def boundary_key(boundary: list[str]) -> str:
    """A short fingerprint of ``shallow_boundary`` ("" for a full clone): a store records it, so a
    clone deepened or unshallowed since its last index is mined again."""
    if not boundary:
        return ""
    import hashlib

    return hashlib.sha256("\n".join(boundary).encode()).hexdigest()[:16]


def ls_files(repo: str | os.PathLike) -> list[str]:
    """Tracked files plus untracked, not-ignored ones (what the user would call 'the code')."""
    out = run_git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate")
    return sorted({decode(p) for p in out.split(b"\0") if p})


def ignored_files(repo: str | os.PathLike) -> list[str]:
    """Files present on disk but ignored by .gitignore (counted as skipped, never parsed)."""
    out = run_git(repo, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory",
                  check=False)
    return [decode(p) for p in out.split(b"\0") if p]


def submodule_paths(repo: str | os.PathLike) -> list[str]:
    """Paths of submodules (gitlinks) recorded in the index."""
    out = run_git(repo, "ls-files", "-z", "--stage", check=False)
    paths = []
    for rec in out.split(b"\0"):
        if rec.startswith(b"160000 "):
            paths.append(decode(rec.split(b"\t", 1)[1]))
    return paths


def worktree_clean(repo: str | os.PathLike, exclude: tuple[str, ...] = ()) -> bool:
    """True when nothing differs from HEAD: no staged, unstaged or untracked (not ignored) change
    outside the ``exclude`` directories (e.g. a store kept inside the repository)."""
    spec = [".", *(f":(exclude){e}" for e in exclude)]
    out = run_git(repo, "status", "--porcelain", "-z", "--untracked-files=normal", "--", *spec, check=False)
    return not out.strip()


# ---- history (streaming git log) -----------------------------------------------------------------

def stream_git(repo: str | os.PathLike, args: list[str], chunk_size: int = 1 << 20,
               stdin: bytes | None = None) -> Generator[bytes, None, None]:
    """Yield git's stdout in chunks as it is produced; GitError (with git's message) on failure.

    stderr goes to a temporary file, so a chatty git (rename-limit warnings on huge commits) can
    never fill a pipe and deadlock the reader.
    """
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as inp:
        if stdin is not None:           # from a file: git never blocks on a pipe we are not reading
            inp.write(stdin)
            inp.seek(0)
        try:
            p = subprocess.Popen(["git", "-C", str(repo), *args], stdout=subprocess.PIPE, stderr=err,
                                 stdin=inp if stdin is not None else subprocess.DEVNULL, bufsize=0)
        except FileNotFoundError:
            raise GitError("git is not installed or not on PATH") from None
        assert p.stdout is not None     # opened with stdout=PIPE
        try:
            read = p.stdout.read
            while True:
                b = read(chunk_size)
                if not b:
                    break
                yield b
        finally:
            p.stdout.close()
            rc = p.wait()
        if rc != 0:
            err.seek(0)
            raise GitError(f"git {' '.join(a for a in args if not a.startswith('-'))[:60]} failed in {repo}: "
                           f"{decode(err.read()).strip()}")


def stream_history(repo: str | os.PathLike, rev_range: str = "HEAD", *, merge_diffs: bool = False,
                   line_counts: bool = True) -> Generator[bytes, None, None]:
    """The history log of ``rev_range`` as raw chunks (see ``history_log_args``)."""
    return stream_git(repo, history_log_args(rev_range, merge_diffs=merge_diffs, line_counts=line_counts))


def is_ancestor(repo: str | os.PathLike, ancestor: str, descendant: str = "HEAD") -> bool:
    """True when ``ancestor`` is reachable from ``descendant`` (False if it does not exist)."""
    p = subprocess.run(["git", "-C", str(repo), "merge-base", "--is-ancestor", ancestor, descendant],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p.returncode == 0


def tree_paths(repo: str | os.PathLike, rev: str = "HEAD") -> list[bytes]:
    """Every blob/gitlink path in ``rev``'s tree, as raw bytes (callers decode)."""
    out = run_git(repo, "ls-tree", "-r", "-z", "--name-only", "--full-tree", rev)
    return [p for p in out.split(b"\0") if p]


def stream_patches(repo: str | os.PathLike, shas: list[str], pathspecs: list[str] | None = None
                   ) -> Iterator[bytes]:
    """Zero-context patches of exactly ``shas`` (in that order), limited to ``pathspecs``."""
    return stream_git(repo, patch_log_args(pathspecs), stdin=("\n".join(shas) + "\n").encode())


class BlobReader:
    """A long-lived `git cat-file --batch` process: reads blob contents by ``rev:path`` or sha.

    One process for many reads (spawning git per blob would dominate the cost). Close it, or use it
    as a context manager.
    """

    def __init__(self, repo: str | os.PathLike):
        try:
            self._p = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL)
        except FileNotFoundError:
            raise GitError("git is not installed or not on PATH") from None
        assert self._p.stdin is not None and self._p.stdout is not None     # both opened with PIPE
        self._in, self._out = self._p.stdin, self._p.stdout

    def read(self, spec: str | bytes) -> bytes | None:
        """The object's bytes, or None when it does not exist (or is not a blob)."""
        if isinstance(spec, str):
            spec = spec.encode(ENC, ERRS)
        if b"\n" in spec:
            return None
        self._in.write(spec + b"\n")
        self._in.flush()
        header = self._out.readline()
        if not header or header.endswith(b"missing\n") or header.endswith(b"ambiguous\n"):
            return None
        parts = header.split()
        size = int(parts[2])
        data = self._out.read(size)
        self._out.read(1)  # the newline after the content
        return data if parts[1] == b"blob" else None

    def close(self) -> None:
        if self._p.poll() is None:
            self._in.close()
            self._p.wait()

    def __enter__(self) -> "BlobReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


__all__ = ["GitError", "run_git", "decode", "path_text", "structure_path", "repo_root", "head_commit", "root_commits", "has_any_commit", "main_worktree", "shallow_boundary", "boundary_key", "ls_files",
           "ignored_files", "submodule_paths", "worktree_clean",
           "LOG_FORMAT", "LOG_FIELDS", "history_log_args", "stream_git", "stream_history",
           "is_ancestor", "tree_paths", "patch_log_args", "stream_patches", "BlobReader",
           "GitFreshness", "freshness", "dirty_paths", "code_dirty_paths", "worktree_look", "STORE_DIR"]


def _top_head(repo_path: str) -> tuple[bool, str | None]:
    """(whether ``repo_path`` is itself a repository's top, HEAD's sha or None without commits), in
    one git call. git searches upward: a store's folder deleted or moved away answered
    ``repo_available`` with no HEAD, and the same folder left without its ``.git`` inside another
    checkout answered with that checkout's HEAD, as if it were the store's repository."""
    try:
        out = run_git(repo_path, "rev-parse", "--show-cdup", "--verify", "-q", "HEAD", check=False)
    except (GitError, OSError):
        return False, None
    if not out or out[:1] != b"\n":   # no repository at all ("" ), or the top is above it ("../")
        return False, None
    return True, decode(out[1:].strip()) or None


def _status(repo_path: str, indexed_commit: str | None) -> dict:
    """Whether a repository has moved on since it was indexed: new commits, uncommitted changes."""
    here, head = _top_head(repo_path)
    if not here:
        return {"repo_available": False}
    return _status_of(head, indexed_commit, _count_new(repo_path, indexed_commit, head),
                      _uncommitted(_porcelain(repo_path)))


def _count_new(repo_path: str, indexed_commit: str | None, head: str | None) -> bytes | None:
    """git's count of commits in indexed..HEAD (b"" when it failed), None when HEAD is the indexed one."""
    if head and indexed_commit and head != indexed_commit:
        return run_git(repo_path, "rev-list", "--count", f"{indexed_commit}..{head}", check=False).strip()
    return None


def _status_of(head: str | None, indexed_commit: str | None, count: bytes | None, uncommitted: bool) -> dict:
    """The status dict from its facts (``_status`` asks git for them; ``view`` has them already)."""
    new = 0 if count is None else int(count) if count.isdigit() else -1   # -1: indexed commit no longer in history
    return {"repo_available": True, "head": head, "new_commits": new,
            "moved_on": bool(head != indexed_commit), "uncommitted_changes": uncommitted}


@functools.lru_cache(maxsize=256)
def _git_dirs(repo_path: str) -> tuple[str, str] | None:
    """(git dir, common dir) of a work tree, read from disk once (``storehome.git_dirs``, the one
    reader of git's ``.git`` file and ``commondir``)."""
    dirs = git_dirs(repo_path)
    return None if dirs is None else (str(dirs.git_dir), str(dirs.common))


def _stat_key(path: str) -> tuple:
    try:
        st = os.stat(path)
    except OSError:
        return ()
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class GitFreshness:
    """The freshness seam the composition roots hand to ``Tools`` (core never runs git itself).

    Called as a function it is the status check (``status`` shows its dict). ``probe`` is the cheap
    state key (a few stats: HEAD, the ref it names, packed-refs, the index; no subprocess) that tells
    the caller when ``view`` (two git runs: the diff from the indexed commit to HEAD, and the
    uncommitted paths) has to be computed again. The view carries the status dict too, from the
    same runs, so ``status`` (which looks afresh for its warnings) need not ask git again, and each
    uncommitted file's blobs, by which ``plain`` files edited later are judged without git.
    """

    def __call__(self, repo_path: str, indexed_commit: str | None) -> dict:
        return _status(repo_path, indexed_commit)

    def probe(self, repo_path: str) -> tuple | None:
        dirs = _git_dirs(str(repo_path))
        if dirs is None:
            return None
        gd, common = dirs
        head_file = os.path.join(gd, "HEAD")
        ref = ""
        try:
            with open(head_file, "rb") as f:
                first = f.read(512).strip()
            if first.startswith(b"ref: "):
                ref = decode(first[5:])
        except OSError:
            return None
        return (first, _stat_key(os.path.join(common, ref)) if ref else (),
                _stat_key(os.path.join(common, "packed-refs")), _stat_key(os.path.join(gd, "index")))

    def view(self, repo_path: str, indexed_commit: str | None) -> dict | None:
        """head, new_commits (-1: the indexed commit is not an ancestor of HEAD), ``changed``: paths
        that differ between the indexed commit and HEAD (None when unknown), ``dirty``: paths with
        staged, unstaged or untracked changes; None when the repository is not there (its folder
        gone, or no longer a repository's top)."""
        here, head = _top_head(repo_path)
        if not here:
            return None
        new = 0
        changed: list[str] | None = []          # None: the diff failed (unknown)
        out = _count_new(repo_path, indexed_commit, head)
        if out is not None and indexed_commit and head:      # (_count_new gave a count: both known)
            new = int(out) if out.isdigit() and is_ancestor(repo_path, indexed_commit, head) else -1
            p = subprocess.run(["git", "-C", str(repo_path), "-c", "core.quotepath=off", "diff", "--name-only",
                                "-z", "--no-renames", "--no-ext-diff", indexed_commit, head, "--"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            changed = sorted({decode(x) for x in p.stdout.split(b"\0") if x}) if p.returncode == 0 else None
        recs = _porcelain(repo_path)
        return {"head": head, "new_commits": new, "changed": changed, "dirty": _paths_of(recs),
                "status": _status_of(head, indexed_commit, out, _uncommitted(recs)),
                "blobs": {decode(p): w for p, w in recs if isinstance(w, tuple)},
                "untracked": [decode(p) for p, w in recs if w == "?"]}

    def plain(self, repo_path: str, paths: Iterable[str]) -> frozenset[str]:
        """Of ``paths``, those whose bytes git stores as they are (``gitattrs.stored_as_is``)."""
        from pipeline.gitattrs import stored_as_is

        return stored_as_is(repo_path, paths)



def dirty_paths(repo: str | os.PathLike) -> list[str]:
    """Paths with uncommitted changes: staged, unstaged, untracked (not ignored); both names of a rename."""
    return _paths_of(_porcelain(repo))


def _porcelain(repo: str | os.PathLike, ignored: bool = False) -> list[tuple[bytes, tuple | str | None]]:
    """``git status`` records as (path, what): untracked "?"; a changed tracked file (its mode at HEAD
    and in the index, its blob at HEAD and in the index), from which a file put back can be told
    without asking again (``stratum.freshness``); unmerged None; ``ignored``: "!" (an ignored folder
    once, ``dir/``)."""
    # --no-optional-locks: status must not refresh (rewrite) the index, which would change the probe
    out = run_git(repo, "--no-optional-locks", "-c", "core.quotepath=off", "status", "--porcelain=v2", "-z",
                  "--untracked-files=all", "--no-renames", *(["--ignored=matching"] if ignored else []), check=False)
    recs: list[tuple[bytes, tuple | str | None]] = []
    for rec in out.split(b"\0"):
        kind = rec[:2]
        if kind == b"1 ":               # 1 XY sub mH mI mW hH hI path
            f = rec.split(b" ", 8)
            recs.append((f[8], (decode(f[3]), decode(f[4]), decode(f[6]), decode(f[7]))))
        elif kind == b"u ":             # u XY sub m1 m2 m3 mW h1 h2 h3 path
            recs.append((rec.split(b" ", 10)[10], None))
        elif kind in (b"? ", b"! "):
            recs.append((rec[2:], decode(kind[:1])))
    return recs


STORE_DIR = LEGACY + "/"    # a store in the work tree (the older default): never a change of the code
_STORE = STORE_DIR.encode()


def code_dirty_paths(repo: str | os.PathLike) -> list[str]:
    """``dirty_paths`` less the default store's folder: the code's uncommitted paths (one rule for
    status, the CLI and ``worktree_look``, which had each written it)."""
    return worktree_look(repo, ignored=False)[0]


def worktree_look(repo: str | os.PathLike, ignored: bool = True) -> tuple[list[str], list[str]]:
    """(``code_dirty_paths``, the ignored paths git does not look into: a folder once, as ``dir/``),
    from one ``git status``: what a cache of the first must watch (``stratum.cli.server_place``)."""
    recs = _porcelain(repo, ignored=ignored)
    return [p for p in _paths_of(recs) if not p.startswith(STORE_DIR)], [decode(p) for p, w in recs if w == "!"]


def _uncommitted(recs: list[tuple[bytes, tuple | str | None]]) -> bool:
    """Whether ``_porcelain``'s records hold a change: untracked files count, as the answers'
    warnings count them (status said ``uncommitted_changes`` false beside a warning naming an
    untracked file); the default store's folder does not (``Freshness`` leaves out any store)."""
    return any(w != "!" and not p.startswith(_STORE) for p, w in recs)


def _paths_of(recs: list[tuple[bytes, tuple | str | None]]) -> list[str]:
    return sorted({decode(p) for p, w in recs if w != "!"})


def rev_parse(repo: str | os.PathLike, rev: str) -> str:
    """The commit sha a branch, tag or commit names; a GitError naming REV when there is none."""
    if not rev or rev.startswith("-") or "\n" in rev:
        raise GitError(f"not a revision: {rev!r}")
    out = decode(run_git(repo, "rev-parse", "--verify", "-q", rev + "^{commit}", check=False)).strip()
    if not out:
        raise GitError(f"no commit or branch {rev!r} in {repo}")
    return out


def common_dir(repo: str | os.PathLike) -> Path:
    """The repository's shared git directory (the same for all its worktrees)."""
    out = decode(run_git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir")).strip()
    return Path(out).resolve()


def diff_paths(repo: str | os.PathLike, base: str, target: str) -> tuple[list[str], list[str], set[str]]:
    """(changed or added, deleted) paths between two commits (renames as delete + add), and the
    changed ones TARGET has as a symlink (mode 120000) or a submodule (160000), not a file."""
    out = run_git(repo, "-c", "core.quotepath=off", "diff", "--raw", "-z", "--no-renames", base, target)
    recs = out.split(b"\0")
    changed: list[str] = []
    deleted: list[str] = []
    not_files: set[str] = set()
    for head, path in zip(recs[0::2], recs[1::2]):     # ":old_mode new_mode old_sha new_sha status"
        fields = head.split(b" ")
        if fields[-1].startswith(b"D"):
            deleted.append(decode(path))
            continue
        changed.append(decode(path))
        if len(fields) > 1 and fields[1] in (b"120000", b"160000"):
            not_files.add(changed[-1])
    return sorted(changed), sorted(deleted), not_files


freshness = GitFreshness()
