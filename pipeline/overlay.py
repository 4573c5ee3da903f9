"""Branch and commit overlays: only what a branch changed, indexed beside the shared base version.

A session opened for a branch or commit gets the store's base version plus an overlay holding the
files that differ between the indexed commit and the target: changed and added files read with
``git cat-file`` (never from the work tree), parsed, linked (imports and tests resolved against the
base's paths minus the deleted ones plus the overlay's), embedded with the base's model (vectors of
unchanged text come from the base's cache) and written as a small store of its own under
``<store>/overlays/<commit>/`` with warm indexes. The base store is never written: its manifest,
versions and datasets stay as they were. An overlay is built once per (base version, commit) and
reused; ``stratum.branchview`` answers base + overlay as one.

Folders: every folder above a changed, added or deleted file (and the repo node) is the overlay's
too, listed and counted from the branch's whole file set (the base's files it kept plus its own),
so a folder shows what the branch has, not only what it changed; its ``contains`` edges go to the
overlay's own nodes (the view adds the base's unchanged children). A base folder the branch
emptied is named in ``deleted_dirs``: the view hides it.
"""

from __future__ import annotations

import json
import os
import posixpath
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pipeline import gitio
from pipeline.callbindings import JS_EXTS, PY_EXTS
from pipeline import stages as st
from pipeline.report import RunReport
from stratum.config import EmbedConfig, IndexConfig
from stratum.errors import InvalidArgument, NotARepository
from stratum.ids import content_hash
from stratum.limits import echo
from stratum.store import Manifest, Store

OVERLAYS_DIR = "overlays"
# in the folder name: an overlay built by older code is never read (3: links skipped; 4: calls
# through an unchanged package __init__'s re-exports linked; 5: the branch's renames recorded; 6: calls
# through an unchanged plain module's imports linked)
FORMAT = 6
INFO_FILE = "overlay.json"
CROSS_FILE = "cross_edges.json"       # [src id, dst id, kind, meta] between overlay and base nodes


def overlay_dir(store_root: str | os.PathLike, base_version: int, sha: str, dirty_key: str = "") -> Path:
    return Path(store_root) / OVERLAYS_DIR / (f"v{base_version}-f{FORMAT}-{sha[:20]}"
                                              + (f"-w{dirty_key}" if dirty_key else ""))


