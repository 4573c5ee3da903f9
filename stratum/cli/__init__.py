"""The `stratum` command: a thin layer over library functions.

Each command module exposes ``register(subparsers)``; commands import heavy modules inside their
handler so `stratum --help` stays instant. Library errors become clean messages here, in one place:
a user error prints one line and exits 2; a system error (the store, the disk, a model) prints one
line and exits 1 (its traceback with STRATUM_DEBUG=1); a bug prints its traceback.

Text output is terminal-safe (``emit``): what the index holds (file names, docstrings, commit
messages, notes) is data, never terminal control; a note's own text is quoted (``quoted``).
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import re
import sys
import traceback
from pathlib import Path
from typing import NamedTuple, Sequence

from stratum.notetext import terminal_safe
from stratum.whichstore import once_each

COMMAND_MODULES = ("stratum.cli.index", "stratum.cli.query", "stratum.cli.history", "stratum.cli.notes",
                   "stratum.cli.serve", "stratum.cli.repair", "stratum.cli.watch")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="stratum", description="Persistent repository memory for coding agents.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    from stratum.errors import StratumError, UserError

    if argv is None and sys.argv[1:2] == ["index"]:
        # before numpy loads: OpenBLAS starting its thread pool cost ~60 ms of a 1.2 s one-file
        # re-index; the index does no BLAS work worth threads (onnxruntime and usearch have their own)
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        args = build_parser().parse_args(argv)  # the command modules load pyarrow: ~1 s to Ctrl-C in
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    args.console = argv is None      # a real process of its own (not a caller's main([...]))
    if isinstance(getattr(args, "store", None), list):      # every command taking several, serve and mcp too
        args.store = once_each(args.store)
    try:
        rc = args.func(args)
        sys.stdout.flush()                  # here, not at exit: a closed pipe is then caught below
        return int(rc or 0)
    except UserError as e:
        _fail(args, e, 2)
        return 2
    except StratumError as e:
        _debug_trace()
        _fail(args, e, 1)
        return 1
    except BrokenPipeError:                 # `stratum ... | head`: the reader left; nothing failed here
        _quiet_stdout()
        return 141                          # as a process killed by SIGPIPE (128 + 13) reports it
    except OSError as e:                    # the disk, a permission, a path that is a file: say which
        from stratum.errors import StoreError

        _debug_trace()
        _fail(args, StoreError.from_os(e, " (STRATUM_DEBUG=1 shows the traceback)"), 1)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _quiet_stdout() -> None:
    """Point stdout at /dev/null: the interpreter's flush at exit would hit the closed pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):      # no real descriptor behind stdout
        pass


def _debug_trace() -> None:
    """Tracebacks are for developers: shown with STRATUM_DEBUG=1, the one-line error always."""
    if os.environ.get("STRATUM_DEBUG", "").strip() not in ("", "0"):      # STRATUM_DEBUG=0 is off
        traceback.print_exc()


def _fail(args, e, code: int) -> None:
    if getattr(args, "json", False):
        print(json.dumps({"error": e.to_dict()}))
    print(f"stratum: error: {terminal_safe(e.message, lines=True)}", file=sys.stderr)


def add_common(p: argparse.ArgumentParser, store: bool = True, many: bool = False) -> None:
    """--json and --store on every command. ``many``: --store is repeatable and every store given is
    answered from together (the query commands, as `stratum serve` serves them); else a command reads
    one store and a second --store is refused (``_OneStore``): argparse kept the last one silently,
    so `stratum status --store A --store B` listed B alone (a probe)."""
    p.add_argument("--json", action="store_true", help="machine-readable output")
    if not store:
        return
    default = "default: the current repository's, in its git directory (<repo>/.git/stratum)"
    if many:
        p.add_argument("--store", metavar="PATH", action="append", default=None,
                       help=f"store root (repeatable: answers span every store given, as `stratum serve` "
                            f"serves them; {default})")
    else:
        p.add_argument("--store", metavar="PATH", action=_OneStore, default=None,
                       help=f"store root (one; {default})")


