"""Shared pieces of the history-driven retrieval benchmarks (retrieval_quality, memory_transfer, e5).

Why one module: both benchmarks ask "given a commit's symptom, which files did it change?", against
a store indexed at a fixed earlier commit C, so they must agree on what a qualifying commit is,
how its query is made, which targets count, and how hits become a ranking of files.

Definitions (printed by the benchmarks):
- **history**: every commit reachable from the repository's HEAD (pipeline.history.mine, renames
  followed with -M), ordered by committer time.
- **index commit C**: a commit on HEAD's first-parent line; the store holds the tree *and the
  history* of C only, so nothing after C can be in it.
- **window**: the non-merge commits reachable from HEAD but not from C (``git rev-list C..HEAD``),
  by committer time. None of them is in the store.
- **code file**: a path whose extension is a language we parse (pipeline.languages), tests included.
- **qualifying commit**: non-merge, changes 1..5 code files (any change type).
- **targets**: the code files the commit changed, as they were before it (old path of a rename),
  mapped back to C through the window's renames committed before it; a file that did not exist at C
  (added after C, or added by the commit itself) is dropped, and a commit left with no target is
  dropped (both counted).
- **query (symptom)**: the commit's subject with references (``#123``, ``(gh-12)``), paths, file
  names with an extension and dotted module names of files in the repository removed (``names``
  mode); ``stems`` mode also removes the bare stems of the target files (``sessions``, ``app``).
  A query left with fewer than two words of two letters is dropped (counted).
- **bug fix**: a qualifying commit whose subject matches the E2 rule
  (benchmarks/e2_bugfix_selection.DEFAULT_RULE: fix/fixes/fixed/fixing, bug(s), bugfix(es),
  regression(s), crash(es), case-insensitive, whole words).
- **file ranking**: hits in rank order, each mapped to its file (code nodes: their path; a note:
  the files it is about, in order; directories: none); a file counts at its first occurrence.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from e2_bugfix_selection import DEFAULT_RULE as BUGFIX_RULE  # noqa: E402  (B's E2 rule, reused)
from pipeline import gitio, languages  # noqa: E402

OUT = HERE / ".out" / "g1"                 # git-ignored: checkouts at C and stores
RESULTS = HERE / "results"
MAX_CODE_FILES = 5
DEFAULT_AT = {"flask": "2021-01-01", "requests": "2017-01-01"}   # C: last first-parent commit before


# ---- commits ------------------------------------------------------------------------------------
@dataclass
class Change:
    path: str                  # path in the commit
    old_path: str | None       # before a rename
    change_type: str           # A M D R T
    current_path: str | None = None   # at the mined HEAD after following renames (None: gone)


@dataclass
class Commit:
    sha: str
    time: datetime             # committer time
    subject: str
    message: str
    is_merge: bool
    changes: list[Change] = field(default_factory=list)

    @property
    def code_changes(self) -> list[Change]:
        return [c for c in self.changes if languages.language_for_path(c.path)]

    @property
    def qualifies(self) -> bool:
        return not self.is_merge and 1 <= len(self.code_changes) <= MAX_CODE_FILES

    def is_bugfix(self, rule: str = BUGFIX_RULE) -> bool:
        return self.qualifies and re.search(rule, self.subject) is not None


def load_history(repo: str | os.PathLike) -> list[Commit]:
    """Every commit reachable from HEAD with its file changes, oldest first (committer time)."""
    from pipeline.history import mine

    res = mine(repo)
    by_sha: dict[str, list[Change]] = defaultdict(list)
    for fc in res.file_changes.to_pylist():
        by_sha[fc["sha"]].append(Change(fc["path"], fc["old_path"], fc["change_type"], fc["current_path"]))
    out = [Commit(c["sha"], c["committed_at"], c["message"].split("\n", 1)[0].strip(), c["message"],
                  bool(c["is_merge"]), by_sha.get(c["sha"], [])) for c in res.commits.to_pylist()]
    out.sort(key=lambda c: (c.time, c.sha))
    return out


def first_parent_before(repo: str | os.PathLike, date: str) -> str:
    """The last commit on HEAD's first-parent line committed before ``date`` (YYYY-MM-DD)."""
    out = gitio.run_git(repo, "rev-list", "--first-parent", "-n", "1", f"--before={date}T00:00:00Z", "HEAD")
    sha = gitio.decode(out).strip()
    if not sha:
        raise SystemExit(f"no first-parent commit before {date} in {repo}")
    return sha


