"""What an index run reads of its store before any work: whose it is, and whether it is current.

Why apart from the job: a store is one repository's memory. Its manifest records the repository's
root commits and the name it was first indexed under, so a moved or copied clone keeps its ids
(and its notes) and another repository is refused (``stratum index --replace`` overrides); and a
run with nothing new (same HEAD, clean work tree, same settings, no unmerged note) publishes nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from pathlib import Path

from pipeline import gitio
from stratum.freshness import racy
from pipeline.report import RunReport
from stratum.config import IndexConfig
from stratum.errors import InvalidArgument, StoreError
from stratum.store import Manifest, Store

_RUN_ONLY_EMBED = ("batch_size", "actors", "threads_per_actor")   # how embedding runs, not what it makes


def held(store: Store, cfg: IndexConfig) -> Manifest | None:
    """The store's published manifest (None: a new store). ``--full`` rebuilds over one this build
    cannot read (another schema version): its name and root commits still say whose store it is."""
    if not store.exists():
        return None
    try:
        return store.manifest()
    except StoreError:
        if not cfg.full:
            raise
        try:
            return Manifest.from_json((store.root / "manifest.json").read_text())
        except (OSError, ValueError, TypeError):
            return None


def display_name(root: Path) -> str:
    """The name a repository's folder gives it, always valid UTF-8: Arrow, JSON and gRPC refuse the
    surrogate escapes Python reads a non-UTF-8 folder name as, so each such byte is spelled ``\\xff``
    (as ``pipeline.history`` spells such paths): stable, and two such folders stay apart."""
    return os.fsencode(root.name).decode("utf-8", "backslashreplace")


def identity(root: Path, store: Store, held: Manifest | None, cfg: IndexConfig,
             shallow: bool) -> tuple[str, list[str]]:
    """The repository name its node ids are made with, and its root commits. A store keeps the name
    it was first indexed under: a clone moved or copied to another folder (the store inside it)
    keeps its ids, so its notes stay attached. A store holding another repository (none of its
    root commits here) is refused unless ``cfg.replace``: indexing would orphan all its notes.
    ``shallow``: whether the clone is shallow (the caller read ``gitio.shallow_boundary`` once)."""
    if held is None or cfg.replace:
        return display_name(root), ([] if shallow else gitio.root_commits(root))
    if not held.root_commits:               # a store from before root commits were recorded
        return held.repo_name, ([] if shallow else gitio.root_commits(root))
    if not gitio.has_any_commit(root, held.root_commits) and not shallow:
        raise InvalidArgument(
            f"the store {store.root} holds the repository {held.repo_name!r} (from {held.repo_path}), whose "
            f"first commit {held.root_commits[0][:12]} is not in {root}: index into another --store, or pass "
            f"--replace to index this repository into it (the notes about the other repository's code are "
            f"kept, orphaned)")
    return held.repo_name, held.root_commits


# The format of the parse output a store keeps for reuse (nodes, edges, each file's import records):
# bumped when the parser's output for the same file changes, so a store indexed by an older parser
# parses every file once again (``stages.read_sources``) instead of serving old records beside new
# ones. 2: import records carry ``uses``/``bound`` (re-exports through a package __init__); 3: code
# nodes carry their calls and bases as written (``meta``, ``pipeline.callrefs``); 4: JavaScript and
# TypeScript functions assigned to an object's or a prototype's property are definitions (``res.json``);
# 5: code nodes carry their variables' types where the syntax says them (``types``); 6: Go's and Rust's too;
# 7: and their declared return types (``returns``); 8: a ``/** doc */`` one blank line above a
# definition is its doc; 9: Python's annotated variables and ``self.x = y`` attributes; 10: JS/TS
# ``this.x = ...`` attributes and class fields; 11: Go struct and Java class fields, ``e.router`` of a
# Go receiver as ``self.router``, Java ``this.a.m()`` as receiver ``self.a``; 12: every reassignment
# of a variable is recorded (the nearest decides), fields as ``self.x``, a file's opening doc block
# stays the file's; 13: for/with/tuple/destructuring rebindings, a call kept once per typing of its
# receiver, type parameters are no classes; 14: a parameter's typing is at the line before its
# definition's, a statement's holds from its next line, comprehension variables stay their own; 15:
# typings and calls carry byte positions (a typing holds from where it takes effect, not by line); 16:
# JavaScript's ``module.exports = function name() {}`` is a definition; 17: Python ``import a.b as
# c`` records the name it binds, ``import a.b`` the attributes read off ``a.b``, and a file with a
# long data line beside its code is no longer skipped as minified (``files.minified``); 18: a path
# within a line of a file's text (its summary, its outline's ``# path`` header) is spelled terminal-safe
# (``notetext.terminal_safe``): git allows a newline in a file name, which broke the header in two;
# 19: a file node keeps its parse warnings and first syntax error line (``meta``): a reused file's
# warnings are counted in the report (an incremental run said none) and ``get`` names the line; 20:
# no parse output changed, but unchanged files' calls and inherits edges did (a bare name in a C++
# namespace or class, a Rust mod, a TypeScript namespace, a Java class; a Python class re-exported
# under another name): the bump makes a store indexed at the same commit re-link once; 21: C++ classes
# with a macro before their name (``class LEVELDB_EXPORT DB``) are classes (``languages.cppmacros``),
# ``namespace a::b`` and ``struct Outer::Inner {`` name their scopes ``a.b`` / ``Outer.Inner``; 22: an
# annotation macro after a C++ declarator (``int x_ GUARDED_BY(mu_);``) names no node and the member
# keeps its name and body; googletest tests are ``Suite.Name`` (were ``TEST_F#n``), marked ``"test":1``;
# 23: C++ members inside an ``#if`` in a class are members, a conditional group tree-sitter cannot hold
# no longer nests the rest of the file in a class, ``FRIEND_TEST(A, B);`` and other type-less macro
# statements are no nodes; JS/TS ``this.#name()`` calls are recorded; JS/TS imports and ``export ... from``
# record the imported and local names, Go imports their alias (for calls through them); 24: new nodes
# (``type X = ...`` and Go named types as classes of subkind ``type``, Rust ``macro_rules!`` as
# functions of subkind ``macro``, a Java anonymous class a field holds), each Rust impl block of a
# type defined elsewhere its own node (were merged into the first; a blanket impl is named by its
# trait), a TypeScript member's decorators and the doc above them in its span, Rust ``where ...,``
# signatures without the trailing comma; 25: a Java call records its arguments' count and types and an
# overload its ``arity`` and ``params`` (a call picks its overload), Rust macro arguments' calls are
# recorded, Rust ``use`` records carry their ``as`` alias and are read inside inline modules; 26: a
# Python ``cls.f()`` call records its receiver as written (``cls``, was ``self``); 27: so do the other
# languages' (``this.f()``, Rust ``Self::new()``, a Go receiver's ``h.Store.Get()``, were ``self...``;
# a Go method names its receiver in ``meta["self"]``), and a JS/TS or Python test's subject by name
# is a file of its own package (nearest ``package.json`` / ``pyproject.toml``...): tests edges change;
# 28: a file no grammar parses (markdown, shell, a Makefile) is keyword-searched by its first words too;
# 29: Python ``a = b = lambda`` and tuple targets are nodes, and an import in a function's or class's body
# binds for it alone (calls elsewhere, and importers of the module, do not see it: ``ImportRef.scoped``);
# 30: a Rust macro argument's ``Self::f()`` records ``Self`` as written (was ``self``), C++ ``(*this).f()``
# records ``this``, and C++ ``this->f()`` in ``int A::g()`` links through ``A`` of an included header;
# 31: a Python function's ``global`` names bind at module level, a ``from`` import's names each reach
# their own files, parenthesized lambdas are nodes, a bound lambda's signature is ``name = lambda params``;
# 32: a module's ``def __getattr__`` (PEP 562) imports for the module (``from pkg import run`` links there).
# 33: Kotlin and Scala files are parsed (definitions, imports, their package's declared names).
# 34: a JS chained assignment defines each name, object-literal methods (module.exports = {...},
# X.prototype = {...}) and Go package-level function variables are nodes; `module.exports = require(x)`
# is recorded as a whole-module re-export.
# 35: Kotlin and Scala definitions record their calls, supertypes, typed variables and return types.
# 36: a JS ``const x = require('./m')`` (``const {a, b: c} = require``, TS ``import x = require``) records
# the names it binds, as an ES import does (calls through ``x`` link whatever ``x`` is named).
# 37: JS objects a module exports by name (`const api = {...}; module.exports = api`, `export default
# {...}`) are its functions; Go `var a, b = func..., func...` defines each; Kotlin re-read past one-line bodies.
# Scala/Kotlin spans end at their last token (docs below go to the next def); backtick names as written.
# 38: C++ locals, parameters and members record their types and functions their return types (calls
# link through them; a header declaration and its .cc definition count as one method), a Go receiver's
# typed variable reads as the receiver; JS/TS ``describe``/``it``/``test`` blocks in test files and
# Rust test-defining macro calls are test nodes, a Rust inline test tests its file (``by: "unit"``);
# an export macro before a C++ declaration's type and ``new T*[n]`` parse; a JS/TS import of the
# repository's own package (workspace package.json names, tsconfig ``paths``) is an imports edge;
# a test of a C/C++ header tests the source file of its stem that includes it (``by: "header"``);
# a test block records no call of its own head, a Rust macro call is a test only by a test-defining
# macro (``testblocks.test_definer``), a JS test title is stored as its value (no source escapes);
# a Rust inline test's tests edge weighs less than a test file's (listed after it). 39: C files go
# through ``cppmacros`` as C++ files do (an export macro before a C declaration's type); a gtest
# test is named by the class gtest makes of it (``CacheTest.CacheTest_Erase_Test``, not the
# fixture's method's name ``CacheTest.Erase#2``).
PARSE_FORMAT = 39


def config_key(cfg: IndexConfig) -> str:
    """A fingerprint of the settings that shape the index (not how it runs: Ray, CPUs, --full)."""
    from dataclasses import asdict

    from pipeline.fixes import MINED_FORMAT     # what a mined node holds: a store of another format is not up to date

    embed = {k: v for k, v in asdict(cfg.embed).items() if k not in _RUN_ONLY_EMBED}
    shape = {"parse": asdict(cfg.parse), "history": asdict(cfg.history), "embed": embed,
             "mine_fixes": cfg.mine_fixes, "mine_changes": cfg.mine_changes, "parse_format": PARSE_FORMAT,
             "mined_format": MINED_FORMAT if cfg.mine_fixes or cfg.mine_changes else None}
    return hashlib.sha256(json.dumps(shape, sort_keys=True, default=str).encode()).hexdigest()[:16]


def mined_boundary(prev: Manifest | None) -> str | None:
    """The ``gitio.boundary_key`` the store's history was mined at ("" from a full clone; None:
    unknown, a shallow clone indexed before it was recorded)."""
    h = ((prev.report or {}).get("history") or {}) if prev is not None else {}
    return h.get("shallow_boundary", None if h.get("shallow") else "")


RACY_LISTED = 64      # racily modified files a worktree key names (more: the next run goes on, parsing nothing)


def worktree_key(root: Path, dirty: list[str]) -> str:
    """What the uncommitted files are now, without reading them: each path with its size and
    modification time ("gone" when deleted). A run whose work tree holds the same uncommitted files,
    untouched since the last version was indexed, has nothing to do (a probe: one untracked
    scratch file made every run publish a version with nothing parsed, each making a running
    server's page tokens stale). A touched file only costs a run that parses nothing.
    Files modified within the clock's tick of now (``racy``) are named after it with a digest of
    their bytes (`` racy ["a.py"] <sha1>``), which the next run checks (``same_worktree``), as git
    re-reads its racily clean entries: a same-size save in that tick, after this run read the file,
    keeps its size and mtime, and the next run called itself up to date over bytes it never read."""
    h = hashlib.sha1()
    now = time.time_ns()
    recent = []
    for p in dirty:
        try:
            st = os.lstat(root / p)
        except OSError:
            h.update(f"{p}\0gone\n".encode("utf-8", "surrogateescape"))
            continue
        h.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_mode}\n".encode("utf-8", "surrogateescape"))
        if stat.S_ISREG(st.st_mode) and racy(st.st_mtime_ns, now):
            recent.append(p)
    if not recent:
        return h.hexdigest()
    named = f"{json.dumps(recent)} {_bytes_digest(root, recent)}" if len(recent) <= RACY_LISTED else "*"
    return f"{h.hexdigest()} racy {named}"


def same_worktree(before: str, now: str, root: Path) -> bool:
    """Whether the uncommitted files keyed ``now`` (``worktree_key``) are as when keyed ``before``:
    the same stats, and the bytes ``before`` named as racily modified are the same bytes."""
    stats, _, recent = (before or "").partition(" racy ")
    if not stats or stats != now.partition(" racy ")[0]:
        return False
    if not recent:
        return True
    listed, _, digest = recent.rpartition(" ")
    try:
        paths = json.loads(listed)
    except ValueError:
        return False                        # "*": too many to name
    return isinstance(paths, list) and _bytes_digest(root, [str(p) for p in paths]) == digest


def _bytes_digest(root: Path, paths: list[str]) -> str:
    h = hashlib.sha1()
    for p in paths:
        try:
            sha = hashlib.sha1((root / p).read_bytes()).hexdigest()
        except OSError:
            sha = "gone"
        h.update(f"{p}\0{sha}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def dirty_states(root: Path, dirty: list[str]) -> dict[str, list | None]:
    """A look at each uncommitted file before the parse reads it: ``[size, mtime_ns]`` (mtime 0 when
    it is too recent for a later equal stat to prove the bytes unchanged: the clock's tick), None
    for a path deleted from the work tree; what is not a regular file (a link, a submodule's folder)
    is left out: said uncommitted, as before. No byte is read here: the parse reads and hashes each
    file once, and ``as_parsed`` makes these the states of what it read."""
    out: dict[str, list | None] = {}
    now = time.time_ns()
    for p in dirty:
        try:
            s = os.lstat(root / p)
        except FileNotFoundError:
            out[p] = None
            continue
        except OSError:
            continue
        if stat.S_ISREG(s.st_mode):
            out[p] = [s.st_size, 0 if racy(s.st_mtime_ns, now) else s.st_mtime_ns]
    return out


def as_parsed(root: Path, looks: dict[str, list | None], nodes: list[dict]) -> dict[str, list | None]:
    """The run report's ``dirty_paths``: what each uncommitted file held as the index read it,
    ``[size, mtime_ns, sha1 of its bytes]`` (the file node's ``file_hash``; a reused file's is the
    previous version's, which the run's read of it equalled), None for a deletion. An answer
    returning such a file then tells the version it serves from an edit made since
    (``stratum.freshness.Freshness.matches``): served as indexed, it is not stale (a probe: every
    answer returning a file indexed with its uncommitted edits said "uncommitted changes" although
    it served the disk). The mtime of the look (``dirty_states``) is kept only when the file's stat
    is still that one after the read, so the bytes hashed are the bytes of that stat; else 0 (an
    answer hashes): a file saved between the look and the read, then put back, had been served as
    fresh (a probe). A path the index holds no file of keeps only a deletion; another (a link,
    a file over the size limit, deleted or skipped mid-run) is left out: said uncommitted."""
    if not looks:
        return looks
    files = {n["path"]: n for n in nodes if n.get("kind") == "file" and n.get("path") in looks}
    out: dict[str, list | None] = {}
    for p, look in looks.items():
        node = files.get(p)
        if node is None:
            if look is None:
                out[p] = None
            continue
        sha, size = node.get("file_hash"), node.get("size_bytes")
        if not sha or size is None:
            continue
        mtime = 0
        if look is not None and look[1] and look[0] == size:
            try:
                s = os.lstat(root / p)
                mtime = look[1] if (s.st_size, s.st_mtime_ns) == (look[0], look[1]) else 0
            except OSError:
                pass
        out[p] = [int(size), mtime, str(sha)]
    return out


def up_to_date(head: str | None, store: Store, prev: Manifest | None, rep: RunReport,
               boundary: str = "") -> str | None:
    """Why nothing needs doing (no new version), or None. Decided without opening a dataset:
    HEAD is the indexed commit, the work tree is as HEAD now and was when indexed (or holds the same
    uncommitted files, untouched since: ``worktree_key``), the settings
    are the same, the delta log holds no record the published version lacks, and the published
    data passes the quick integrity check. A repository with no commits yet, indexed so and still
    without one, is up to date too (each run had published a new version of nothing new). The
    report's notes are the published ones.
    ``boundary``: the clone's ``gitio.boundary_key`` now (a clone deepened since has history to mine).
    The checked-out and default branches are the recorded ones too (a run on another branch at the
    same commit publishes, so notes written on it record it), and so are the tips of the branches
    the last merge asked of (``RunReport.branch_tips``: a branch deleted since orphans its notes).

    A segment a live writer (a running server) holds does not make the run go on: it was, and
    every run next to a server that had written one note published a version with nothing new
    (each a reload, and every page token it had served stale). Nothing is lost by stopping: a
    record appended after the scan is unmerged in the log, served from there, and merged by the
    next run; the held segment retires once its writer is gone and a run finds it all merged.

    Damaged data is never "up to date": the run goes on, and opening the version refuses it with
    what to run (`stratum repair`). The check is ``Store.verify``'s quick one (each recorded
    file's size, first and last checksum block: a stat and at most 8 MiB read a file), so a
    no-change run stays cheap; `stratum repair --check` reads every block."""
    from pipeline.branchheld import BranchHeld
    from stratum.deltalog import DeltaLog

    if prev is None or rep.worktree not in ("clean", "dirty"):
        return None
    last = prev.report or {}
    if last.get("worktree") != rep.worktree or last.get("config_key") != rep.config_key:
        return None
    if rep.worktree == "dirty" and not same_worktree(last.get("worktree_key") or "", rep.worktree_key, Path(rep.repo)):
        return None                     # uncommitted files changed since (or a version from before the key)
    # another branch out at the same commit (`git checkout -b fz2`): the version records which, and a
    # note written on it records that one (branchnotes.served_branch); a version from before: as it was
    if any(k in last and last[k] != getattr(rep, k) for k in ("branch", "default_branch")):
        return None
    if head != prev.indexed_commit or not prev.indexes:     # no commits yet (None) and still none: the same
        return None
    if prev.repo_path != rep.repo:          # a moved or copied clone: freshness and worktrees read repo_path
        return None
    if mined_boundary(prev) != boundary:    # `git fetch --unshallow` / `--deepen`: older commits to mine
        return None
    if store.verify(prev, full=False):      # damaged: nothing retired, the run's open of it says what to run
        return None
    tips = last.get("branch_tips")
    if tips and BranchHeld(rep.repo, only=list(tips)).moved(tips):   # `git branch -D release-1`: its notes' pending marks go
        return None
    log = DeltaLog(store.root / "deltalog")
    if log.segments():
        merged = set(prev.deltalog_merged)
        if any(r.uid not in merged for r in log.scan().records):
            return None
        log.retire(merged)            # sealed merged segments retire now; a held one stays (it may grow)
    rep.notes = {**(last.get("notes") or {}), "new": 0}
    indexed = f"HEAD {head[:12]} is indexed" if head else "HEAD has no commit yet"
    tree = "the work tree is clean" if rep.worktree == "clean" else \
        "the uncommitted files are as they were indexed"
    return f"{indexed}, {tree} and no note is unmerged"


__all__ = ["held", "display_name", "identity", "config_key", "worktree_key", "same_worktree", "dirty_states", "as_parsed", "up_to_date", "mined_boundary", "PARSE_FORMAT"]
