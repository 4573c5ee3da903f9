"""All git access of the project lives here (subprocess `git`, byte-exact, -z separated).

Paths come back as ``str`` decoded with ``surrogateescape`` so non-UTF-8 file names survive a
round trip; callers never shell out to git themselves.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from stratum.errors import NotARepository, StratumError

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


def repo_root(path: str | os.PathLike) -> Path:
    """The top of the work tree containing ``path``; NotARepository if there is none."""
    p = Path(path)
    if not p.exists():
        raise NotARepository(f"{path} does not exist")
    if not p.is_dir():
        raise NotARepository(f"{path} is not a directory")
    out = subprocess.run(["git", "-C", str(p), "rev-parse", "--show-toplevel"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    if out.returncode != 0:
        raise NotARepository(f"{path} is not inside a git repository (git init it, or pass a repository path)")
    return Path(decode(out.stdout).strip())


def head_commit(repo: str | os.PathLike) -> str | None:
    """HEAD's sha, or None for a repository with no commits yet."""
    out = run_git(repo, "rev-parse", "--verify", "-q", "HEAD", check=False).strip()
    return decode(out) or None


def is_shallow(repo: str | os.PathLike) -> bool:
    return decode(run_git(repo, "rev-parse", "--is-shallow-repository", check=False)).strip() == "true"


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


def dirty(repo: str | os.PathLike) -> bool:
    """True when the work tree has uncommitted changes (ignored files aside)."""
    return bool(run_git(repo, "status", "--porcelain", "-z", "--untracked-files=no", check=False).strip())


__all__ = ["GitError", "run_git", "decode", "repo_root", "head_commit", "is_shallow", "ls_files",
           "ignored_files", "submodule_paths", "dirty"]
