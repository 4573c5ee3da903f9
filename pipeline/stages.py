"""The index job's stage calls that need no engine: reading, reuse, linking, history, notes, embedding
plans (``pipeline.embedreuse``, re-exported here). ``pipeline.job`` strings them together and runs
parse, embed and symbols on an engine (in-process or Ray); everything here is a plain function over
plain records and Arrow tables.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Collection, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.embedreuse import EmbedWork, embed_attach, embed_plan, full_cache, known_hashes, log_vectors, text_rules
from pipeline.report import RunReport
from stratum import schema as S
from stratum.config import IndexConfig
from stratum.errors import StoreError
from stratum.store import Manifest, Snapshot, Store

Progress = Callable[[str, int, int], None]   # (stage, done, total)


def _in_list(column: str, values: tuple[str, ...]) -> str:
    """A Lance filter ``column IN (...)`` built from a tuple of known identifiers (kinds)."""
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


# ---- 1. read ------------------------------------------------------------------------------------
@dataclass
class Sources:
    to_parse: list[tuple[str, bytes]] = field(default_factory=list)   # (path, bytes) changed or new
    reused: set[str] = field(default_factory=set)                     # same content hash as before

    @property
    def parse_bytes(self) -> int:
        return sum(len(b) for _, b in self.to_parse)


def read_sources(root: Path, cfg: IndexConfig, prev_snap, rep: RunReport, exclude: tuple[str, ...] = ()) -> Sources:
    """Discover and read the files (confined to the repository); unchanged ones are reused.
    ``exclude``: directories that are not the code (the store, when it lives in the repository)."""
    from pipeline.files import discover, read_source
    from stratum.ids import content_hash

    from pipeline.storestate import PARSE_FORMAT

    disc = discover(root, cfg.parse, exclude)
    rep.absorb_discovery(disc)
    rep.parse_format = PARSE_FORMAT
    prev_files = previous_files(prev_snap)
    had = (prev_snap.manifest.report or {}).get("parse_format", 1) if prev_snap is not None else PARSE_FORMAT
    if prev_files and had != PARSE_FORMAT:     # an older parser's records: parse everything once
        prev_files = {}
        rep.messages.append(f"every file parsed again: the store's parse output is format {had}, this "
                            f"parser's is {PARSE_FORMAT} (once; vectors of unchanged text are kept)")
    out = Sources()
    for sf in disc.files:
        src = read_source(root, sf, cfg.parse)
        if src.data is None:
            rep.skip(src.skip_reason or "unreadable", sf.path)
        elif prev_files.get(sf.path) == content_hash(src.data):
            out.reused.add(sf.path)
        else:
            out.to_parse.append((sf.path, src.data))
    return out


def previous_files(snap) -> dict[str, str]:
    """path -> content hash of every file node of the previous version."""
    if snap is None:
        return {}
    tab = snap.read("nodes", columns=["path", "kind", "file_hash"], where="kind = 'file'")
    return dict(zip(tab.column("path").to_pylist(), tab.column("file_hash").to_pylist()))


# ---- 2. parse results and reuse -----------------------------------------------------------------
def collect(parsed: list, rep: RunReport) -> tuple[list[dict], list[dict], dict]:
    """Nodes, edges and raw imports of the parsed files; warnings and skips go to the report."""
    nodes: list[dict] = []
    edges: list[dict] = []
    imports: dict[str, tuple] = {}
    for pf in parsed:
        if not rep.absorb_parsed(pf):
            continue
        nodes.extend(pf.nodes)
        edges.extend(pf.edges)
        imports[pf.path] = (pf.language, list(pf.imports))
        for n in pf.nodes:   # keep raw imports with the file so a re-index can re-resolve them
            if n["kind"] == "file":
                meta = json.loads(n.get("meta") or "{}")
                meta["imports"] = [asdict(i) for i in pf.imports]
                n["meta"] = json.dumps(meta)
    return nodes, edges, imports


def node_columns(vectors: bool) -> list[str] | None:
    """The node columns to read back from a previous version: all, or all but ``vector`` when the
    embed stage sets every vector again (``embed_attach``, from the cache): 384 floats a node as
    Python objects were ~3/4 of turning the kept rows into records (~60 ms of a one-file re-index)."""
    return None if vectors else [f.name for f in S.NODES if f.name != "vector"]


def reuse(snap, paths: set[str], vectors: bool = True) -> tuple[list[StoredRow], list[StoredRow], dict]:
    """Nodes, in-file contains edges and raw imports of unchanged files from the previous version,
    selected with Arrow filters (only the kept rows become Python records, ``StoredRow``s; ``vectors``:
    with their vectors, see ``node_columns``). The repo, dir and note rows are left out by Lance's
    filter, not read and dropped (sympy: 38,000 mined notes' texts, ~0.1 s)."""
    tab = snap.read("nodes", columns=node_columns(vectors),
                    where=f"NOT ({_in_list('kind', ('repo', 'dir', *S.NOTE_KINDS))})")
    kept = tab.filter(pc.is_in(tab["path"], value_set=pa.array(sorted(paths), pa.string())))
    ids = kept["id"].combine_chunks() if kept.num_rows else pa.array([], pa.string())
    etab = snap.read("edges", where="kind = 'contains'")
    emask = pc.and_(pc.is_in(etab["src"], value_set=ids), pc.is_in(etab["dst"], value_set=ids))
    keep = stored_rows(kept)
    imports = {}
    for r in keep:
        if r["kind"] == "file":
            imports[r["path"]] = (r["language"], stored_imports(r.get("meta")))
    return keep, stored_rows(etab.filter(emask)), imports


class StoredRow(dict):
    """A record that is a row of the previous version as read (``source``: the Arrow table it was
    read into, ``row``: its index there). Most rows of a re-index are such rows (sympy, one file
    changed: 39,500 code rows, 38,500 mined notes of 78,000), and three stages skip work for them:
    ``write`` takes them from ``source`` instead of converting the records back (``table_of``), the
    warm build takes their keyword-document hashes from the previous folder, the embed plan
    recovers their text hashes from their stored vectors (``embedreuse.known_hashes``). Any change
    to one but its ``vector`` (which the embed stage sets on every node, and ``table_of`` always
    reads from the record) makes it an ordinary record: ``source`` None; a copy (``dict(row)``) is
    a plain dict. Only the record's own keys are watched: a value changed in place (``row["tags"]
    .append(t)``, a nested list or dict) goes unseen and would be written as read, so a stage that
    changes one sets the key anew (``row["tags"] = [*row["tags"], t]``); none changes one today."""

    __slots__ = ("source", "row")
    source: pa.Table | None
    row: int

    def __setitem__(self, key, value):
        if key != "vector":
            self.source = None
        dict.__setitem__(self, key, value)


def _marking(name: str):
    base = getattr(dict, name)

    def changed(self, *args, **kwargs):
        self.source = None
        return base(self, *args, **kwargs)
    changed.__name__ = name
    return changed


for _name in ("__delitem__", "__ior__", "update", "setdefault", "pop", "popitem", "clear"):
    setattr(StoredRow, _name, _marking(_name))


def stored_rows(table: pa.Table) -> list[StoredRow]:
    """``table.to_pylist()`` as ``StoredRow``s (each knowing its row), built a column at a time."""
    names = table.column_names
    out = []
    for i, values in enumerate(zip(*(c.to_pylist() for c in table.columns))):
        r = StoredRow(zip(names, values))
        r.source, r.row = table, i
        out.append(r)
    return out


def unchanged_row(r: dict) -> bool:
    """``r`` is a row of the previous version as it was read (``StoredRow``), its vector aside."""
    return type(r) is StoredRow and getattr(r, "source", None) is not None


def table_of(records: list[dict], schema: pa.Schema) -> pa.Table:
    """``S.to_table(records, schema)``, row for row, with the unchanged ``StoredRow``s taken from the
    tables they were read from (one Arrow ``take``) instead of converted again: on sympy's one-file
    re-index, 78,000 node rows. ``vector`` always comes from the records (not read back when the
    embed stage sets it again); a source that lacks a column leaves its rows to ``to_table``."""
    names = [f.name for f in schema if f.name != "vector"]
    parts: list[pa.Table] = []
    where: dict[int, int] = {}              # id(source) -> its part
    part_of = np.zeros(len(records), np.int64)
    row_of = np.zeros(len(records), np.int64)
    rest: list[int] = []
    for i, r in enumerate(records):
        src = getattr(r, "source", None) if type(r) is StoredRow else None
        k = where.get(id(src)) if src is not None else None
        if src is not None and k is None:
            k = where[id(src)] = -1
            if all(n in src.column_names for n in names):
                k = where[id(src)] = len(parts) + 1
                parts.append(src.select(names))
        if k is None or k < 0:
            rest.append(i)
        else:
            part_of[i], row_of[i] = k, cast(StoredRow, r).row
    if not parts:
        return S.to_table(records, schema)
    plain = pa.schema([schema.field(n) for n in names])
    converted = S.to_table([records[i] for i in rest], plain)
    part_of[rest], row_of[rest] = 0, np.arange(len(rest))
    parts = [converted] + [pa.Table.from_arrays([c if c.type == f.type else c.cast(f.type)
                                                 for c, f in zip(t.columns, plain)], schema=plain) for t in parts]
    offsets = np.cumsum([0] + [t.num_rows for t in parts[:-1]])
    try:
        taken = pa.concat_tables(parts).take(pa.array(offsets[part_of] + row_of)).combine_chunks()
    except pa.ArrowInvalid:      # offsets beyond 2 GiB of text in one column: converted as a whole
        return S.to_table(records, schema)
    cols = {n: taken.column(n) for n in names}
    if "vector" in schema.names:
        cols["vector"] = pa.chunked_array([pa.array([r.get("vector") for r in records], schema.field("vector").type)])
    return pa.Table.from_arrays([cols[f.name] for f in schema], schema=schema)


def stored_imports(meta: str | None) -> list:
    """A file node's raw imports as its ``meta`` keeps them, as ``ImportRef``s."""
    from pipeline.imports import ImportRef

    return [ImportRef(**{**i, "names": tuple(i.get("names") or ())})
            for i in json.loads(meta or "{}").get("imports", [])]


def init_imports(snap, skip: set[str]) -> list:
    """The raw imports of the previous version's re-exporting files not in ``skip`` (Python package
    ``__init__`` files, JS/TS files with an ``export ... from``: barrels), as ``FileImports``: what an
    overlay (which resolves only its changed files) passes to ``imports.resolve(context=)`` so a
    changed test's ``from pkg import Name`` (``import { pct } from './lib'``) still reaches the module
    the unchanged package or barrel re-exports ``Name`` from."""
    from pipeline.imports import FileImports

    tab = snap.read("nodes", columns=["path", "language", "meta"],
                    where="kind = 'file' AND (path LIKE '%/__init__.py' OR path = '__init__.py' OR "
                          "(language IN ('javascript', 'typescript', 'tsx') AND meta LIKE '%\"kind\": \"export\"%') OR "
                          "(language IN ('kotlin', 'scala') AND meta LIKE '%\"kind\": \"package\"%'))")
    return [FileImports(r["path"], r["language"], tuple(stored_imports(r.get("meta"))))
            for r in tab.to_pylist() if r["path"] not in skip]


def file_imports(snap, paths: set[str]) -> list:
    """The raw imports of the previous version's files at PATHS (those it has), as ``FileImports``,
    in one read of their rows alone: an overlay reads those of the unchanged modules its changed
    files' imports reach (``pipeline.overlay``), for what those modules import in turn, not every
    file's."""
    from pipeline.imports import FileImports

    if not paths:
        return []
    listed = ", ".join("'" + p.replace("'", "''") + "'" for p in sorted(paths))     # SQL's quoting
    tab = snap.read("nodes", columns=["path", "language", "meta"], where=f"kind = 'file' AND path IN ({listed})")
    return [FileImports(r["path"], r["language"], tuple(stored_imports(r.get("meta")))) for r in tab.to_pylist()]


# ---- 3. tree, imports, tests --------------------------------------------------------------------
def link(root: Path, repo_name: str, cfg: IndexConfig, nodes: list[dict], edges: list[dict],
         file_imports: dict, rep: RunReport, prev_snap=None, changed: Collection[str] = ()) -> list[dict]:
    """Tree nodes, import, test, call and inheritance edges (added to ``nodes``/``edges``); returns
    external imports. ``prev_snap``, ``changed`` (the paths parsed): an incremental run links the
    calls of the changed files' callers alone when no other caller's can differ
    (``pipeline.callkeep``), keeping the others' edges."""
    from pipeline.files import read_manifests
    from pipeline.callkeep import link_key, plan
    from pipeline.calls import resolve as resolve_calls
    from pipeline.gopackage import package_methods
    from pipeline.imports import FileImports, resolve
    from pipeline.testlinks import js_definitions, link_tests
    from pipeline.tree import tree_nodes

    languages = {n["path"]: n.get("language") for n in nodes if n["kind"] == "file"}
    all_paths = sorted(languages)
    tnodes, tedges = tree_nodes(repo_name, all_paths, cfg.parse, languages_by_path=languages)
    nodes.extend(tnodes)
    edges.extend(tedges)
    edges.extend(package_methods(nodes, cfg.parse.token_encoding))    # a Go type's methods in its package's other files
    fi = [FileImports(p, lang, tuple(imps)) for p, (lang, imps) in sorted(file_imports.items())]
    bindings: dict = {}
    imp_edges, externals = resolve(repo_name, fi, all_paths, read_manifests(root, all_paths), bindings=bindings)
    edges.extend(imp_edges)
    edges.extend(link_tests(repo_name, all_paths, imp_edges, js_definitions(nodes)))
    keep = plan(prev_snap, set(changed), nodes)
    edges.extend(resolve_calls(nodes, imp_edges, bindings, callers=keep.callers if keep else None,
                               kept=keep.edges if keep else ()))
    rep.link = {"key": link_key(), "calls_kept": len(keep.edges) if keep else 0,
                "callers_files": len(keep.callers) if keep else len(all_paths)}
    rep.external_imports = len(externals)
    return externals


# ---- 4. history ---------------------------------------------------------------------------------
def history(root: Path, cfg: IndexConfig, prev, prev_snap, rep: RunReport, progress: Progress,
            boundary: list[str], stop=None):
    """Commits, file changes and co-change (mined from the watermark on); returns (tables, watermark,
    the previous version's commit shas when this read them: ``symbols.stored_base`` needs them too).
    ``boundary``: ``gitio.shallow_boundary``, read once by the caller. ``stop``: a flag looked at
    while mining and between the steps (``pipeline.history.RunStopped`` once it is set)."""
    from pipeline.cochange import compute_with_stats
    from pipeline.history import PATH_FORMAT, check_stop, combine, mine, mined_as, remine_reason

    from pipeline import gitio
    from pipeline.storestate import mined_boundary

    since = prev.history_watermark if prev else None
    progress("history", 0, 1)
    if since and mined_boundary(prev) != gitio.boundary_key(boundary):
        # deepened, unshallowed or fetched shallow again: older commits may exist now, and the
        # boundary commits' changes were not recorded; the watermark alone would not read them
        rep.messages.append("the clone's shallow boundary moved since the last index: history re-mined in full")
        since = None
    settings = remine_reason(((prev.report or {}).get("history") or {}).get("mined_as"), cfg.history) if since else ""
    if since and not settings and _spelled_before(prev, prev_snap, PATH_FORMAT):
        settings = ("history re-mined in full once: a backslash in a path is spelled \\\\ now (a name "
                    "holding \\xe9 and one with the byte E9 were one file before)")
    if settings:        # the same commits read again: symbol rows (a function of the sha) are kept
        rep.messages.append(settings)
        since = None
    res = mine(root, cfg.history, since=since, boundary=boundary, stop=stop)
    if res.head is None and since:
        rep.messages.append("HEAD has no commit yet (an unborn branch, e.g. `git checkout --orphan`): this "
                            "version holds no history; it is mined in full once HEAD has commits")
    elif res.rewritten and since:
        rep.messages.append(f"history was rewritten since {since[:12]} (force push?): re-mined in full")
    known = None
    if res.incremental and prev_snap is not None and prev_snap.has("commits"):
        prev_commits = prev_snap.read("commits")
        known = prev_commits.column("sha")
        commits, changes = combine(prev_commits, prev_snap.read("file_changes"), res, stop,
                                   rejudge=None if same_rule(prev_snap, cfg) else cfg.history.bugfix_rule)
    else:
        commits, changes = res.commits, res.file_changes
    check_stop(stop, "the history mine")
    cochange, stats = compute_with_stats(changes, commits, cfg.history, head_paths=res.head_paths, resolved=True,
                                         stop=stop)
    rep.history = {**res.summary(), **{f"cochange_{k}": v for k, v in stats.items()}, "bugfix_rule": cfg.history.bugfix_rule,
                   "commits_total": commits.num_rows, "cochange_pairs": cochange.num_rows,
                   "mined_as": mined_as(cfg.history), "path_format": PATH_FORMAT,
                   **({"remined_for_settings": True} if settings else {})}
    if res.shallow:
        rep.messages.append("repository is a shallow clone: history mined from what exists")
    progress("history", 1, 1)
    tables: dict[str, Any] = {"commits": commits, "file_changes": changes, "cochange": cochange}
    # the watermark is what these tables hold: none for an unborn HEAD (its tables are empty; the
    # previous tip kept as the watermark left a store with 1 commit of flask's 5,452 for good: a probe)
    return tables, res.head, known


def _spelled_before(prev, prev_snap, path_format: int) -> bool:
    """The stored rows hold a backslash, spelled otherwise by their ``history.PATH_FORMAT`` (else alike)."""
    if ((prev.report or {}).get("history") or {}).get("path_format") == path_format \
            or prev_snap is None or not prev_snap.has("file_changes"):
        return False
    t = prev_snap.read("file_changes", columns=["path", "old_path"])
    return any(pc.any(pc.match_substring(t.column(c), "\\")).as_py() for c in ("path", "old_path"))


def cochange_edges(tables: dict, nodes: list[dict]) -> list[dict]:
    """Co-change edges between file nodes, the pairs' paths read as the nodes name them."""
    from pipeline.cochange import cochange_edges as edges_of
    from pipeline.files import named_as_files

    if tables.get("cochange") is None:
        return []
    return edges_of(named_as_files(tables["cochange"], ("a", "b")), {n["path"]: n["id"] for n in nodes if n["kind"] == "file"})


# ---- 5. notes -----------------------------------------------------------------------------------
def latest_published(store: Store) -> Manifest | None:
    """The published manifest as written, even from an older schema (for carrying notes over a
    schema change, which ``Store.manifest`` refuses to read); None when there is none."""
    path = store.root / "manifest.json"
    try:
        return Manifest.from_json(path.read_text())
    except (OSError, ValueError, TypeError):
        return None


def previous_notes(store: Store, prev_snap, rep: RunReport, vectors: bool = True) -> list[dict]:
    """The note nodes of the previous version: the incremental base, else (``--full``, a model or
    schema change) the latest published version's, read as far as it is readable (``vectors``:
    with their vectors, see ``node_columns``), as ``StoredRow``s (an older schema's: plain records)."""
    where = _in_list("kind", S.NOTE_KINDS)
    m = prev_snap.manifest if prev_snap is not None else latest_published(store)
    if m is None or "nodes" not in m.datasets:
        return []
    unreadable = (StoreError, ValueError, OSError, RuntimeError, pa.ArrowException)
    try:
        snap = prev_snap or Snapshot(store, m)   # a damaged version raises here (StoreDamaged)
        return cast(list[dict], stored_rows(snap.read("nodes", columns=node_columns(vectors), where=where)))
    except unreadable as e:   # e.g. an older schema: read the columns a note needs
        cols = ["id", "kind", "doc", "meta", "author", "session", "tags", "created_at", "repo", "path"]
        try:
            snap = prev_snap or Snapshot(store, m, verify=False)
            return snap.lance_table("nodes").to_table(columns=cols, filter=where).to_pylist()
        except unreadable:   # reported; the notes come from the delta log (live + retired segments)
            rep.messages.append(f"previous version's notes unreadable ({type(e).__name__}: {str(e)[:120]}); "
                                "carried from the delta log (live and retired segments)")
            return []


def carry_notes(store: Store, prev_snap, nodes: list[dict], edges: list[dict], rep: RunReport,
                hist_tables: dict | None = None, cfg: IndexConfig | None = None) -> list[str]:
    """Every note forward: the previous version's note nodes merged with every delta-log record,
    live and retired (idempotent by record id); then, with ``IndexConfig.mine_fixes`` /
    ``mine_changes``, the mined ``fix`` and ``change`` nodes of the history (``pipeline.fixes``,
    day-one experience). Adds note nodes and
    about edges; returns the record ids now merged (their live segments are retired after the
    publish)."""
    from pipeline.files import named_as_files
    from pipeline.branchheld import BranchHeld
    from pipeline.branchlanding import BranchLanding
    from pipeline.defaultcode import DefaultHashes
    from pipeline.merge import merge, renames_of
    from pipeline.notetargets import Renames
    from stratum.deltalog import DeltaLog

    log_dir = store.root / "deltalog"
    live = DeltaLog(log_dir).scan()
    retired = DeltaLog(log_dir / "retired").scan() if (log_dir / "retired").is_dir() else None
    records = live.records + (retired.records if retired else [])
    prev_nodes = previous_notes(store, prev_snap, rep, vectors=cfg is None or not cfg.embed.enabled)
    code = [n for n in nodes if n["kind"] not in S.NOTE_KINDS]
    if cfg is not None and (cfg.mine_fixes or cfg.mine_changes) and hist_tables \
            and hist_tables.get("commits") is not None:
        _mined_fixes(hist_tables, code, prev_nodes, nodes, edges, rep, cfg, same_rule(prev_snap, cfg))
    renames = renames_of(named_as_files(hist_tables.get("file_changes"), ("path", "old_path")),
                         hist_tables.get("commits")) if hist_tables else {}
    # the mined history says which commits HEAD has, when it holds them all
    history = renames if isinstance(renames, Renames) else None
    held = BranchHeld(rep.repo, rep.branch, default_branch=rep.default_branch, history=history) if rep.repo else None
    try:
        result = merge(prev_nodes, records, code, repo=code[0]["repo"] if code else None, renames=renames,
                       same_repository=cfg is None or not cfg.replace, branch_holds=held,
                       home=held.default_at if held is not None else None,
                       indexed_branch=rep.branch if rep.branch and rep.branch != rep.default_branch else "",
                       default_hashes=DefaultHashes(rep.repo, code[0]["repo"], rep.default_branch, cfg)
                       if rep.repo and rep.default_branch and code else None,
                       landing=BranchLanding(rep.repo, code, held.tip) if held is not None else None)
    finally:
        if held is not None:
            rep.branch_tips = held.asked()
            held.close()
    nodes.extend(result.nodes)
    edges.extend(result.edges)
    damage = live.damage + (retired.damage if retired else [])
    prev_ids = {n["id"] for n in prev_nodes if n.get("kind") in S.AGENT_NOTE_KINDS}
    rep.notes = {**result.summary(), "carried": len(result.nodes), "from_previous_version": len(prev_ids),
                 "live_records": len(live.records), "retired_records": len(retired.records) if retired else 0,
                 "log_damage": len(damage)}
    if cfg is not None and cfg.embed.enabled:       # remember embedded them: the embed stage reuses those
        rep.notes["vectors_from_log"] = log_vectors(records, result.nodes, result.new_ids, cfg.embed)
    lost = prev_ids - {n["id"] for n in result.nodes}
    if lost:   # never expected: merge keeps every base note; say so loudly if it ever happens
        rep.messages.append(f"{len(lost)} notes of the previous version were not carried: {sorted(lost)[:5]}")
    for d in damage:
        rep.messages.append(f"delta log damage skipped: {d}")
    return result.merged_record_ids


def same_rule(prev_snap, cfg: IndexConfig) -> bool:
    """Whether the previous version judged bug fixes by this run's rule (its report records it; an
    older report does not: judged again once). The whole settings key moved with any parse or embed
    setting, and each such change re-judged every stored commit."""
    prev = ((prev_snap.manifest.report or {}).get("history") or {}) if prev_snap is not None else {}
    return prev.get("bugfix_rule") == cfg.history.bugfix_rule


def _mined_fixes(hist_tables: dict, code: list[dict], prev_nodes: list[dict], nodes: list[dict], edges: list[dict],
                 rep: RunReport, cfg: IndexConfig, same: bool = False) -> None:
    """``same``: the previous version's mined nodes keep their kinds (``same_rule``; ``fixes.mine_fixes``)."""
    from pipeline.files import named_as_files
    from pipeline.fixes import mine_fixes

    file_ids = {n["path"]: n["id"] for n in code if n["kind"] == "file"}
    repo = code[0]["repo"] if code else ""
    prev = {n["id"]: n for n in prev_nodes if n.get("kind") in S.MINED_NOTE_KINDS}
    fx = mine_fixes(hist_tables["commits"], named_as_files(hist_tables["file_changes"], ("current_path",)), file_ids, repo,
                    rule=cfg.history.bugfix_rule, prev=prev.values(),
                    fixes=cfg.mine_fixes, changes=cfg.mine_changes, same_rule=same)
    # a node equal to the previous version's row is that row (a StoredRow): written, embedded and
    # indexed as kept (most of sympy's 38,000 after a one-file commit); the comparison is one dict ==
    nodes.extend(p if unchanged_row(p := prev.get(n["id"], n)) and p == n else n for n in fx.nodes)
    edges.extend(fx.edges)
    rep.history["mined_fixes"] = fx.counts["fixes"]
    rep.history["mined_changes"] = fx.counts["changes"]
    rep.history["mined_contentless"] = fx.counts["contentless"]     # skipped: nothing a query can match
    rep.history["mined_judged"] = fx.counts.get("judged", 0)       # commits judged this run (all, or the new ones)
    rep.history["mined_incremental"] = bool(fx.counts.get("incremental"))


def retire_log(store: Store, merged_ids: list[str]) -> None:
    from stratum.deltalog import DeltaLog

    if merged_ids:
        DeltaLog(store.root / "deltalog").retire(merged_ids)


# ---- 7. write -----------------------------------------------------------------------------------
def dedupe_edges(edges: list[dict]) -> list[dict]:
    seen, out = set(), []
    for e in edges:
        k = (e["src"], e["dst"], e["kind"])
        if k not in seen:
            seen.add(k)
            out.append(e)
    return out


class Writer:
    """Lance writes one after another on a helper thread, each dataset version's block checksums
    (``Store.dataset_integrity``) right after its write, while the main thread goes on: Lance
    encodes and writes in Rust without the GIL, the stages around it are mostly Python, so on two
    cores they overlap. A write imports nothing, so this thread never compiles a module beside the
    main thread's (``stratum.npyio``). Leaving the ``with`` block waits for every write."""

    def __init__(self, store: Store):
        from concurrent.futures import ThreadPoolExecutor

        self.store = store
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="stratum-write")
        self.pending: dict[str, Any] = {}

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc) -> None:
        self.pool.shutdown(wait=True)

    def submit(self, name: str, table: pa.Table) -> None:
        """Write ``table`` as the new version of dataset ``name`` (once per run)."""
        if name not in self.pending:
            self.pending[name] = self.pool.submit(self._one, name, table)

    def history(self, hist_tables: dict, externals: list[dict]) -> None:
        """The datasets final once history is in: commits, file changes, co-change, external imports."""
        for name, tab in hist_tables.items():
            if tab is not None:
                self.submit(name, tab)
        self.submit("external_imports", S.to_table(externals, S.EXTERNAL_IMPORTS))

    def _one(self, name: str, table: pa.Table) -> dict:
        return self.store.dataset_integrity(name, self.store.write_dataset(name, table))

    def results(self) -> dict:
        """dataset -> its integrity entry (``version``, ``files``, ``seal``); re-raises a write's error."""
        return {name: f.result() for name, f in self.pending.items()}