class _OneStore(argparse.Action):
    """--store of a command that reads one store: a second, other path is an error naming both."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        before = getattr(namespace, self.dest, None)
        if before is not None and once_each([before, values]) != [before]:      # A, then A/: one store
            raise argparse.ArgumentError(self, f"given twice ({before!r}, then {values!r}): `{parser.prog}` takes "
                                               "one store (the queries search, get, walk, tree, status and "
                                               "remember take several, as serve and mcp do)")
        setattr(namespace, self.dest, values)


def resolve_stores(args) -> list[str]:
    """The stores a query command answers from: each --store given, in order (the same store given
    twice once: ``once_each``), else the current repository's own store (``resolve_store``)."""
    given = once_each(getattr(args, "store", None) or [])
    return given or [resolve_store(argparse.Namespace(store=None))]


def resolve_store(args, repo: str | None = None, check: bool = True) -> str:
    """The store the user meant: --store, or the current repository's own store. Outside any
    repository (and below no store) with no --store: NotFound saying so. It said "no index at
    /tmp/.stratum: run `stratum index` first", and `stratum index` there said "not inside a git
    repository" (a probe). ``repo`` given (index, watch, hooks): that path's, as before; the
    command says itself what is wrong with it."""
    from pathlib import Path

    from stratum.config import default_store_path

    if getattr(args, "store", None):
        if check:                   # (index checks it once its --report says "running": a refusal is its "failed")
            folder_or_none(args.store)
        return args.store
    top = repository_root(repo or ".")
    if top is not None:
        store = default_store_path(Path(top))
        if repo is None:            # a query's: the index refuses a linked or tracked store itself, after its report
            _trusted(Path(top), store)
            _worktree_unindexed(Path(top), store)
        else:
            _worktree_leftover(Path(top), store)
        return str(store)
    here = Path(repo or ".").resolve()
    if repo is None:
        from stratum.errors import NotFound

        raise NotFound(f"no index here: the working directory {here} is not inside a git repository; run "
                       "this in a repository you indexed (`stratum index` there), or name a store with --store PATH")
    return str(default_store_path(here))


def _trusted(top: Path, store: Path) -> None:
    """Refuse, for a query or `remember`, a default store the repository's files could choose: one
    through a committed link (``refuse_linked``), or a ``.stratum`` git tracks (``refuse_tracked``:
    a checkout that brought one had queries read its forged notes and `remember` write into it).
    git is asked only of a ``.stratum`` in the work tree (the older default), never of ``.git/stratum``."""
    from pipeline.storeguard import refuse_linked, refuse_tracked
    from stratum.storehome import in_work_tree
    from stratum.store import Store

    refuse_linked(top, store)
    if in_work_tree(top, store):
        refuse_tracked(top, Store(store), reading=True)


def _worktree_unindexed(top: Path, store: Path) -> None:
    """NotFound for a query in a linked worktree when neither it nor the repository has a store,
    saying to index the main checkout: "run `stratum index`" there gave the worktree a store of its
    own, apart from the repository's store and its notes (a probe)."""
    from stratum.errors import NotFound
    from stratum.storehome import git_dirs, holds_store, shared_store

    dirs = git_dirs(top)
    if dirs is None or not dirs.linked or holds_store(store) or holds_store(shared_store(dirs.common.resolve())):
        return
    main = dirs.common.parent if dirs.common.name == ".git" else None
    there = f"the main checkout ({main}: cd there, then `stratum index`)" if main else "the repository's main checkout"
    raise NotFound(f"no index for this repository yet: this is a linked worktree ({top}); index {there}, whose "
                   "store every worktree answers from, its notes shared. `stratum index` here would give this "
                   "worktree a store of its own, apart from those notes")


def _worktree_leftover(top: Path, store: Path) -> None:
    """For a command that writes the default store of a linked worktree (index, watch): name it as
    this worktree's in its git dir (``storehome.claim_worktree_store``) and say where a store a
    removed worktree of the same name left is, which it does not touch (git reuses the name, and
    the new worktree read and wrote the old one's store: a probe)."""
    from stratum.storehome import claim_worktree_store, git_dirs, holds_store, indexed_from, worktree_stores

    dirs = git_dirs(top)
    if dirs is None or not dirs.linked:
        return
    own, left = worktree_stores(top.resolve(), dirs)
    if own != store:
        return
    claim_worktree_store(top.resolve())
    if left and not holds_store(own):
        old = ", ".join(f"{p} (indexed from {indexed_from(p) or 'an unknown folder'})" for p in left)
        print(one_line(f"a store another worktree of this name left is kept as it was and not read here: {old} "
                       f"(read its notes with --store that path, or delete it); this worktree's goes to {own}"),
              file=sys.stderr)


