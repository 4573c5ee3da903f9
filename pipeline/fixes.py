"""Day-one experience from history: past commits as ``fix`` and ``change`` nodes about the files they touched.

A fresh clone has no agent notes, but its history holds thousands of "this symptom was fixed in
these files" and "this feature was changed in these files". Each non-merge commit that touched
1..MAX_FILES code files and whose text says something (``has_content``) becomes one node (stratum.schema.MINED_NOTE_KINDS): kind ``fix`` when it is a
bug fix (the rule below), else ``change`` (with ``changes=True``, the job's default). Its text is
the subject plus the first lines of the body, it is marked mined (author "history", meta ``mined``,
``sha``, ``time``, ``commit_author``; its header names the commit and its author: ``notenodes.mined_by``),
and ``about`` edges point at the files it changed, by their current paths (renames followed by
pipeline.history). Search ranks it like a note and stratum.rank
passes its score to those files (fixes with ``Weights.mined``, changes with ``Weights.changes``).
Why changes too: most later tasks are not bug fixes, and one node per small commit lifted day-one
file MRR from +0.03 (fixes only) to +0.14 over text alone on real history (docs/bench/retrieval.md).

Pure: it reads the ``commits`` and ``file_changes`` tables (stratum.schema) that pipeline.history
mined; no git. Incremental: on a re-index only the commits past the history watermark are judged
(``history.combine`` marks them: ``new_rows``), the previous version's nodes are kept as they are
unless their files moved (a renamed file keeps its fixes and changes: the node is made again about
its current path), and the result equals a full pass over the whole history (``_extend``).

The bug-fix rule (``BUGFIX_RULE``, the default of ``HistoryConfig.bugfix_rule``): the *subject* has
fix/fixes/fixed/fixing, hotfix(es), bug(s), bugfix(es), regression(s), crash(es/ed) or "race condition", and no
word of cosmetic work (typo, docs, docstring, document..., gramma..., spelling, comment, lint,
flake8, pep8, pyflakes, mypy, pre-commit, style, stylecheck, whitespace, spacing, changelog,
readme, release); a revert (not a revert of a revert), a merge's subject ("Merge pull request #9 from
bob/bugfix-login", committed without two parents: the fix word is a branch name) and a bare "fix
typing" / "fix type hints" / "fix annotations" subject are not fixes. (hotfix and the merge subject
were added after a probe; no non-merge commit of flask, requests or werkzeug has either.) The old rule (any of fix/bug/issue/defect/patch/
regression/crash/error anywhere in the message, or any ``#\\d+``) also flags pull-request numbers
and doc edits. Measured on hand-labelled commits of flask, requests and werkzeug
(benchmarks/bugfix_rule.py, docs/history.md): precision 0.49 (old), 0.860 (the subject rule
before the mypy/typing/revert/comment exclusions), 0.881 (now) on the 102 commits the rules were
written after; on 30 held-out commits drawn before the exclusions were written, 0.933 before and
0.966 now, no labelled fix lost; and of all 58 commits of the three histories the exclusions
un-flag, 53 are not fixes (mypy and typing-only edits, pre-commit.ci, reverts, comments, docs) and 5
are (a "fix typing" and a "fix mypy findings" that each also mended a None, two "documented ... and
fixed ...", one "fix the tests and ... comments").
A known miss: "release" anywhere drops "Fix race condition in connection release"; a rule that
excludes release chores only (and the README only where it is edited) adds 10 commits of the three
histories, 9 of them fixes: 0.900, under the current rule's 0.915 over every labelled commit it
flags, so not adopted (session 19, docs/bench/retrieval.md). A changed rule re-judges every mined
node on the next index: the run report records the rule (``stages.same_rule``), so ``same_rule`` is
False then.

Contentless commits are skipped (``has_content``; ``counts["contentless"]``): a text that, without
stock lines (pre-commit.ci's, "Merge pull request/branch/commit ..."), URLs, GHSA ids, shas and bare
numbers, holds only generic commit words ("fix", "fixes", "wip", "fix tests", "cleanup", "Fix
typo", "Fix #1911") names nothing a task could mean; its node matches a query by those words or by
its file paths (``full`` lists them). Measured (``benchmarks/bugfix_rule.py --contentless``: the
mined nodes of each repository's older history searched by BM25 + the static vectors, fused, with
the subjects of its newest 200 qualifying commits as queries): for the 592 queries with content,
a contentless node was in the top 10 for 40, and its hits were about a changed file 0.28 of the time
vs 0.39 for the other hits; file MRR over the hits' files 0.534 with them, 0.534 without (flask
0.506 -> 0.508, requests 0.606 -> 0.603, werkzeug 0.492 -> 0.491). So skipping costs nothing
measurable, and drops 2-4% of the mined rows (flask 34 of 1,552, requests 95 of 2,286, werkzeug 56
of 2,333) that an agent would read as noise; demoting them would keep those rows for no gain.
Release and version words are content: with "release", "version", "bump", "start" and version
numbers counted as generic (the same script over that first draft of ``has_content``), the release
commits' own queries ("release version 2.3.3", "v2.32.0") lost what the earlier releases' nodes
gave them (requests: file MRR 0.905 -> 0.545 on its 28 such queries).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Iterable, Mapping

import pyarrow as pa

from pipeline import languages
from stratum import ids, notenodes, notes as N
from stratum.config import DEFAULT_BUGFIX_RULE as BUGFIX_RULE

KIND = "fix"
CHANGE = "change"
AUTHOR = "history"
MAX_FILES = 5                      # a commit touching more code files says little about where a bug was
BODY_LINES = 3
TEXT_CHARS = 600
_TRAILER = re.compile(r"^(signed-off-by|co-authored-by|reviewed-by|cc|closes|refs?|--hg--|branch\s*:)", re.I)
# what a commit text says beyond stock lines, links, numbers and generic commit words (has_content)
_STOCK = re.compile(r"\b(?:pre-commit\.ci\] auto fixes from pre-commit\.com hooks|for more information, see \S+"
                    r"|merge (?:pull request|remote-tracking branch|branch|commit)\b(?: from (?:fork\b|[\w.-]+/))?"
                    r"|https?://\S+|ghsa(?:-\w{4}){3}\b|(?=[a-f]*\d)[0-9a-f]{7,40}\b|\d[\w.]*)")  # over lower case
_WORD = re.compile(r"[^\W\d]\w*")
_CHERRY_PICKED = re.compile(r"^\(cherry picked from commit [0-9a-f]+\)$", re.M)     # `git cherry-pick -x`'s line
GENERIC_WORDS = frozenset("""
    fix fixes fixed fixing fixup bug bugs bugfix bugfixes issue issues wip todo oops test tests cleanup cleanups
    clean up minor small tiny some more various few misc stuff change changes update updates updated tweak tweaks
    typo typos whitespace pep8 lint flake8 style stylefix merge merged conflict conflicts master main into
    again another other the a an and or of in for to on it this that with from by
    """.split())


@dataclass
class FixResult:
    nodes: list[dict]
    edges: list[dict]
    counts: dict = field(default_factory=dict)


SQUASHED = "Squashed commit of the following:"     # `git merge --squash`'s default message


def squashed_subjects(message: str) -> list[str] | None:
    """The subjects of the commits a ``git merge --squash`` message lists (``commit <sha>``,
    ``Author:``, ``Date:``, a blank line, then the message indented), or None for any other message."""
    if not (message or "").startswith(SQUASHED):
        return None
    out, want = [], False
    for ln in message.split("\n")[1:]:
        if ln.startswith("commit "):
            want = True
        elif want and ln.startswith("    ") and ln.strip():
            out.append(ln.strip())
            want = False
    return out


def is_bugfix(message: str, rule: "str | re.Pattern[str]" = BUGFIX_RULE) -> bool:
    """Whether the rule flags the message; a squash message is a fix when one of its commits is."""
    rx = re.compile(rule) if isinstance(rule, str) else rule
    squashed = squashed_subjects(message)
    if squashed is not None:
        return any(rx.search(s) for s in squashed)
    return rx.search(message or "") is not None


def has_content(text: str) -> bool:
    """Whether a commit's text (``fix_text``) names something beyond generic commit words: "fix",
    "wip", "Fix #1911", "[pre-commit.ci] auto fixes ..." or "Merge pull request #150" do not;
    "fix tests for the reloader", "v2.31.0" or a body line saying what broke do."""
    return not GENERIC_WORDS.issuperset(_WORD.findall(_STOCK.sub(" ", text.lower())))


def fix_text(message: str) -> str:
    """The subject (its first paragraph) and the first body lines (trailers dropped), cut at
    TEXT_CHARS; for a squash message, the squashed commits' subjects (not its stock header, shas,
    authors and dates)."""
    squashed = squashed_subjects(message)
    if squashed:
        text = "\n".join(squashed)
        return _cut(text)
    lines = [ln.strip() for ln in (message or "").split("\n")]
    end = lines.index("") if "" in lines else len(lines)     # git's subject: the first paragraph, on one line
    subject = " ".join(lines[:end])                          # (a wrapped one lost its second line: a probe)
    body = [ln for ln in lines[end:] if ln and not _TRAILER.match(ln)][:BODY_LINES]
    text = "\n".join([subject] + body)
    return _cut(text)


def _cut(text: str) -> str:
    """TEXT_CHARS of ``text``, at its last space when that keeps most of it: a subject holding one
    700-character word was cut back to "Fix ...", judged contentless, and its fix node lost (a probe)."""
    if len(text) <= TEXT_CHARS:
        return text
    head = text[:TEXT_CHARS]
    at_space = head.rsplit(" ", 1)[0]
    return (at_space if len(at_space) >= TEXT_CHARS // 2 else head) + " ..."


def fix_id(repo: str, sha: str, kind: str = KIND) -> str:
    return ids.node_id(repo, "", kind, sha)


def mine_fixes(commits: pa.Table, file_changes: pa.Table, file_ids: Mapping[str, str], repo: str, *,
               rule: str = BUGFIX_RULE, prev: Iterable[Mapping] = (), max_files: int = MAX_FILES,
               fixes: bool = True, changes: bool = False, same_rule: bool = False,
               contentless: bool = False) -> FixResult:
    """Mined nodes and their ``about`` edges: ``fix`` for the bug-fix commits of the mined history
    (``fixes``), ``change`` for every other non-merge commit (``changes``).

    ``file_ids``: current file path -> file node id (the files of the version being built);
    ``prev``: the mined nodes of the previous version (their token counts are reused for unchanged
    text: counting is the cost here; ``counts["reused"]``: nodes identical to the previous version's).
    A commit counts only when it changed 1..max_files code files, at least one still exists and its
    text has content (``counts``: ``no_code_file`` / ``too_many_files`` / ``no_current_file`` /
    ``contentless`` over the commits of the kinds asked for), and a commit repeating another's text on
    the same files (a backport; ``_one_per_commit_group``) joins that commit's node (``counts["duplicates"]``). ``same_rule``: ``prev`` was mined under this ``rule`` (the same index
    settings), so a commit with a previous node keeps that node's kind without the rule being
    searched again (the search was a quarter of this function on a re-index). ``contentless``: keep
    the commits whose text has no content too (for measuring what skipping them does).

    Incremental (``_extend``): when ``commits`` extends a stored history (``history.combine`` marks
    its new rows: ``new_rows``), ``same_rule`` holds and every previous node was made under these
    settings (``mined_as``, in its meta), only the new commits' texts are judged; an old commit is
    judged again only when its node's files changed (a rename, a delete, a file the index no longer
    holds), when it may now make a node it did not before (its file came back), or when a judged
    commit joins its copy group (a backport). The result equals the full pass (``counts["judged"]``:
    commits whose text was read; ``counts["incremental"]``: 1 when the previous nodes were
    extended). sympy after a one-file commit: 40,953 commits judged before, 1,034 now (the new one
    and the contentless ones, which may have gained a file); mine_fixes 3.5-4 s -> ~0.7 s."""
    old = {n["id"]: n for n in prev if n.get("kind") in (KIND, CHANGE)}
    as_ = mined_as(fixes, changes, max_files, contentless)
    files_of = _code_files(file_changes)
    n_new = new_rows(commits)
    if same_rule and n_new is not None and old:
        out = _extend(commits, n_new, files_of, file_ids, repo, old, as_, fixes=fixes, changes=changes,
                      max_files=max_files, contentless=contentless)
        if out is not None:
            return out
    rx = re.compile(rule)
    metas = {nid: json.loads(n.get("meta") or "{}") for nid, n in old.items()}
    kind_of = {sha: old[nid]["kind"] for nid, m in metas.items()
               for sha in (m.get("commits") or [m.get("sha")]) if sha} if same_rule else {}
    counts = _zero_counts(commits.num_rows)
    # times and authors are read only for nodes built anew (converting every timestamp was a third
    # of the mining on a re-index, where nearly every node is the previous version's)
    when_col = commits.column("committed_at")
    cols = {c: commits.column(c).to_pylist() for c in ("sha", "message", "is_merge")}
    found: list[tuple[int, str, str, str, list[str]]] = []     # (row, sha, kind, text, paths) to mine
    groups: dict[tuple, list[int]] = {}         # (kind, subject, files) -> positions in found
    for i, (sha, msg, merge) in enumerate(zip(*cols.values())):
        if merge:
            continue
        kind = kind_of.get(sha) or (KIND if is_bugfix(msg, rx) else CHANGE)
        paths = _eligible(kind, files_of.get(sha, ()), file_ids, counts, fixes, changes, max_files)
        if paths is not None:
            _judge(i, sha, kind, msg, paths, found, groups, counts, contentless)
    built = _build(found, groups, when_col, commits.column("author_name"), file_ids, repo, old, metas.get, as_,
                   counts)
    return FixResult([n for _, n, _ in built], [e for _, _, es in built for e in es], counts)


# Schema metadata of ``history.combine``'s commits table: how many of its first rows are new (past
# the watermark); the store never keeps it (``Store.write_dataset`` writes its own schema).
NEW_ROWS = b"stratum.new_rows"


def new_rows(commits: pa.Table) -> int | None:
    """How many first rows of ``commits`` are new since the previous version (``history.combine``),
    or None when the table extends no stored history (a full mine, or a table built otherwise)."""
    raw = (commits.schema.metadata or {}).get(NEW_ROWS)
    return int(raw) if raw is not None and raw.isdigit() else None


MINED_FORMAT = 3        # bump when what a commit makes changes (texts, the content words, the file rule);
# 2: a subject wrapped over several lines is one line, as git's %s; 3: the header names the commit and its
# author ("by Ada (mined from commit 1a2b3c4d5e6f), committed ..."; it said "by history (mined)", rewritten
# at read time by a regex over the stored text: ``notenodes.mined_by``)


def mined_as(fixes: bool, changes: bool, max_files: int, contentless: bool) -> str:
    """What a mined node was made under (its meta ``mined_as``): a node made under others is made
    again, and an incremental pass extends only nodes made under this run's."""
    return f"v{MINED_FORMAT} fixes={int(fixes)} changes={int(changes)} max_files={max_files}" + \
        (" contentless" if contentless else "")