def build(store_root: str | os.PathLike, rev: str = "", config: IndexConfig | None = None, *,
          worktree: str | os.PathLike = "") -> dict:
    """The overlay of REV (a branch, tag or commit), or of a WORKTREE of the store's repository (its
    HEAD plus its uncommitted changes, read from disk confined to it), over the store's published
    version: a dict with ``dir`` (a store loadable as a shard, or "" when nothing differs),
    ``commit``, ``base_commit``, ``changed`` (changed or added paths), ``deleted``, ``deleted_dirs``
    (base folders the branch emptied), ``base_moved`` (the changed and deleted paths only the
    default branch changed since the branch forked: ``_base_moved``), ``dirty`` (the
    worktree's uncommitted paths), ``branch`` (the worktree's checked-out branch, "" when detached or
    not a worktree: notes written there say where their code is), ``seconds`` and ``cached``."""
    t0 = time.perf_counter()
    store = Store(store_root)
    m = store.manifest()
    if not m.repo_path or not m.indexed_commit:
        raise InvalidArgument(f"the store {store_root} was not indexed from a git commit: no branch overlay")
    cfg = _config(config, m)
    disk: dict[str, bytes | None] = {}
    if worktree:
        wt, sha, disk = _worktree(m, worktree, cfg)
        dirty_key = content_hash(json.dumps(sorted((p, content_hash(d) if d is not None else "-")
                                                   for p, d in disk.items())))[:12] if disk else ""
    else:
        wt, sha, dirty_key = Path(m.repo_path), gitio.rev_parse(m.repo_path, rev), ""
    out = overlay_dir(os.path.abspath(store_root), m.version, sha, dirty_key)    # never the cwd's
    info_path = out / INFO_FILE
    name = _branch_name(wt) if worktree else ""     # not part of the overlay: two worktrees may share it
    if (info := _built(out)) is not None:
        info.update(cached=True, seconds=round(time.perf_counter() - t0, 4), branch=name)
        return info
    changed, deleted, links = gitio.diff_paths(m.repo_path, m.indexed_commit, sha)
    gone = {p for p, d in disk.items() if d is None and not os.path.lexists(wt / p)}
    changed = sorted((set(changed) | set(disk)) - gone)
    deleted = sorted((set(deleted) | gone) - set(changed))
    info = {"commit": sha, "base_commit": m.indexed_commit, "base_version": m.version, "changed": changed,
            "deleted": deleted, "deleted_dirs": [], "dirty": sorted(disk), "dir": "",
            "base_moved": _base_moved(m.repo_path, m.indexed_commit, sha, set(changed) | set(deleted), disk),
            "renames": _renames(m.repo_path, m.indexed_commit, sha)}
    tmp = Path(tempfile.mkdtemp(prefix=".building-", dir=_mkdir(out.parent)))
    try:
        if changed or deleted:         # a deletion alone changes the folders above it
            info["deleted_dirs"] = _index(store, m, sha, changed, deleted, links, disk, tmp / "store", cfg)
            info["dir"] = str(out / "store")
        info["build_seconds"] = round(time.perf_counter() - t0, 4)
        (tmp / INFO_FILE).write_text(json.dumps(info, indent=1))
        try:
            os.rename(tmp, out)            # atomic: a reader sees a whole overlay or none
        except OSError:
            if not info_path.is_file():    # not a concurrent builder's finished copy
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    info.update(cached=False, seconds=round(time.perf_counter() - t0, 4), branch=name)
    prune(store)
    return info


