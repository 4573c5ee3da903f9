"""The exact `git log` arguments the history and symbol miners read, with the user's git config pinned.

Why a module of its own: what a store holds must not depend on whose machine mined it. Every
setting of the user's (~/.gitconfig, $XDG_CONFIG_HOME/git) or the repository's config that changes
what these commands print is overridden here, for the invocation only (``pipeline.gitio`` runs them).
"""

from __future__ import annotations

# One commit header: a record-separator marker, then NUL-separated fields; the message (%B) is last and
# is ended by the NUL that -z puts after every format line. %at/%ct are unix seconds.
LOG_FORMAT = "%x1e%H%x00%P%x00%an%x00%ae%x00%at%x00%ct%x00%B"
LOG_FIELDS = 7


# Settings from the user's or the repository's git config that change what `git log` shows, pinned
# to git's defaults (scope: the invocation only; later -c wins over every config file):
# log.showRoot=false drops the root commit's files, diff.ignoreSubmodules=all every gitlink change,
# i18n.logOutputEncoding/commitEncoding re-encode names and messages, diff.renameLimit below a
# commit's renames turns them into delete+add, diff.orderFile reorders a commit's files, log.follow
# turns one pathspec into a rename-following walk, diff.noprefix/mnemonicPrefix rename the patch's
# a/ b/ prefixes, diff.interHunkContext merges nearby hunks, a global attributes file
# (core.attributesFile, ~/.config/git/attributes) can mark files binary (-diff) and
# core.bigFileThreshold below a file's size makes it binary. diff.renames is overridden by -M,
# diff.external by --no-ext-diff, color.* by --no-color, diff.algorithm by --diff-algorithm,
# diff.context by -U0, log.showSignature and core.quotePath by -c; diff.relative cuts nothing at
# the top of the repository, where git runs; log.decorate and log.abbrevCommit never reach --format.
_PINNED_CONFIG = ["-c", "core.quotepath=off", "-c", "log.showSignature=false", "-c", "log.follow=false",
                  "-c", "core.attributesFile=/dev/null", "-c", "core.bigFileThreshold=512m"]
_PINNED_DIFF = ["--root", "--ignore-submodules=none", "-l1000", "-O/dev/null", "--indent-heuristic", "--no-color",
                "--no-ext-diff", "--no-textconv", "--diff-algorithm=myers"]


def history_log_args(rev_range: str = "HEAD", *, merge_diffs: bool = False, line_counts: bool = True) -> list[str]:
    """The exact `git log` arguments the history miner reads (also what its benchmark times bare).

    All commits reachable from the range (not --first-parent: side-branch commits are real edits),
    raw (change type, modes) plus numstat (lines added/deleted, ``-`` for binary), rename detection
    (-M), no copy detection (costly, rarely useful for co-change). Merge commits carry their diff
    against the first parent only when ``merge_diffs`` is set. Without ``line_counts`` numstat is
    left out: git then compares trees only (5-8x faster), never blob contents. User config that could
    change the output is pinned to git's defaults (``_PINNED_CONFIG``); mailmap is off, text is UTF-8.
    """
    return [*_PINNED_CONFIG, "log", "-z",
            f"--format={LOG_FORMAT}", "--raw", *(["--numstat"] if line_counts else []), "-M", "--no-abbrev",
            *_PINNED_DIFF, "--no-mailmap", "--encoding=UTF-8",
            "--diff-merges=first-parent" if merge_diffs else "--diff-merges=off", rev_range, "--"]


def patch_log_args(pathspecs: list[str] | None = None) -> list[str]:
    """`git log -p -U0` over the commits given on stdin (no walking, no merges): hunk headers
    locate the changed lines cheaply; --full-index gives the blob ids to read the two versions.
    User config is pinned as for ``history_log_args``, and the a/ b/ prefixes and hunk merging too."""
    args = [*_PINNED_CONFIG, "log", "--no-walk=unsorted", "--stdin",
            "--format=%x1e%H%x00%ct", "-p", "-U0", "--inter-hunk-context=0", "-M", "--full-index", "--no-merges",
            *_PINNED_DIFF, "--src-prefix=a/", "--dst-prefix=b/", "--"]
    return args + list(pathspecs or [])


__all__ = ["LOG_FORMAT", "LOG_FIELDS", "history_log_args", "patch_log_args"]