def _zero_counts(commits: int) -> dict:
    return {"commits": commits, "bugfix": 0, "no_code_file": 0, "too_many_files": 0, "no_current_file": 0,
            "contentless": 0, "duplicates": 0, "fixes": 0, "changes": 0, "reused": 0, "judged": 0,
            "incremental": 0}


def _code_files(file_changes: pa.Table) -> dict[str, list[str]]:
    """sha -> the current paths ("" for a file gone) of the code files the commit changed, in row order."""
    files_of: dict[str, list[str]] = {}
    sha_col, cur_col, path_col = (file_changes.column(c).to_pylist() for c in ("sha", "current_path", "path"))
    is_code: dict[str, bool] = {}       # a path recurs in many commits: its language is looked up once
    for sha, cur, path in zip(sha_col, cur_col, path_col):
        code = is_code.get(path)
        if code is None:
            code = is_code[path] = languages.language_for_path(path) is not None
        if code:
            files_of.setdefault(sha, []).append(cur or "")
    return files_of


def _eligible(kind: str, changed, file_ids: Mapping[str, str], counts: dict, fixes: bool, changes: bool,
              max_files: int) -> list[str] | None:
    """The current files a non-merge commit of ``kind`` is about, or None (counted) when it makes no
    node whatever its text: a kind not asked for, no or too many code files, none of them current."""
    if kind == KIND:
        counts["bugfix"] += 1
    if not (fixes if kind == KIND else changes):
        return None
    if not 1 <= len(changed) <= max_files:
        counts["too_many_files" if changed else "no_code_file"] += 1
        return None
    if len(changed) == 1:           # most commits: no dict to drop repeats
        paths = changed if changed[0] and changed[0] in file_ids else []
    else:
        paths = [p for p in dict.fromkeys(changed) if p and p in file_ids]
    if not paths:
        counts["no_current_file"] += 1
        return None
    return paths