def folder_or_none(store: str) -> None:
    """A --store that is a file, or lies under one, is the user's to fix (exit 2), said so: it was
    "File exists (afile)" or "Not a directory (afile/st)", exit 1, as a disk fault reads (a probe)."""
    from pathlib import Path

    from stratum.errors import InvalidArgument

    p = Path(store)
    for at in (p, *p.parents):
        if at.exists() and not at.is_dir():
            where = "is a file" if at == p else f"lies under {at}, a file"
            raise InvalidArgument(f"--store {store} {where}: a store is a folder (the index makes it); "
                                  "name a folder, or a path where one can be made")


def repository_root(start: str = ".") -> str | None:
    """The root of the git work tree holding ``start`` (``GIT_DIR`` and ``GIT_WORK_TREE`` honoured),
    else, outside git, the folder holding a ``.stratum`` store at or above it: the repository a
    command run there is about; None outside any (``storehome.work_tree_top``). A ``.stratum`` inside
    a work tree (a vendored project's committed store) does not make its folder the repository."""
    from stratum.storehome import work_tree_top

    top = work_tree_top(start)
    return None if top is None else str(top)


def linked_worktree(start: str = ".") -> tuple[str, str] | None:
    """(the repository's shared store, this worktree's root) when ``start`` is inside a linked git
    worktree (``git worktree add``) that has no store of its own and the shared store has an index
    (``storehome.shared_store``): queries there answer for the worktree from the shared store (a
    worktree session), instead of "no index". A worktree of a bare repository or of a
    ``--separate-git-dir`` clone answers from ``<common>/stratum`` (it was told "no index"). A shared
    store that is the main checkout's tracked ``.stratum`` is refused (``_trusted``)."""
    from stratum.storehome import in_work_tree, shared_store

    found = _worktree_here(start)
    if found is None:
        return None
    store = shared_store(found[0])
    if not (store / "manifest.json").is_file():
        return None
    if in_work_tree(store.parent, store):
        _trusted(store.parent, store)
    return str(store), found[1]


def _worktree_here(start: str = ".") -> tuple[Path, str] | None:
    """(the repository's common git dir, this worktree's root) when ``start`` is inside a linked git
    worktree with no store of its own (no index at its ``default_store_path``), whether or not the
    shared store has one (a --server query asks the server for it). Read from the files git keeps
    (``storehome.git_dirs``): no git run. Any common dir: a bare repository's or a
    ``--separate-git-dir`` clone's worktrees share ``<common>/stratum`` (``storehome.shared_store``)."""
    from stratum.storehome import default_store_path, git_dirs, work_tree_top

    top = work_tree_top(start)
    dirs = None if top is None else git_dirs(top)
    if top is None or dirs is None or not dirs.linked or (default_store_path(top) / "manifest.json").is_file():
        return None
    return dirs.common.resolve(), str(top)


def local_store(given: str | None) -> str:
    """The store a local command reads: ``given`` (--store), else (inside a linked worktree with no
    store of its own) the shared store, where the worktree's notes go and its queries read; else
    this repository's own. `notes`, `history`, `cochange`, `serve` and `mcp` in a worktree said "no
    index at <worktree>/.stratum" (a probe)."""
    if not given:
        linked = linked_worktree()
        if linked is not None:
            return linked[0]
    return resolve_store(argparse.Namespace(store=given))


class Place(NamedTuple):
    """What a query answers from (``stores``; none for a --server query) and for: one of ``branch``,
    ``commit``, ``worktree``, or none (the default branch). ``said``: lines for the answer's
    envelope on how a name given was read here (``--branch HEAD`` in a worktree)."""
    stores: list[str]
    branch: str
    commit: str
    worktree: str
    said: tuple[str, ...] = ()


