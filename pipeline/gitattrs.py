"""Which files git stores as their bytes are: where a file's blob hash can be computed from its
bytes, so ``stratum.freshness`` tells an edit put back from a change without running git."""

from __future__ import annotations

import os
from typing import Iterable

from pipeline.gitio import ENC, ERRS, GitError, decode, run_git

CONVERTING = ("filter", "ident", "working-tree-encoding", "eol")     # attributes that change bytes


def stored_as_is(repo_path: str | os.PathLike, paths: Iterable[str]) -> frozenset[str]:
    """Of ``paths``, those whose bytes git stores as they are, unless they hold a CR (two runs:
    ``config``, ``check-attr``, which reads every attribute file git does): none under
    core.autocrlf=true or core.eol=crlf (a checkout writes CRLF, so git's recorded size is not
    the blob's and a file of the blob's bytes is "modified" to git), none with a ``filter``,
    ``ident``, ``working-tree-encoding`` or CRLF ``eol`` attribute; none when git cannot say."""
    ps = [p for p in paths if "\0" not in p]
    try:
        conf = run_git(repo_path, "config", "-z", "--get-regexp", r"^core\.(autocrlf|eol)$", check=False)
        if not ps or any((v.split(b"\n", 1) + [b"true"])[1].strip().lower() in (b"true", b"crlf", b"1", b"yes", b"on")
                         for v in conf.split(b"\0") if v):     # a bare ``autocrlf`` key is true, as to git
            return frozenset()
        out = run_git(repo_path, "check-attr", "-z", "--stdin", *CONVERTING,
                      input=b"".join(p.encode(ENC, ERRS) + b"\0" for p in ps))
    except (GitError, OSError):
        return frozenset()
    f = out.split(b"\0")        # path, attribute, value; each NUL-ended
    odd = {decode(f[i]) for i in range(0, len(f) - 2, 3)
           if f[i + 2] not in (b"unspecified", b"unset") and not (f[i + 1] == b"eol" and f[i + 2] == b"lf")}
    return frozenset(ps) - odd


__all__ = ["stored_as_is", "CONVERTING"]