def _judge(i: int, sha: str, kind: str, msg: str, paths: list[str], found: list, groups: dict, counts: dict,
           contentless: bool) -> None:
    """Read one eligible commit's text: into ``found`` and its copy group, or counted contentless."""
    counts["judged"] += 1
    text = fix_text(msg)
    if not (contentless or has_content(text)):
        counts["contentless"] += 1
        return
    groups.setdefault(_group_key(kind, text, paths), []).append(len(found))
    found.append((i, sha, kind, text, paths))


def _group_key(kind: str, text: str, paths: list[str]) -> tuple:
    """What copies of one change share (``_one_per_commit_group``): kind, text without a cherry-pick line, files."""
    if "(cherry picked from commit" in text:
        text = _CHERRY_PICKED.sub("", text)
    return kind, text.strip(), frozenset(paths)


def _build(found: list, groups: dict, when_col, who_col, file_ids: Mapping[str, str], repo: str, old: Mapping,
           meta_of, as_: str, counts: dict) -> list[tuple[int, dict, list[dict]]]:
    """(row, node, edges) of the commits in ``found``, one per copy group (the previous node as it
    is when nothing of it changed: ``_unchanged``; ``meta_of``: a previous node's meta, parsed)."""
    keep = _one_per_commit_group(found, groups, when_col)
    counts["duplicates"] += len(found) - len(keep)
    out = []
    for k, (i, sha, kind, text, paths) in enumerate(found):
        if k not in keep:
            continue                    # a copy of another commit's node (a backport)
        shas = keep[k]
        nid = fix_id(repo, sha, kind)
        prev = old.get(nid)
        same = _unchanged(prev, meta_of(nid) if prev is not None else None, text, paths, file_ids, repo, shas, as_)
        node, es, reused = same or _records(kind, nid, sha, text, when_col[i].as_py(), who_col[i].as_py(), paths,
                                            file_ids, repo, prev, shas, as_)
        counts["reused"] += reused
        counts["fixes" if kind == KIND else "changes"] += 1
        out.append((i, node, es))
    return out