def _built(out: Path) -> dict | None:
    """The overlay built at OUT, its ``dir`` read as OUT's own; None when there is none, or when it
    cannot be read (removed, so it is built again). A process given a relative ``--store`` recorded
    ``dir`` relative to its own cwd: every session from another folder then failed "no index at
    .stratum/overlays/...: run `stratum index` first" until the next published version (a probe)."""
    try:
        info = json.loads((out / INFO_FILE).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        info = None
    if isinstance(info, dict) and isinstance(info.get("commit"), str):
        if not info.get("dir"):
            return info
        if (out / "store" / "manifest.json").is_file():
            return dict(info, dir=str(out / "store"))
    aside = out.with_name(f".broken-{out.name}-{os.getpid()}-{time.monotonic_ns()}")
    try:
        os.rename(out, aside)      # a reader holding it keeps its files; the next build takes its place
    except OSError:
        pass                       # another process moved it first
    shutil.rmtree(aside, ignore_errors=True)
    return None


def _base_moved(repo: str, base: str, sha: str, differ: set[str], disk: dict) -> list[str]:
    """The paths in DIFFER (those SHA, with DISK's uncommitted edits, has unlike BASE) that the
    branch left as they were where it forked from BASE's history: only the default branch changed
    them since. A base note about code there is judged by its hashes in a session on the branch,
    as the default branch judges it (``StoreOverlay.branch_changed``): a note written on main
    before the fork about code main changed after it read "in a file 'feature' changed since this
    note was written", though the branch has that code as the note saw it."""
    if not differ:
        return []
    fork = gitio.decode(gitio.run_git(repo, "merge-base", base, sha, check=False)).strip()
    if not fork or fork == base:            # no shared history, or the branch holds every base commit
        return []
    changed, deleted, _ = gitio.diff_paths(repo, fork, sha)
    return sorted(differ - set(changed) - set(deleted) - set(disk))


def _renames(repo: str, base: str, sha: str) -> dict:
    """The renames between the indexed commit BASE and SHA, for a branch session's notes to follow
    (``stratum.branchcode.BranchRenames``): ``net``, base path -> SHA's path (``git diff -M``: main's
    renames since the fork read backwards too, so a note main's re-index moved finds the branch's
    file); ``commits``, the branch's commits since the fork, oldest first; ``moves``, sha -> {old:
    new} of those that renamed (a note written on the branch follows the renames after its commit:
    a file only the branch has too). A note about a renamed file was "no longer exists" on the
    branch that renamed it, though the merge follows the rename (``pipeline.notetargets``)."""
    diff = ("-c", "core.quotepath=off")
    net = _moved(gitio.run_git(repo, *diff, "diff", "-M", "--name-status", "-z", "--diff-filter=R", base, sha))
    fork = gitio.decode(gitio.run_git(repo, "merge-base", base, sha, check=False)).strip()
    commits: list[str] = []
    moves: dict[str, dict[str, str]] = {}
    if fork and fork != sha:
        span = f"{fork}..{sha}"
        commits = gitio.decode(gitio.run_git(repo, "rev-list", "--reverse", "--topo-order", span)).split()
        out = gitio.run_git(repo, *diff, "log", "-M", "--name-status", "-z", "--diff-filter=R",
                            "--format=%x01%H", span)
        for chunk in out.split(b"\x01")[1:]:
            head, _, rest = chunk.partition(b"\0")
            if got := _moved(rest.lstrip(b"\n")):
                moves[gitio.decode(head).strip()] = got
    return {"net": net, "commits": commits, "moves": moves} if net or moves else {}


def _moved(out: bytes) -> dict[str, str]:
    """old -> new of ``--name-status -z --diff-filter=R`` output: (``R<score>``, old, new) records."""
    recs = out.split(b"\0")
    return {gitio.decode(recs[i + 1]): gitio.decode(recs[i + 2])
            for i in range(0, len(recs) - 2, 3) if recs[i].startswith(b"R")}


def prune(store: Store) -> list[str]:
    """Remove overlays built on base versions the store no longer keeps or in an older format,
    unless a reader (any process) still holds one open; returns the folders removed."""
    kept = {f"v{v}-f{FORMAT}-" for v in store.published_versions()}
    gone = []
    for d in sorted((store.root / OVERLAYS_DIR).glob("v*")):
        if any(d.name.startswith(k) for k in kept) or Store(d / "store").held_versions():
            continue
        shutil.rmtree(d, ignore_errors=True)
        gone.append(d.name)
    return gone


def _worktree(m: Manifest, worktree: str | os.PathLike, cfg: IndexConfig) -> tuple[Path, str, dict]:
    """(root, HEAD, uncommitted path -> bytes or None) of a worktree of the store's repository; a
    directory of another repository is refused (a caller may name only this repository's code)."""
    from pipeline.files import read_source

    try:
        wt = gitio.repo_root(worktree)
    except NotARepository:
        wt = None                  # one answer whatever the path is: a caller learns nothing of the disk
    if wt is None or gitio.common_dir(wt) != gitio.common_dir(m.repo_path):
        raise InvalidArgument(f"{echo(str(worktree))!r} is not a worktree of the indexed repository {m.repo_name!r}")
    sha = gitio.head_commit(wt)
    if sha is None:
        raise InvalidArgument(f"the worktree {worktree} has no commit checked out")
    disk = {p: read_source(wt, p, cfg.parse).data for p in gitio.dirty_paths(wt)}
    return wt, sha, disk


def _branch_name(wt: Path) -> str:
    """The branch a worktree has checked out ("" when its HEAD is detached); notes written in its
    session record it, so a name they may not hold is refused as a ``--branch`` is (``check_branch``)."""
    from stratum.branchnotes import check_branch

    return check_branch(gitio.checkout_branch(wt), "the worktree's branch")


def _mkdir(p: Path) -> Path:
    p.mkdir(parents=True, exist_ok=True)
    return p


def _config(config: IndexConfig | None, m: Manifest) -> IndexConfig:
    """The base's embedding model (query vectors must match both), the given parse settings."""
    cfg = config or IndexConfig()
    emb = m.embedding or {}
    if emb.get("model"):
        cfg = IndexConfig(parse=cfg.parse, history=cfg.history, ray=False,
                          embed=EmbedConfig(model=emb["model"], recipe=emb.get("recipe", "") or ""))
    elif m.embedding is None:
        cfg = IndexConfig(parse=cfg.parse, history=cfg.history, ray=False, embed=EmbedConfig(enabled=False))
    return cfg


def _manifests(repo: str, sha: str, blobs, disk: dict[str, bytes | None], skip: set[str]) -> dict[str, str]:
    """The manifests import resolution reads (``files.MANIFESTS``: go.mod, Cargo.toml, a JS/TS
    repository's package.json and tsconfig), as the branch (or the worktree, from DISK) has them:
    passed none, an overlay read a workspace package's import as external, and the calls through
    it were lost on the branch (a review: a two-package monorepo's caller of ``clamp`` vanished in a
    branch session that edited the caller)."""
    from pipeline.files import MANIFESTS

    names = set(MANIFESTS)
    paths = {gitio.decode(p) for p in gitio.tree_paths(repo, sha)} | {p for p, d in disk.items() if d is not None}
    out: dict[str, str] = {}
    for p in sorted(paths - skip):
        if posixpath.basename(p) not in names or "node_modules" in p.split("/"):
            continue
        data = disk[p] if p in disk else blobs.read(f"{sha}:{p}")
        if data is not None:
            out[p] = data.decode("utf-8", "replace")
    return out


def _header_sources(snap, changed: list[str], gone: set[str]) -> list[dict]:
    """The base's includes of a header by an unchanged C/C++ source, when the branch changed a C/C++
    file: a changed test of the header reaches the source implementing it (``by: "header"``,
    ``testlinks._implementing``) only through them (a review: a branch editing db_test.cc lost its
    edge to db_impl.cc). Sources only: a test's includes are its own tests edges, made as before."""
    from pipeline.testlinks import C_HEADERS, C_SOURCES

    if not any(p.lower().endswith((*C_HEADERS, *C_SOURCES)) for p in changed):
        return []
    paths = {n["id"]: n["path"] for n in snap.read("nodes", columns=["id", "path"], where="kind = 'file'").to_pylist()}
    out = []
    for e in snap.read("edges", columns=["src", "dst"], where="kind = 'imports'").to_pylist():
        src, dst = paths.get(e["src"]), paths.get(e["dst"])
        if src is not None and dst is not None and src not in gone and src.lower().endswith(C_SOURCES) \
                and dst.lower().endswith(C_HEADERS):
            out.append({"src": e["src"], "dst": e["dst"]})
    return out


def _index(base: Store, m: Manifest, sha: str, changed: list[str], deleted: list[str], links: set[str],
           disk: dict[str, bytes | None], dest: Path, cfg: IndexConfig) -> list[str]:
    """Parse, link, embed and write the changed files (from DISK when there, else ``sha:path``) and
    the folders above them and the deleted ones; returns the base folders the branch emptied.
    LINKS: the changed paths SHA holds as a symlink or a submodule (``gitio.diff_paths``): the
    index skips them (a link's blob is its target's path, and a link may point out of the
    repository), so an overlay does too. A probe's `get newlink.py --branch feat` served a
    committed link to /etc/passwd as a one-line Python file."""
    from pipeline.files import content_skip_reason, name_skip_reason
    from pipeline.callrefs import DECL
    from pipeline.parse import TEST_MARK
    from pipeline.calls import resolve as resolve_calls
    from pipeline.imports import FileImports, resolve
    from pipeline.job import InProcess, _noop, _parse_batch
    from pipeline.testlinks import js_definitions, link_tests

    rep = RunReport(repo=m.repo_path, store=str(dest))
    items = []
    with gitio.BlobReader(m.repo_path) as blobs:
        for p in changed:
            if name_skip_reason(p) or (p in links and p not in disk):
                continue
            data = disk[p] if p in disk else blobs.read(f"{sha}:{p}")
            if data is not None and not content_skip_reason(data, cfg.parse):
                items.append((p, data))
        manifests = _manifests(m.repo_path, sha, blobs, disk, set(deleted) | links)
    parsed = _parse_batch(m.repo_name, items, cfg.parse)
    nodes, edges, file_imports = st.collect(parsed, rep)
    snap = base.snapshot(m)
    base_langs = _file_languages(snap)
    base_paths = set(base_langs) - set(deleted)
    mine = {n["path"]: n.get("language") for n in nodes if n["kind"] == "file"}
    all_paths = sorted(base_paths | set(mine))
    gone_dirs = _folders(m.repo_name, base_langs, changed, deleted, mine, nodes, edges, cfg)
    fi = [FileImports(p, lang, tuple(imps)) for p, (lang, imps) in sorted(file_imports.items())]
    # the base's package __init__ files, for the re-exports a changed file's imports go through
    context = st.init_imports(snap, set(mine) | set(deleted))
    bindings: dict = {}
    imp_edges, externals = resolve(m.repo_name, fi, all_paths, manifests, context=context, bindings=bindings)
    edges.extend(imp_edges)
    # the changed files' calls and bases, to their own definitions or the base's unchanged ones
    gone = set(mine) | set(deleted)
    known = [n for n in snap.read("nodes", columns=["id", "path", "qualname", "kind", "language", "start_line",
                                                    "end_line", "subkind"],
                                  where="kind IN ('file', 'class', 'function', 'method')").to_pylist()
             if n["path"] not in gone]
    edges.extend(link_tests(m.repo_name, all_paths, [*imp_edges, *_header_sources(snap, changed, gone)],
                            js_definitions((*nodes, *known))))
    # what the base's definitions are resolved by, in one read of the few metas that say it (not
    # every meta): a C/C++ prototype's flag, a gtest test's mark, a declared return type, a Java
    # overload's arity and parameter types (``callindex``: a branch's call picks its overload)
    said = {r["id"]: r["meta"] for r in snap.read(
        "nodes", columns=["id", "meta"],
        where=f"(language IN ('c', 'cpp') AND (meta LIKE '%{DECL}%' OR meta LIKE '%{TEST_MARK}%')) "
              "OR meta LIKE '%\"returns\"%' OR meta LIKE '{\"arity\"%'").to_pylist()}     # and a Java overload's
    for n in known:
        n["meta"] = said.get(n["id"])
    words, called = _words([data for p, data in items if p in mine])
    returning = _ReturnTypes(known, called, words)
    _module_bindings(m.repo_name, snap, context, fi, all_paths, bindings, words, returning, manifests)
    ids = {n["id"] for n in known}          # the unchanged classes' own bases: a call follows them
    inherits = [(e["src"], e["dst"]) for e in snap.read("edges", columns=["src", "dst"],
                                                       where="kind = 'inherits'").to_pylist() if e["src"] in ids]
    edges.extend(resolve_calls(nodes, imp_edges, bindings, known=known, known_bases=inherits))
    cache_tab = None
    work = st.embed_plan(cfg, m, snap, nodes, rep)
    if work is not None:
        vectors: Any = InProcess().embed(work.plan.texts, cfg.embed, _noop) if work.plan.texts else []
        cache_tab = st.embed_attach(work, nodes, vectors)
    # imports/tests/calls edges with one end in the base: the overlay's graph keeps only its own nodes
    mine_ids = {n["id"] for n in nodes}
    cross = [[e["src"], e["dst"], e["kind"], e.get("meta")] for e in edges
             if e["kind"] in ("imports", "tests", "calls", "inherits") and (e["src"] in mine_ids) != (e["dst"] in mine_ids)]
    _mkdir(dest.parent)
    (dest.parent / CROSS_FILE).write_text(json.dumps(cross))
    store = Store(dest)
    datasets, index_files, checks = st.write(store, 1, nodes, edges, externals, {}, cache_tab, rep)
    store.publish(Manifest(version=1, published_at=time.time(), repo_name=m.repo_name, repo_path=m.repo_path,
                           indexed_commit=sha, history_watermark=None, datasets=datasets,
                           token_encoding=cfg.parse.token_encoding, embedding=work.info if work else None,
                           indexes=index_files, report=rep.to_dict(), integrity=checks))
    return gone_dirs


def _module_bindings(repo: str, snap, context: list, fi: list, all_paths: list[str], bindings: dict,
                     words: set[str], returning: "_ReturnTypes", manifests: dict[str, str] | None = None) -> None:
    """Add to BINDINGS what the base's unchanged Python and JS/TS modules the changed files'
    imports reach bind, and what those modules' imports of the names asked reach in turn, resolved
    against the branch's paths: ``pipeline.calls`` reads a re-export off the imported module's own
    bindings (``from .impl import run as start`` in an ``__init__``, ``from other.nums import
    clamp`` in ``jobs.py``), so a changed file's ``from jobs import clamp; clamp()`` or
    ``jobs.clamp()`` links as a full index of the branch links it. Before, only changed files and
    the reached ``__init__`` files had them: a branch that only added a comment to ``user.py``
    lost both calls (a probe). RETURNING: the names a reached module's function's declared return
    type is read by there (``b = make_box(); b.make()``), read likewise.

    Only what ``pipeline.calls`` may read is read (``_wanted``): of a module, the imports binding
    the names asked; ``__init__`` files and barrels come from CONTEXT (``stages.init_imports``), a
    plain module's imports from the base, for the reached ones alone (``stages.file_imports``);
    as deep as ``pipeline.calls`` reads. On pandas (1,440 files) a branch changing ``frame.py``
    bound 94 modules' names in ~110 ms of a ~1.7 s build (the 28 ``__init__`` files alone: ~35
    ms; every reached module's imports whole: 192, ~250 ms), and of the 6,806 calls out of a
    100-file branch's changed files a full index links, 6,702 (before: 4,485). Their edges are
    the base's."""
    from pipeline.callbindings import REEXPORT_DEPTH
    from pipeline.imports import FileImports, resolve

    inits = {f.path: f for f in context}
    mine = {f.path for f in fi}
    lang: dict[str, str | None] = {}
    left: dict[str, list] = {}                      # a reached module's imports not resolved yet
    followed: dict[str, set[str] | None] = {}       # path -> the names followed (None: WORDS)
    asked: dict[str, set[str] | None] = dict.fromkeys(mine)
    extra = returning.unique
    for _ in range(REEXPORT_DEPTH + 2):         # ``pipeline.calls`` reads a re-export REEXPORT_DEPTH + 1
        todo: dict[str, set[str] | None] = {}   # modules deep, after a dotted receiver's module one more
        for t, names in _wanted(bindings, asked, inits, mine, words, extra).items():
            if t in mine:
                continue
            if names is not None and (ret := returning.by_path.get(t)):
                names |= ret
            had = followed.get(t, set())
            if t in followed and (had is None or (names is not None and names <= had)):
                continue                                # followed already
            todo[t] = names if names is None or had is None else names - had
            followed[t] = None if names is None or had is None else had | names
        if not todo:
            return
        extra = {}
        fresh = set(todo) - set(left)
        for f in [inits[t] for t in fresh if t in inits] + st.file_imports(snap, fresh - set(inits)):
            lang[f.path], left[f.path] = f.language, list(f.imports)
        part = []
        for t, names in sorted(todo.items()):
            take: list = []
            keep: list = []
            for r in left.get(t, ()):
                (take if _binds(r, words if names is None else names) else keep).append(r)
            if take:
                left[t] = keep
                part.append(FileImports(t, lang[t], tuple(take)))
        own: dict = {}
        resolve(repo, part, all_paths, manifests or {}, context=[*context, *fi], bindings=own)
        for path, names_of in own.items():
            have = bindings.setdefault(path, {})
            for local, seen in names_of.items():
                have[local] = sorted([*have.get(local, ()), *seen], key=lambda b: b[0])   # in the file's order
        asked = todo


def _wanted(bindings: dict, asked: dict[str, set[str] | None], inits: dict, mine: set[str], words: set[str],
            extra: dict[str, set[str]]) -> dict[str, set[str] | None]:
    """The Python and JS/TS files the imports in BINDINGS of the names ASKED (path -> names; None:
    MINE's every name, another's WORDS) reach, each with the names ``pipeline.calls`` may read off
    it, and EXTRA's: the name the import takes; of a module bound whole (an ``__init__`` or barrel
    of INITS, ``import jobs``, ``import * as jobs``), any attribute a changed file may call (None:
    one of the WORDS written there, ``_words``); through a barrel's ``export *``, the names asked
    of the barrel. An unchanged module's import in a function's body (a record marked ``scoped``)
    is not followed: ``pipeline.calls`` reads a module's names as its top level binds them; MINE's
    are."""
    from pipeline.pyimports import is_module

    out: dict[str, set[str] | None] = {t: set(names) for t, names in extra.items()}
    for path, names in asked.items():
        want = names if names is not None or path in mine else words
        for local, seen in bindings.get(path, {}).items():
            if want is not None and local not in want and local.partition(".")[0] not in want and local != "*":
                continue
            for b in seen:              # a binding record: (line, name there, [scoped,] files)
                if len(b) > 3 and b[2] is True and path not in mine:
                    continue
                orig = b[1]
                for t in b[-1]:
                    if not t.endswith(_FOLLOWED) or (t in out and out[t] is None):
                        continue
                    if local == "*" and orig == "*" and path not in mine:
                        got = names                     # export * from: what is asked of the barrel
                    elif t in inits or orig in ("*", "") or (t.endswith(_PY) and is_module(t, orig)):
                        got = None
                    else:
                        got = {orig}
                    if got is None:
                        out[t] = None
                    else:
                        out.setdefault(t, set()).update(got)    # type: ignore[union-attr]
    return out


def _binds(ref, names: set[str]) -> bool:
    """Whether the import may bind one of NAMES (``imports._bound_names``; more is harmless)."""
    return "*" in ref.names or not names.isdisjoint((*ref.names, *ref.bound, ref.target))


def _words(sources: list[bytes]) -> tuple[set[str], set[str]]:
    """The identifiers written in the changed files' SOURCES (every name a call, a base or a typing
    there may read off a module it imports whole is one of them), and those written before a
    ``(`` (every name a call there may name). A byte table and ``split``, not a regular expression:
    ~30 ms for 3.6 MB of pandas source, a regular expression ~300 ms."""
    words: set[bytes] = set()
    called: set[bytes] = set()
    for data in sources:
        words.update(data.translate(_IDENT).split())
        called.update(p[-1] for c in data.translate(_IDENT_PAREN).split(b"(")[:-1] if (p := c.rsplit(None, 1)))
    return {w.decode("utf-8", "replace") for w in words}, {w.decode("utf-8", "replace") for w in called}


class _ReturnTypes:
    """The names a base function's declared return type is read by in its module, for the
    functions a changed file may call (CALLED, ``_words``): ``b = make_box(); b.make()`` types
    ``b`` by ``make_box``'s ``-> Box``, which ``pipeline.calls`` reads in ``make_box``'s module,
    where ``Box`` may be an import. ``by_path``: path -> names, asked of a module when the changed
    files' imports reach it; ``unique``: those of the functions no other base definition shares a
    name with (a call may reach one by its name alone), asked from the start. The types' own
    names are added to WORDS: they are read off the modules they come from."""

    def __init__(self, known: list[dict], called: set[str], words: set[str]):
        self.by_path: dict[str, set[str]] = {}
        self.unique: dict[str, set[str]] = {}
        typed = [(n, name, got) for n in known if n.get("meta") and '"returns"' in n["meta"]
                 and n["path"].endswith(_FOLLOWED) and (name := n["qualname"].rsplit(".", 1)[-1]) in called
                 and (got := json.loads(n["meta"]).get("returns"))]
        if not typed:
            return
        names = Counter(q for n in known if n["kind"] in ("function", "method")
                        and (q := n["qualname"].rpartition(".")[2]) in called)
        for n, name, (rname, rrecv, *_) in typed:
            words.update((rname, *rrecv.split(".")) if rrecv else (rname,))
            head = rrecv.split(".", 1)[0] if rrecv else rname
            self.by_path.setdefault(n["path"], set()).add(head)
            if names[name] == 1:
                self.unique.setdefault(n["path"], set()).add(head)


_NAME_BYTES = {*b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$", *range(0x80, 0x100)}   # UTF-8's too
_IDENT = bytes(b if b in _NAME_BYTES else 0x20 for b in range(256))      # all but a name's bytes: a space
_IDENT_PAREN = bytes(b if b in _NAME_BYTES or b == 0x28 else 0x20 for b in range(256))    # and "(" kept
_PY = PY_EXTS
_FOLLOWED = (*PY_EXTS, *JS_EXTS)    # the modules whose own imports ``pipeline.calls`` reads (``callbindings``)


def _file_languages(snap) -> dict[str, str | None]:
    """path -> language of every file node of the base version."""
    tab = snap.read("nodes", columns=["path", "language"], where="kind = 'file'")
    return dict(zip(tab.column("path").to_pylist(), tab.column("language").to_pylist()))


def _folders(repo: str, base_langs: dict[str, str | None], changed: list[str], deleted: list[str],
             mine: dict[str, str | None], nodes: list[dict], edges: list[dict], cfg: IndexConfig) -> list[str]:
    """Add to NODES and EDGES the repo node and every folder above a changed or deleted path, as
    the branch has them: built from its whole file set (the base's files it neither changed nor
    deleted, plus the overlay's own MINE), with ``contains`` edges only to the overlay's nodes.
    Returns the folders above those paths that the branch has no file under (sorted): emptied."""
    from pipeline.tree import tree_nodes

    drop = set(changed) | set(deleted)      # a changed file the overlay skipped is not the branch's either
    langs = {p: lang for p, lang in base_langs.items() if p not in drop} | mine
    touched = {""}
    for p in drop:
        while p:
            p = posixpath.dirname(p)
            touched.add(p)
    tnodes, tedges = tree_nodes(repo, sorted(langs), cfg.parse, languages_by_path=langs)
    kept = [n for n in tnodes if n["path"] in touched]
    ids = {n["id"] for n in kept} | {n["id"] for n in nodes if n["kind"] == "file"}
    nodes.extend(kept)
    edges.extend(e for e in tedges if e["src"] in ids and e["dst"] in ids)
    return sorted(touched - {n["path"] for n in kept})


def builder(config: IndexConfig | None = None):
    """The overlay callback for ``Tools(overlay_builder=)`` (``pipeline.overlaybuilder``: it answers
    a session's call without git while the files that decide its overlay hold), which also reads the
    default branch's hashes of a few files (``pipeline.defaultcode``: a checkout note's marks)."""
    from pipeline.defaultcode import OverlayCallback
    from pipeline.overlaybuilder import builder as overlay_builder

    return OverlayCallback(overlay_builder(config), config)


__all__ = ["build", "builder", "prune", "overlay_dir", "OVERLAYS_DIR"]