def session_place(given: list[str] | None, branch: str, commit: str, worktree: str) -> Place:
    """Where and for what a local query answers: each --store given, else the repository's own
    store; inside a linked worktree with no store of its own (``linked_worktree``), the shared
    store whatever else is asked, for this worktree (its uncommitted edits too) unless
    --branch, --commit or --worktree names another view. A name git reads in a checkout (HEAD,
    HEAD~1, @, @{-1}, ORIG_HEAD) is read in this worktree (``in_checkout``): --commit HEAD is its
    HEAD, and --branch HEAD its branch (or, detached, its commit), where the main checkout's store
    read them as the main checkout's (a probe: `get X --branch HEAD` in a worktree of fw answered
    for main). Those options skipped the lookup: `get X --branch main` in a worktree said "no index
    at <worktree>/.stratum: run `stratum index` first", advice that gives the worktree a store of its
    own and hides the main store's notes (a probe). Outside any repository with no store given:
    none ([]); the caller's ``local_store(None)`` says why when it opens them, so `stratum mcp`
    there comes up and answers each tool call with it."""
    worktree = os.path.abspath(worktree) if worktree else ""
    linked = None if given else linked_worktree()
    if linked is None:
        if not given and repository_root() is None:
            return Place([], branch, commit, worktree)
        return Place(resolve_stores(argparse.Namespace(store=given)), branch, commit, worktree)
    if commit:
        commit = in_checkout(linked[1], commit, branch=False)[1]
    if branch and not (commit or worktree) and checkout_relative(branch):
        return Place([linked[0]], *_branch_here(linked[1], branch))
    return Place([linked[0]], branch, commit, worktree or ("" if branch or commit else linked[1]))


def server_place(branch: str, commit: str, worktree: str) -> Place:
    """What a --server query asks the server for from here. Inside a linked worktree with no store
    of its own, what a local run there answers for, as far as a server can give it: with no view
    named, this worktree's branch (its commit when detached), and the line that its uncommitted
    edits are not in the answer if it has some; a name git reads in a checkout (--branch HEAD,
    --commit HEAD~1) as this worktree reads it. The server answered for its default branch, and its
    repository read HEAD as the main checkout's (a probe). The worktree's path is sent only when
    --worktree names it: the server reads it from its own disk, which a client cannot know is this
    one (a tunnel's or a container's loopback port), and a server of several repositories refuses
    a worktree of one of them."""
    worktree = os.path.abspath(worktree) if worktree else ""
    found = None if worktree or (branch and commit) else _worktree_here()
    if found is None:
        return Place([], branch, commit, worktree)
    root = found[1]
    if commit:
        return Place([], "", in_checkout(root, commit, branch=False)[1] if checkout_relative(commit) else commit, "")
    if branch:
        return Place([], *_branch_here(root, branch)) if checkout_relative(branch) else Place([], branch, "", "")
    on, sha, edits = _looked(root, found[0])
    if not sha:         # a worktree of a branch with no commit yet: no code of its own to ask for
        return Place([], "", "", "", (f"this worktree ({root}) has no commit yet: the answer is for the "
                                      "server's default branch",))
    if not edits:
        return Place([], on, "" if on else sha, "")
    shown = ", ".join(edits[:3]) + (f" and {len(edits) - 3} more" if len(edits) > 3 else "")
    what = f"its branch {on}" if on else f"its commit {sha[:12]} (HEAD is detached)"
    return Place([], on, "" if on else sha, "", (
        f"this worktree's uncommitted edits ({len(edits)} file{'s' * (len(edits) > 1)}: {shown}) are not in this "
        f"answer: the server reads the repository, not this checkout, so it answered for {what} as committed; "
        f"--worktree . asks a server on this machine to read them, or query without --server",))


def checkout_relative(rev: str) -> bool:
    """Whether git reads REV in the checkout it runs in: HEAD and ``@`` (``HEAD~2``, ``@^``), the
    reflog and previous checkouts of HEAD (``@{1}``, ``@{-1}``), the upstream of the checked-out
    branch (``@{u}``), an all-capitals name git looks up in the worktree's own directory first
    (ORIG_HEAD, FETCH_HEAD, MERGE_HEAD), and the per-worktree refs (refs/bisect/, refs/worktree/,
    refs/rewritten/). A branch, tag or commit means the same in every worktree."""
    base = re.split(r"[~^:]|@\{", rev.strip(), maxsplit=1)[0]
    return base in ("", "@") or bool(_PER_CHECKOUT.fullmatch(base))