def _extend(commits: pa.Table, n_new: int, files_of: Mapping[str, list[str]], file_ids: Mapping[str, str], repo: str,
            old: Mapping[str, Mapping], as_: str, *, fixes: bool, changes: bool, max_files: int,
            contentless: bool) -> FixResult | None:
    """``mine_fixes`` over an incremental history whose first ``n_new`` rows are new; None when the
    previous nodes cannot be extended (one made under other settings or for another repository).

    An old commit's kind, file counts and text are what they were (same rule, same settings, the
    same message); only its current files may differ. So each old node is kept as it is when its
    commit's current files are still the ones its ``full`` text lists (``_about_tail``: no JSON
    read, the cost of reading 38,000 metas was most of a pass) and its copies (meta ``commits``)
    are all still there, about the same files; otherwise its commits are judged again. An old
    commit with no node and no copy group was skipped: it is judged again only when it now has a
    current file (it was contentless, or its file is back). A judged commit whose copy group is an
    old node's joins it: that group is judged again, as the full pass would group it (the oldest
    copy keeps the node)."""
    tag = f'"mined_as": "{as_}"'
    copies: dict[str, str] = {}         # a copy's sha -> the node it joined (a backport, meta commits)
    n_copies: dict[str, int] = {}
    for nid, n in old.items():
        meta = n.get("meta") or ""
        if tag not in meta or n.get("repo") != repo or n.get("full") is None or n.get("summary_tokens") is None:
            return None
        if '"commits": [' in meta:
            shas = (json.loads(meta).get("commits") or [])[1:]       # the first is the node's own
            copies.update(dict.fromkeys(shas, nid))
            n_copies[nid] = len(shas)
    counts = _zero_counts(commits.num_rows)
    counts["incremental"] = 1
    msg_col = commits.column("message")
    found: list[tuple[int, str, str, str, list[str]]] = []
    groups: dict[tuple, list[int]] = {}
    row_of: dict[str, tuple[int, str, str, list[str]]] = {}      # old node -> its own commit (row, sha, kind, files)
    copy_rows: dict[str, list[tuple[int, str, str, list[str]]]] = {}     # old node -> its copies seen
    tails: dict[str, str] = {}          # file -> its line in a node's full text
    for i, (sha, merge, bug) in enumerate(zip(*(commits.column(c).to_pylist() for c in ("sha", "is_merge",
                                                                                       "is_bugfix")))):
        if merge:
            continue
        kind = KIND if bug else CHANGE     # the history's own judgement, by this rule (history.combine)
        paths = _eligible(kind, files_of.get(sha, ()), file_ids, counts, fixes, changes, max_files)
        if paths is None:
            continue
        if i >= n_new:
            nid = fix_id(repo, sha, kind)
            if nid in old:
                row_of[nid] = (i, sha, kind, paths)
                continue
            owner = copies.get(sha)
            if owner is not None:
                copy_rows.setdefault(owner, []).append((i, sha, kind, paths))
                continue
        _judge(i, sha, kind, msg_col[i].as_py(), paths, found, groups, counts, contentless)

    def again(nid: str) -> None:        # the commits of an old node judged as the full pass would
        for i, sha, kind, paths in ([row_of[nid]] if nid in row_of else []) + copy_rows.get(nid, []):
            _judge(i, sha, kind, msg_col[i].as_py(), paths, found, groups, counts, contentless)

    kept: list[str] = []
    for nid in [nid for nid in copy_rows if nid not in row_of]:    # its own commit makes no node now
        again(nid)
    for nid, (i, sha, kind, paths) in row_of.items():
        cs = copy_rows.get(nid, ())
        if old[nid]["full"].endswith(_about_tail(paths, file_ids, tails)) \
                and len(cs) == n_copies.get(nid, 0) and all(frozenset(r[3]) == frozenset(paths) for r in cs):
            kept.append(nid)
        else:                           # its files changed, or a copy's did
            again(nid)
    touched = {p for *_, paths in found for p in paths}
    if touched:                         # a judged commit may join an old node's copies: judged again
        joined = {nid for nid in kept if row_of[nid][3][0] in touched
                  and _group_key(row_of[nid][2], old[nid]["doc"], row_of[nid][3]) in groups}
        for nid in joined:
            again(nid)
        kept = [nid for nid in kept if nid not in joined]
    built = _build(found, groups, commits.column("committed_at"), commits.column("author_name"), file_ids, repo, old,
                   lambda nid: json.loads(old[nid].get("meta") or "{}"), as_, counts)
    for nid in kept:                    # as they are: the node and its edges
        n, (i, _, kind, paths) = old[nid], row_of[nid]
        built.append((i, dict(n), [_about_edge(nid, p, file_ids) for p in paths]))
        counts["reused"] += 1
        counts["duplicates"] += n_copies.get(nid, 0)
        counts["fixes" if kind == KIND else "changes"] += 1
    built.sort(key=lambda b: b[0])      # row order, as the full pass makes them
    return FixResult([n for _, n, _ in built], [e for _, _, es in built for e in es], counts)