def resolve_commit(repo: str | os.PathLike, at: str) -> str:
    """A sha (or any rev) as is; a YYYY-MM-DD date through ``first_parent_before``."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", at):
        return first_parent_before(repo, at)
    return gitio.decode(gitio.run_git(repo, "rev-parse", "--verify", f"{at}^{{commit}}")).strip()


def window_shas(repo: str | os.PathLike, c: str) -> set[str]:
    """Commits reachable from HEAD and not from C."""
    return set(gitio.decode(gitio.run_git(repo, "rev-list", f"{c}..HEAD")).split())


def paths_at(repo: str | os.PathLike, rev: str) -> set[str]:
    return {gitio.decode(p) for p in gitio.tree_paths(repo, rev)}


# ---- targets and queries ------------------------------------------------------------------------
@dataclass
class Task:
    """One evaluated commit: its query and the files (as at C) it changed."""
    sha: str
    time: datetime
    subject: str
    query: str
    targets: list[str]
    dropped_targets: list[str]
    bugfix: bool
    message: str = ""

    def to_row(self) -> dict:
        return {"sha": self.sha, "date": self.time.date().isoformat(), "bugfix": int(self.bugfix),
                "subject": self.subject, "query": self.query, "targets": " ".join(self.targets),
                "dropped_targets": " ".join(self.dropped_targets)}


class RenameMap:
    """Maps a path seen in a window commit back to its path at C through the window's renames."""

    def __init__(self, window: list[Commit]):
        self._renames = [(c.time, ch.old_path, ch.path) for c in window for ch in c.changes
                         if ch.change_type == "R" and ch.old_path]
        self._renames.sort(reverse=True)

    def to_c(self, path: str, before: datetime) -> str:
        p = path
        for t, old, new in self._renames:          # newest first: undo later renames first
            if t < before and new == p:
                p = old
        return p


_REF = re.compile(r"\(\s*(?:#|gh-?)\d+\s*\)|(?:\bgh-?|#)\d+\b", re.I)
_EXT = r"(?:py|pyi|pyx|rst|md|txt|cfg|toml|ini|ya?ml|json|js|ts|html?|css|c|h|cpp|sh|in|lock|bat)"
_FILE = re.compile(rf"^[\w.\-]*\w\.{_EXT}$", re.I)
_WORD = re.compile(r"[A-Za-z]{2,}")
_TRIM = "`'\".,:;()[]{}!?<>"


def module_names(paths: set[str]) -> set[str]:
    """Dotted module names of the Python files (``src/`` dropped, ``__init__`` folded)."""
    out = set()
    for p in paths:
        if not p.endswith(".py"):
            continue
        q = p[:-3]
        if q.endswith("/__init__"):
            q = q[: -len("/__init__")]
        parts = q.split("/")
        for i in range(len(parts)):               # every suffix: src.flask.cli, flask.cli, cli
            out.add(".".join(parts[i:]).lower())
    return out


def symptom(subject: str, targets: list[str], repo_paths: set[str], *, strip_stems: bool = False,
            components: set[str] | None = None, modules: set[str] | None = None) -> str:
    """The subject with references, paths, file names and module names removed (see the top)."""
    if components is None:
        components = {part.lower() for p in repo_paths for part in p.split("/")}
    if modules is None:
        modules = module_names(repo_paths)
    stems = set()
    if strip_stems:
        for t in targets:
            base = t.rsplit("/", 1)[-1]
            stem = base.rsplit(".", 1)[0]
            if stem == "__init__":
                stem = t.rsplit("/", 2)[-2] if "/" in t else stem
            stems.add(stem.lower())
    text = _REF.sub(" ", subject)
    kept = []
    for tok in text.split():
        core = tok.strip(_TRIM)
        low = core.lower()
        if not core:
            continue
        if "/" in core and (low.split("/", 1)[0] in components or _FILE.match(low.rsplit("/", 1)[-1])):
            continue                                   # a path
        if _FILE.match(low):
            continue                                   # a file name with an extension
        if "." in low and low.rstrip("()") in modules:
            continue                                   # a dotted module name (flask.cli)
        if strip_stems and (low in stems or low.split(".")[-1] in stems or low.split(".")[0] in stems):
            continue
        kept.append(tok)
    q = " ".join(kept)
    q = re.sub(r"\s+", " ", q).strip(" -:,;")
    return q if len(_WORD.findall(q)) >= 2 else ""


def make_tasks(history: list[Commit], c: str, window: set[str], c_paths: set[str], *,
               strip_stems: bool = False, bugfix_only: bool = False, limit: int | None = None
               ) -> tuple[list[Task], dict]:
    """The qualifying window commits as tasks, oldest first (at most ``limit``), and counts of what
    was dropped on the way (up to the last task taken)."""
    win = [x for x in history if x.sha in window]
    renames = RenameMap(win)
    components = {part.lower() for p in c_paths for part in p.split("/")}
    modules = module_names(c_paths)
    counts = defaultdict(int)
    tasks = []
    for cm in win:
        if limit is not None and len(tasks) >= limit:
            break
        if cm.is_merge:
            counts["merge"] += 1
            continue
        if not cm.qualifies:
            counts["not_1_to_5_code_files"] += 1
            continue
        fix = cm.is_bugfix()
        if bugfix_only and not fix:
            counts["not_bugfix"] += 1
            continue
        targets, dropped = [], []
        for ch in cm.code_changes:
            before = ch.old_path if ch.change_type == "R" and ch.old_path else ch.path
            p = renames.to_c(before, cm.time)
            if ch.change_type != "A" and p in c_paths:
                if p not in targets:
                    targets.append(p)
            else:
                dropped.append(ch.path)
        counts["targets_dropped_not_at_C"] += len(dropped)
        if not targets:
            counts["no_target_at_C"] += 1
            continue
        q = symptom(cm.subject, targets, c_paths, strip_stems=strip_stems, components=components,
                    modules=modules)
        if not q:
            counts["empty_query"] += 1
            continue
        tasks.append(Task(cm.sha, cm.time, cm.subject, q, targets, dropped, fix, cm.message))
    return tasks, dict(counts)