_PER_CHECKOUT = re.compile(r"[A-Z][A-Z_]*|refs/(?:bisect|worktree|rewritten)/.+")


def in_checkout(root: str, rev: str, branch: bool = True) -> tuple[str, str]:
    """(the branch REV names in the checkout ROOT, or "" when it names none there or ``branch`` is
    false; its commit): HEAD on a branch (``@``, ``@{-1}`` after a switch) is that branch; HEAD~1, a
    detached HEAD, a tag or ORIG_HEAD a commit. A revision the checkout has not: InvalidArgument
    naming it and ROOT."""
    from pipeline import gitio
    from stratum.errors import InvalidArgument

    try:
        sha = gitio.rev_parse(root, rev)
    except gitio.GitError as e:
        raise InvalidArgument(str(e)) from None
    if not branch:
        return "", sha
    full = gitio.decode(gitio.run_git(root, "rev-parse", "--verify", "-q", "--symbolic-full-name", rev,
                                      check=False)).strip()
    return full.removeprefix("refs/heads/") if full.startswith("refs/heads/") else "", sha


def _branch_here(root: str, rev: str) -> tuple[str, str, str, tuple[str, ...]]:
    """(branch, commit, worktree, said) of ``--branch REV`` where REV is read in the worktree ROOT:
    its branch, followed as it moves, or the commit it names when it names no branch there."""
    rev = rev.strip()
    on, sha = in_checkout(root, rev)
    if on:          # an all-capitals branch's own name (``checkout_relative``) needs no word
        return on, "", "", () if on == rev else (f"--branch {rev} read in this worktree ({root}): branch {on}",)
    return "", sha, "", (f"--branch {rev} read in this worktree ({root}): commit {sha[:12]} (it names no branch "
                         "there, so the answer stays on that commit)",)


LOOK_WATCH_MAX = 20_000     # paths a kept look may watch: past that, git's own stat of them is quicker