def _about_tail(paths: list[str], file_ids: Mapping[str, str], lines: dict[str, str]) -> str:
    """How a mined node's ``full`` text ends when it is about ``paths`` (``notenodes.note_to_records``:
    a file target's line; ``lines``: those made so far); a node whose text ends otherwise is made
    again, never wrongly kept."""
    out = []
    for p in paths:
        line = lines.get(p)
        if line is None:
            line = lines[p] = f"\n- {p} (node {file_ids[p]}, content hash then -)"
        out.append(line)
    return "\n\nabout:" + "".join(out)


def _about_edge(nid: str, path: str, file_ids: Mapping[str, str]) -> dict:
    return {"src": nid, "dst": file_ids[path], "kind": "about", "weight": 1.0, "meta": _about_meta(path)}


def _one_per_commit_group(found: list[tuple], groups: dict[tuple, list[int]], when_col) -> dict[int, list[str] | None]:
    """Position in ``found`` -> the commits its node stands for (None: its own alone) of the one
    commit kept per (kind, text, files), a cherry-pick's "(cherry picked from ...)" line aside: a
    backport repeats its commit's message on the same files (werkzeug: 26 such pairs, "Fix: slow multipart parsing ..." twice), and two
    nodes counted one fix twice as evidence and took two places of a page. The oldest is kept (by
    commit time, then sha), so its id stays when a later copy arrives; the node lists every sha."""
    keep: dict[int, list[str] | None] = {}
    for group in groups.values():
        if len(group) == 1:
            keep[group[0]] = None
            continue
        group = sorted(group, key=lambda k: (when_col[found[k][0]].as_py() or datetime.min.replace(tzinfo=timezone.utc),
                                             found[k][1]))
        keep[group[0]] = [found[k][1] for k in group]
    return keep