# ---- checkout and store at C --------------------------------------------------------------------
def checkout_at(repo: str | os.PathLike, sha: str, dest: Path) -> Path:
    """A local clone of ``repo`` with ``sha`` checked out (HEAD = C: history stops there)."""
    dest = Path(dest)
    if (dest / ".git").exists() and gitio.head_commit(dest) == sha:
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    gitio.run_git(dest.parent, "clone", "-q", "--no-checkout", str(Path(repo).resolve()), dest.name)
    gitio.run_git(dest, "checkout", "-q", "--detach", sha)
    return dest


def store_at(repo: str | os.PathLike, sha: str, *, num_cpus: int = 2, out: Path = OUT, log=print,
             code_only: bool = False) -> tuple[Path, Path]:
    """(checkout, store) of ``repo`` at ``sha``, indexing once; a store already at ``sha`` is reused
    while this build loads it and parses as it did (else it is indexed again, incrementally).
    ``code_only``: the store holds no mined history nodes (``fix``/``change``: the index job's
    default mines them into the store), for benchmarks that add every memory themselves; such a
    store lives in its own folder (``<name>-<sha>-code``), so the two kinds never mix."""
    from stratum.store import Store

    name = Path(repo).resolve().name
    base = Path(out) / f"{name}-{sha[:12]}{'-code' if code_only else ''}"
    src = checkout_at(repo, sha, base / name)
    store = base / "store"
    st = Store(store)
    if st.exists() and st.manifest().indexed_commit == sha:
        if _loads(st) and _current_parse(st):
            return src, store
        log(f"{store}: its warm indexes or parse output are from another build; re-indexing "
            "(vectors come from its cache)")
    os.environ.setdefault("RAY_TMPDIR", str(ROOT / ".tmp" / "ray"))
    Path(os.environ["RAY_TMPDIR"]).mkdir(parents=True, exist_ok=True)
    from pipeline.job import index_repository
    from stratum.config import IndexConfig

    log(f"indexing {name} at {sha[:12]} -> {store} (once; reused by later runs)")
    cfg = IndexConfig(num_cpus=num_cpus, mine_fixes=not code_only, mine_changes=not code_only)
    rep = index_repository(src, store, cfg)
    log(rep.summary())
    return src, store


def _current_parse(st) -> bool:
    """Whether the store's parse output is this parser's (``storestate.PARSE_FORMAT``): an older
    one lacks what the parser records now (e.g. the calls edges)."""
    from pipeline.storestate import PARSE_FORMAT

    return (st.manifest().report or {}).get("parse_format", 1) == PARSE_FORMAT


def _loads(st) -> bool:
    """Whether this build can load the store's published version (index formats change)."""
    from stratum.errors import StoreError
    from stratum.shard import Shard

    try:
        Shard(st)
    except StoreError:
        return False
    return True


def copy_store(store: Path, dest: Path) -> Path:
    """A private copy of a store (its own delta log), for conditions that write notes."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(store, dest, ignore=shutil.ignore_patterns("lock"))
    return dest


# ---- ranking and metrics ------------------------------------------------------------------------
def rank_files(hit_files) -> list[str]:
    """Files in first-occurrence order from an iterable of per-hit file lists."""
    seen, out = set(), []
    for files in hit_files:
        for f in files:
            if f and f not in seen:
                seen.add(f)
                out.append(f)
    return out


def first_rank(ranking: list[str], targets) -> int | None:
    t = set(targets)
    for i, f in enumerate(ranking, 1):
        if f in t:
            return i
    return None


def recall_at(ranking: list[str], targets, k: int) -> float:
    t = set(targets)
    return len(t & set(ranking[:k])) / len(t) if t else 0.0


def hit_at(ranking: list[str], targets, k: int) -> float:
    r = first_rank(ranking, targets)
    return 1.0 if r is not None and r <= k else 0.0


def mrr(rank: int | None) -> float:
    return 1.0 / rank if rank else 0.0


def mean(xs) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def median(xs) -> float:
    xs = list(xs)
    return statistics.median(xs) if xs else float("nan")


def utc(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, timezone.utc)


def machine() -> str:
    import platform

    return f"{platform.node()} ({os.cpu_count()} cores visible, Python {platform.python_version()}, {platform.machine()})"