def _looked(root: str, common: Path) -> tuple[str, str, list[str]]:
    """(the worktree's branch or "", its HEAD's commit ("": none yet), its uncommitted code paths as
    its local session reads them) for a --server query: three git runs (rev-parse twice, status),
    kept in the user's cache with all that could change them, which the next query checks with
    no git run: the probe of HEAD, its ref, packed-refs and the index (``gitio.freshness.probe``),
    the stat of every file and folder below the worktree that git does not ignore (a new file
    moves its folder's), and of the exclude files. Not kept when one of them moved within the
    clock's tick of the look (``racy``), or below a nested repository, or past ``LOOK_WATCH_MAX``."""
    import time

    from pipeline import gitio
    from stratum.errors import InvalidArgument

    key = repr(gitio.freshness.probe(root))
    spot = _look_spot(root)
    try:
        kept = json.loads(spot.read_text())
        w = kept["watch"]
        if (kept["root"], kept["key"]) == (root, key) and all(os.lstat(p).st_mtime_ns == m for p, m in w["d"].items()) \
                and all(_stat3(p) == f for p, f in w["f"].items()):
            return kept["branch"], kept["sha"], kept["edits"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    t0 = time.time_ns()
    try:
        on, sha = in_checkout(root, "HEAD")
    except InvalidArgument:
        return "", "", []
    edits, ignored = gitio.worktree_look(root)
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    watch = _watch(root, {os.path.join(root, p.rstrip("/")) for p in ignored}, t0,
                   [str(common / "info" / "exclude"), str(config / "git" / "ignore")])
    if watch is not None and repr(gitio.freshness.probe(root)) == key:
        try:
            spot.parent.mkdir(parents=True, exist_ok=True)
            tmp = spot.with_name(f".{spot.name}.{os.getpid()}")
            tmp.write_text(json.dumps({"root": root, "key": key, "branch": on, "sha": sha, "edits": edits,
                                       "watch": watch}))
            os.replace(tmp, spot)
        except OSError:             # a cache: a read-only home only costs the next query its git runs
            pass
    return on, sha, edits


def _look_spot(root: str) -> Path:
    import hashlib

    from stratum.embedder import cache_root

    name = hashlib.blake2b(root.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()
    return cache_root() / "worktree-looks" / f"{name}.json"


def _watch(root: str, skip: set[str], t0: int, extra: list[str]) -> dict | None:
    """{"f": {file: [mtime, ctime, size] or None}, "d": {folder: mtime}} below ROOT but SKIP (and
    ROOT's own ``.git``) and of EXTRA; None when it cannot be kept (see ``_looked``)."""
    import stat

    from stratum.freshness import racy

    files: dict[str, list | None] = {}
    dirs: dict[str, int] = {}
    todo = [root]
    while todo:
        d = todo.pop()
        try:
            dirs[d] = os.lstat(d).st_mtime_ns
            entries = list(os.scandir(d))
        except OSError:
            return None
        if racy(dirs[d], t0):
            return None
        for e in entries:
            if e.name == ".git" and d == root or e.path in skip:
                continue
            if e.name == ".git" or len(files) + len(dirs) > LOOK_WATCH_MAX:
                return None             # a nested repository's edits are its own status's
            try:
                s = e.stat(follow_symlinks=False)
            except OSError:
                return None
            if racy(max(s.st_mtime_ns, s.st_ctime_ns), t0):
                return None
            if stat.S_ISDIR(s.st_mode):
                todo.append(e.path)
            else:
                files[e.path] = [s.st_mtime_ns, s.st_ctime_ns, s.st_size]
    files.update((p, _stat3(p)) for p in extra)
    return {"f": files, "d": dirs}


def _stat3(path: str) -> list | None:
    try:
        s = os.lstat(path)
    except OSError:
        return None
    return [s.st_mtime_ns, s.st_ctime_ns, s.st_size]



def whole(least: int, what: str, most: int | None = None):
    """An argparse type: a whole number of at least ``least`` (a probe: `--max-file-bytes -5` skipped
    every file and was kept as the store's setting; `history --top -1` ended in a traceback), and at
    most ``most`` (the wire's bound: `serve --budget 2**63` was every session's default)."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a whole number, not {text!r}") from None
        if n < least:
            raise argparse.ArgumentTypeError(f"{what} must be {least} or more, not {n}")
        if most is not None and n > most:
            raise argparse.ArgumentTypeError(f"{what} must be {most} or less, not {n}")
        return n
    return parse


def emit(args, obj: dict, text: str) -> None:
    """``obj`` as JSON with --json (exact values; JSON escapes controls), else ``text``, made
    terminal-safe as a whole: a command that printed a field as it is (a file name holding ESC [31m
    or an OSC title, a bidi override) cannot reach the terminal with it. A one-line field is best
    passed through ``one_line`` by the command too, so a newline in it cannot start a line."""
    print(json.dumps(obj, indent=1, default=_json_value) if getattr(args, "json", False)
          else terminal_safe(text, lines=True))


def _json_value(v: object) -> str:
    """A value JSON lacks: a time in ISO 8601 (``str`` gave "2012-12-17 13:09:52+00:00", a space for
    the ``T``: a data probe's co-change ``first_time``), anything else as ``str``."""
    return v.isoformat() if isinstance(v, (datetime.date, datetime.time)) else str(v)


def one_line(value: object) -> str:
    """A field printed within a line (a path, a name, a warning): terminal-safe, its newlines and
    tabs spelled out (``stratum.notetext.terminal_safe``)."""
    return terminal_safe(str(value))


QUOTE = "> "


def quoted(text: str) -> str:
    """A note's text (or a mined commit message) as data: terminal-safe, every line behind "> ",
    so none can read as a line of the CLI's own output (an envelope's "-- ... that is all", a
    "by maintainer [authenticated]" header): MCP sends it under ``note_text`` for the same reason."""
    return "\n".join(QUOTE + ln if ln else QUOTE.rstrip() for ln in terminal_safe(text, lines=True).split("\n"))


__all__ = ["main", "build_parser", "add_common", "resolve_store", "resolve_stores", "once_each", "linked_worktree",
           "local_store", "session_place", "server_place", "Place", "checkout_relative",
           "in_checkout", "repository_root", "whole", "emit", "one_line", "quoted", "QUOTE"]