def _unchanged(prev: Mapping | None, meta: dict | None, text: str, paths: list[str], file_ids: Mapping[str, str],
               repo: str, shas: list[str] | None, as_: str) -> tuple[dict, list[dict], bool] | None:
    """The previous version's node as it is (and its edges), when its text and targets are the same:
    a re-index after a one-file commit re-derives thousands of mined nodes, and rebuilding each
    (texts, JSON, hashes) was ~60 us of the one-file path per node."""
    if prev is None or prev.get("full") is None or prev.get("summary_tokens") is None or prev.get("repo") != repo \
            or prev.get("doc") != text:
        return None
    about = (meta or {}).get("about") or []
    if [(t.get("path"), t.get("node_id")) for t in about] != [(p, file_ids[p]) for p in paths] \
            or (meta or {}).get("commits") != shas or (meta or {}).get("mined_as") != as_:
        return None
    return dict(prev), [_about_edge(prev["id"], p, file_ids) for p in paths], True


@functools.lru_cache(maxsize=4096)
def _about_meta(path: str) -> str:
    """The about edge's meta of a mined node, as ``notenodes.note_to_records`` writes it (a file recurs
    in many commits: encoded once)."""
    return json.dumps({"target": path, "content_hash": None}, ensure_ascii=False)


def _records(kind: str, nid: str, sha: str, text: str, when: datetime | None, who: str | None, paths: list[str],
             file_ids: Mapping[str, str], repo: str, prev: Mapping | None, shas: list[str] | None,
             as_: str) -> tuple[dict, list[dict], bool]:
    when = when or datetime.fromtimestamp(0, timezone.utc)
    targets = [N.Target(given=p, node_id=file_ids[p], content_hash=None, path=p, kind="file") for p in paths]
    note = N.Note(id=nid, record_uid="", kind=kind, text=text, about=targets, author=AUTHOR,
                  session=None, tags=["mined"], created_at=when)
    mined = {"mined": True, "sha": sha, "time": when.isoformat(), "commit_author": who or "", "mined_as": as_}
    if shas:                            # the backports and cherry-picks of the same change
        mined["commits"] = shas
    node, edges = notenodes.note_to_records(note, repo, prev=prev, mined=mined)    # its header names sha and author
    return node, edges, prev is not None and all(prev.get(k) == node[k] for k in ("full", "meta", "status"))


__all__ = ["BUGFIX_RULE", "KIND", "CHANGE", "GENERIC_WORDS", "SQUASHED", "FixResult", "is_bugfix", "squashed_subjects",
           "has_content", "fix_text",
           "fix_id", "mine_fixes", "mined_as", "MINED_FORMAT", "NEW_ROWS", "new_rows"]