def write(store: Store, version: int, nodes: list[dict], edges: list[dict], externals: list[dict],
          hist_tables: dict, cache_tab: pa.Table | None, rep: RunReport,
          prev: Manifest | None = None, writer: Writer | None = None) -> tuple[dict, dict, dict]:
    """Lance datasets and the warm-tier files of the new version (not yet published). With the
    previous manifest (an incremental run) the warm indexes are updated from its folder instead of
    rebuilt (``stratum.warm.build_warm(previous=)``: equal answers to a full build).

    Returns (dataset versions, warm index info, the versions' integrity entries for
    ``Manifest.integrity``). The Lance writes go to ``writer`` (a ``Writer`` of this run, which may
    hold some already; else one of its own) while this thread builds the next table and then the
    warm indexes. The rows still as read (``unchanged_row``: those ``reuse`` read back, the mined
    notes kept as they were) are written from their tables, and ``build_warm`` takes their document
    hashes from the previous folder; one a stage changed since (``gopackage`` rewrites a Go type's
    api) is written and hashed anew."""
    from stratum.warm import build_warm     # (it imports its indexes' modules before its vector thread starts)

    nodes.sort(key=lambda n: (n["path"], n.get("start_line") or 0, n["kind"], n["qualname"]))
    edges = dedupe_edges(edges)
    rep.nodes = dict(Counter(n["kind"] for n in nodes))
    rep.edges = dict(Counter(e["kind"] for e in edges))
    unchanged = {n["id"] for n in nodes if unchanged_row(n)}
    with contextlib.nullcontext(writer) if writer is not None else Writer(store) as w:
        w.submit("nodes", table_of(nodes, S.NODES))
        w.submit("edges", table_of(edges, S.EDGES))
        if writer is None:                  # a run's own writer has them since history came in
            w.history(hist_tables, externals)
        if cache_tab is not None:
            w.submit("embeddings", cache_tab)
        previous = store.index_dir(prev.version) if prev is not None else None
        index_files = build_warm(store.index_dir(version), nodes, edges, root=store.root,
                                 previous=previous if previous is not None and previous.is_dir() else None,
                                 unchanged=unchanged)
        checks = w.results()
    return {name: c["version"] for name, c in checks.items()}, index_files, checks


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


__all__ = ["Sources", "read_sources", "previous_files", "collect", "node_columns", "reuse", "StoredRow", "stored_rows",
           "unchanged_row", "table_of", "link", "history",
           "cochange_edges", "latest_published", "previous_notes", "carry_notes", "retire_log", "EmbedWork",
           "embed_plan", "full_cache", "text_rules", "known_hashes", "log_vectors", "embed_attach", "dedupe_edges",
           "Writer", "write", "cpu_count", "Progress"]
