"""The index job: the one module that imports Ray; it strings the stage calls together.

    read (confined) -> parse [engine] -> collect + reuse -> link (tree, imports, tests)
        -> history, co-change [symbols on the engine] -> carry notes, mined fixes -> embed [engine]
        -> write Lance + warm indexes -> publish manifest (one atomic switch) -> retire merged log

An engine runs the three stages that can use many CPUs (parse, embed, symbols): ``InProcess`` (plain
calls in this process) or ``OnRay``. Without a named cluster (``--ray-address``/``RAY_ADDRESS``) the
job stays in-process unless the parse work is large (``IndexConfig.ray_min_parse_bytes``): starting
a local Ray costs ~5 s here, and on one machine it only adds parallel parsing (onnxruntime already
embeds on every core in-process); docs/operations.md has the measurement. ``--ray``/``--no-ray``
override. A local Ray this module starts is reaped by a watchdog process (``pipeline.reaper``) if the
driver is killed, or its start is cut short.

Stopping: a signal's exception (the CLI's handlers) or the caller's ``stop`` flag (``watch``) ends
the run before its publish, within about a second in any stage, the history mine included (it
runs on a thread of its own, told through a flag: ``stagelines.MineWatch``); the store stays as it was.
What a run says as it goes (each stage's start and end, the background mine): ``pipeline.stagelines``.

``index_many`` indexes several repositories (one store each): one Ray task per repository on a
cluster, or one after another in-process; one failing repository never stops the others.
"""

from __future__ import annotations

import contextlib
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np

from pipeline import gitio, publish, storestate
from pipeline import stages as st
from pipeline import storeguard as guard
from pipeline.report import RunReport
from pipeline.runheap import young_only
from pipeline.stagelines import MineWatch, Stage, heeding, mine_ends_with_run, timed
from pipeline.stagelines import noop as _noop
from stratum.config import (EmbedConfig, IndexConfig, changed_settings, default_store_path, settings_of, settings_text,
                            with_kept)
from stratum.errors import InvalidArgument, StoreError, Unavailable
from stratum.store import Manifest, Store

if TYPE_CHECKING:          # pipeline.history is imported once there is work (an up-to-date run skips it)
    from pipeline.history import StopFlag

Progress = st.Progress

PARSE_BATCH_FILES = 48
PARSE_BATCH_BYTES = 2 << 20
EMBED_CHUNK = 512            # texts per progress step in-process
SYMBOL_BATCH = 500           # commits per symbols batch at most: a progress step (~10 s each on sympy)


# ---- parse isolation (both engines) -------------------------------------------------------------
def _parse_batch(repo: str, items: list[tuple[str, bytes]], parse_cfg) -> list:
    """Parse a batch. One file that breaks the parser is counted (reason parse_error, with the
    error) and never fails the run: this is the run's isolation boundary per file."""
    from pipeline.parse import ParsedFile, parse_file

    out = []
    for path, data in items:
        try:
            out.append(parse_file(repo, path, data, parse_cfg))
        except Exception as e:  # noqa: BLE001 - recorded in the run report, not swallowed
            out.append(ParsedFile(path=path, language=None, skip_reason="parse_error",
                                  warnings=[f"parse_error: {path}: {type(e).__name__}: {e}"]))
    return out


def _batches(items: list[tuple[str, bytes]]) -> list[list[tuple[str, bytes]]]:
    batches: list[list[tuple[str, bytes]]] = []
    cur: list[tuple[str, bytes]] = []
    size = 0
    for it in items:
        cur.append(it)
        size += len(it[1])
        if len(cur) >= PARSE_BATCH_FILES or size >= PARSE_BATCH_BYTES:
            batches.append(cur)
            cur, size = [], 0
    if cur:
        batches.append(cur)
    return batches


# ---- engines ------------------------------------------------------------------------------------
_EMBEDDERS: dict[EmbedConfig, object] = {}   # in-process: one model load per process and config


class InProcess:
    """The stages as plain calls in this process (no cluster start)."""

    name = "in-process"

    def parse(self, repo: str, items: list[tuple[str, bytes]], parse_cfg, progress: Progress) -> list:
        out: list = []
        progress("parse", 0, len(items))
        for b in _batches(items):
            out.extend(_parse_batch(repo, b, parse_cfg))
            progress("parse", len(out), len(items))
        return out

    def embed(self, texts: list[str], embed_cfg: EmbedConfig, progress: Progress) -> np.ndarray:
        from pipeline.embed import EmbedBatch

        fn = _EMBEDDERS.get(embed_cfg)
        if fn is None:
            fn = _EMBEDDERS[embed_cfg] = EmbedBatch(embed_cfg)
        parts = []
        progress("embed", 0, len(texts))
        for k in range(0, len(texts), EMBED_CHUNK):
            parts.append(np.asarray(fn({"text": texts[k:k + EMBED_CHUNK]})["vector"], np.float32))
            progress("embed", min(k + EMBED_CHUNK, len(texts)), len(texts))
        return np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)

    def symbols(self, root: Path, batches: list, progress: Progress) -> list:
        """Steps: commits read (of all the batches')."""
        from pipeline.symbols import changed_symbols

        parts, done, total = [], 0, sum(len(b) for b in batches)
        progress("symbols", 0, total)
        for b in batches:
            parts.append(changed_symbols(str(root), b))
            done += len(b)
            progress("symbols", done, total)
        return parts


class _Embedder:
    """Ray actor: one model load per actor, thread count set per actor."""

    def __init__(self, embed_cfg):
        from pipeline.embed import EmbedBatch

        self.fn = EmbedBatch(embed_cfg)

    def embed(self, texts: list[str]):
        return np.asarray(self.fn({"text": texts})["vector"], np.float32)


class OnRay:
    """The stages as Ray tasks (parse, symbols) and an actor pool (embed)."""

    name = "ray"

    def __init__(self, cfg: IndexConfig, say: Callable[[str], None] | None = None):
        self.cfg = cfg
        self.ray = ensure_ray(cfg, say)

    def parse(self, repo: str, items: list[tuple[str, bytes]], parse_cfg, progress: Progress) -> list:
        if not items:
            return []
        ray = self.ray
        remote = ray.remote(_parse_batch)
        cfg_ref = ray.put(parse_cfg)
        pending = {remote.remote(repo, b, cfg_ref): len(b) for b in _batches(items)}
        done_files, out = 0, []
        progress("parse", 0, len(items))
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for r in ready:
                out.extend(ray.get(r))
                done_files += pending.pop(r)
            progress("parse", done_files, len(items))
        return out

    def embed(self, texts: list[str], embed_cfg: EmbedConfig, progress: Progress) -> np.ndarray:
        from ray.util import ActorPool

        cfg = self.cfg
        n_actors = max(1, embed_cfg.actors)
        cpus = max(1, local_cpus(cfg) // n_actors) if not cluster_address(cfg) else 1
        actor = self.ray.remote(num_cpus=cpus)(_Embedder)
        pool = ActorPool([actor.remote(embed_cfg) for _ in range(n_actors)])
        bs = embed_cfg.batch_size
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))   # similar lengths: less padding
        batches = [[texts[i] for i in order[k:k + bs]] for k in range(0, len(order), bs)]
        out: list = [None] * len(texts)
        done = 0
        progress("embed", 0, len(texts))
        for vecs in pool.map(lambda a, b: a.embed.remote(b), batches):   # results come back in order
            for v in vecs:
                out[order[done]] = v
                done += 1
            progress("embed", done, len(texts))
        return np.stack(out) if out else np.zeros((0, 0), np.float32)

    def symbols(self, root: Path, batches: list, progress: Progress) -> list:
        from pipeline.symbols import changed_symbols

        remote = self.ray.remote(changed_symbols)
        sizes = {remote.remote(str(root), b): len(b) for b in batches}
        pending, parts, done, total = list(sizes), [], 0, sum(sizes.values())
        progress("symbols", 0, total)          # steps: commits read
        while pending:
            ready, pending = self.ray.wait(pending, num_returns=1)
            parts.extend(self.ray.get(ready))
            done += sum(sizes[r] for r in ready)
            progress("symbols", done, total)
        return parts


def cluster_address(cfg: IndexConfig) -> str | None:
    return cfg.ray_address or os.environ.get("RAY_ADDRESS") or None


def local_cpus(cfg: IndexConfig) -> int:
    return cfg.num_cpus or st.cpu_count()


def cpus_text(n: int) -> str:
    return f"{n} CPU" + ("s" if n != 1 else "")


def choose_engine(cfg: IndexConfig, parse_bytes: int) -> tuple[str, str]:
    """("ray" | "in-process", why): Ray for a named cluster, ``--ray``, or large work with more than
    one CPU for a local Ray: with one (``--num-cpus 1``, a 1-CPU machine) there is no parallel parse,
    so the ~5 s start would buy nothing (onnxruntime embeds on every core in-process anyway)."""
    mb, lim = parse_bytes / 2**20, cfg.ray_min_parse_bytes / 2**20
    if cfg.ray is False:
        return "in-process", "--no-ray"
    if cluster_address(cfg):           # the setting that names the cluster, --ray or not
        return "ray", f"--ray-address {cfg.ray_address}" if cfg.ray_address else f"RAY_ADDRESS={cluster_address(cfg)}"
    if cfg.ray is True:
        return "ray", "--ray"
    if parse_bytes >= cfg.ray_min_parse_bytes:
        if local_cpus(cfg) < 2:
            return "in-process", (f"{mb:.1f} MiB to parse, but a local Ray would have 1 CPU "
                                  "(--num-cpus or the machine): no parallel parse to pay for its start")
        return "ray", f"{mb:.1f} MiB to parse (>= {lim:.0f} MiB: a local Ray pays off)"
    return "in-process", (f"{mb:.1f} MiB to parse (< {lim:.0f} MiB: a local Ray "
                          "start would cost more than it saves)")


def engine_for(cfg: IndexConfig, parse_bytes: int, rep: RunReport | None = None,
               say: Callable[[str], None] | None = None):
    """The engine and its report text; a Ray start is said (``say``) and timed (``ray_start``)."""
    kind, why = choose_engine(cfg, parse_bytes)
    if kind != "ray":
        return InProcess(), f"{kind} ({why})"
    t = time.perf_counter()
    eng = OnRay(cfg, say)
    if rep is not None:
        rep.timed("ray_start", time.perf_counter() - t)
    return eng, f"{kind} ({why})"


# ---- Ray ----------------------------------------------------------------------------------------
OBJECT_STORE_MIN = 75 << 20     # Ray's own minimum (ray_constants.OBJECT_STORE_MINIMUM_MEMORY_BYTES)


def object_store_bytes() -> int:
    """STRATUM_RAY_OBJECT_STORE (bytes; default 256 MiB) for a local Ray, refused clearly when it is
    no number or below Ray's minimum (Ray's own ValueError was a traceback)."""
    raw = os.environ.get("STRATUM_RAY_OBJECT_STORE", "").strip()
    if not raw:
        return 256 << 20
    if not raw.isdigit() or int(raw) < OBJECT_STORE_MIN:
        raise InvalidArgument(f"STRATUM_RAY_OBJECT_STORE={raw!r}: give the local Ray's object store size in "
                              f"bytes, at least {OBJECT_STORE_MIN} (75 MiB, Ray's minimum); unset: 256 MiB")
    return int(raw)


def _reachable(address: str, timeout: float = 5.0) -> None:
    """A ``host:port`` cluster address that nothing listens on, said at once: Ray's own join
    retried for ~14 minutes and then said only "ConnectionError"."""
    import socket

    host, sep, port = address.rpartition(":")
    if not sep or "://" in address or not port.isdigit():
        return                                      # "auto", "ray://...": Ray resolves those itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as err:
        raise Unavailable(f"no Ray cluster answers at {address} ({err.strerror or err}): start one "
                          f"(`ray start --head`), fix --ray-address / RAY_ADDRESS, or leave both unset to "
                          f"index in this process") from None


_RAY_FAILED = (ConnectionError, ValueError, RuntimeError, OSError, TimeoutError)


@contextlib.contextmanager
def _ray_started_from_here():
    """Start Ray from Stratum's own folder: ``ray.init`` puts the working directory first on every
    worker's sys.path, and run from a repository's top folder (`stratum index` there, or a git hook)
    the repository's own top-level ``pipeline/`` ran in the workers (a probe)."""
    try:
        was: str | None = os.getcwd()
    except OSError:                 # the working directory was removed: nothing to go back to
        was = None
    os.chdir(Path(__file__).resolve().parents[1])
    try:
        yield
    finally:
        if was is not None:
            os.chdir(was)


def ensure_ray(cfg: IndexConfig, say: Callable[[str], None] | None = None):
    """Join the cluster at cfg.ray_address / RAY_ADDRESS, or start a small local Ray of our own
    (``address="local"``: a `ray start --head` cluster on this machine, or its leftover
    ``ray_current_cluster`` file, had made ``ray.init`` try to join it and refuse ``num_cpus``),
    watched by ``pipeline.reaper`` from before the start. ``say``: one line before and after the
    start (it takes seconds, and the progress was silent). A start that fails is ``Unavailable``."""
    import ray

    if ray.is_initialized():
        return ray
    address = cluster_address(cfg)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    kw = dict(include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
              runtime_env={"env_vars": {"RAY_USAGE_STATS_ENABLED": "0"}})
    say = say or (lambda text: None)
    t = time.perf_counter()
    from pipeline.reaper import callers_sigterm

    with callers_sigterm(), _ray_started_from_here():
        if address:
            _reachable(address)
            say(f"ray: joining the cluster at {address}")
            try:
                ray.init(address=address, **kw)
            except _RAY_FAILED as err:     # Ray's own: a bare ConnectionError
                raise Unavailable(f"cannot join the Ray cluster at {address!r}: {err}") from None
        else:
            from pipeline.reaper import start_reaper

            store_bytes = object_store_bytes()
            n = local_cpus(cfg)
            say(f"ray: starting a local Ray ({cpus_text(n)})")
            ready = start_reaper(ray.shutdown)
            try:
                ray.init(address="local", num_cpus=n, object_store_memory=store_bytes, **kw)
            except _RAY_FAILED as err:
                raise Unavailable(f"cannot start a local Ray: {type(err).__name__}: {err} (RAY_TMPDIR="
                                  f"{os.environ.get('RAY_TMPDIR', '/tmp')}; --no-ray indexes in this process)") from None
            ready()
    say(f"ray: {'joined' if address else 'started'} in {time.perf_counter() - t:.1f}s")
    return ray


# ---- one repository -----------------------------------------------------------------------------
def index_repository(repo_path: str | os.PathLike, store_path: str | os.PathLike | None = None,
                     config: IndexConfig | None = None, progress: Progress | None = None,
                     before_work: Callable[[], None] | None = None, stop: StopFlag | None = None,
                     engine: str = "") -> RunReport:
    """Index (or re-index) one repository into a store and publish a new version; when nothing
    changed (``storestate.up_to_date``) the report says so and no version is published. ``before_work``:
    called once there is work, before Lance is imported (a process of its own prepares its
    imports there, ``stratum.cli.index.arrow_without_pandas``; an up-to-date run skips them).
    ``stop``: once set (a signal handler may set it), the run raises ``history.RunStopped`` at its next
    step, before its publish: the store stays as it was (see the module docstring). ``engine``: the
    report's engine when the caller chose it (``index_many``'s Ray task, whose stages run in-process).
    The run makes no full cyclic collection (``pipeline.runheap``: each walked every record of the
    repository, ~8% of a large re-index's CPU)."""
    with young_only():
        return _index_repository(repo_path, store_path, config, progress, before_work, stop, engine)


def _index_repository(repo_path, store_path, config, progress, before_work, stop, engine) -> RunReport:
    cfg = config or IndexConfig()
    say = getattr(progress, "line", None)       # the CLI's progress prints lines of its own (the Ray start)
    progress = heeding(progress or _noop, stop)
    root = gitio.repo_root(repo_path)
    store = Store(store_path or default_store_path(root))
    rep = RunReport(repo=str(root), store=str(store.root))
    t0 = time.perf_counter()
    if os.path.realpath(repo_path) != os.path.realpath(root):    # a folder the repository holds was named
        rep.messages.append(f"{os.fspath(repo_path)} is inside {root}: indexing {root}")

    guard.refuse_linked(root, store.root)           # before anything is written there
    guard.refuse_tracked(root, store)
    inside = guard.store_inside(root, store)
    with publish.one_run(store) as written:         # a run that fails or is stopped leaves nothing it did not publish
        if inside:
            guard.ignore_store(store)
        held = storestate.held(store, cfg)
        boundary = gitio.shallow_boundary(root)     # read once: identity, up_to_date and history use it
        repo_name, roots = storestate.identity(root, store, held, cfg, shallow=bool(boundary))
        if held is not None and held.settings:
            cfg, taken = with_kept(cfg, held.settings)
            if taken:
                rep.messages.append("kept the store's settings: " + settings_text(taken)
                                    + " (give the flag to change one)")
            changed = changed_settings(cfg, held.settings)
            if changed:         # kept by later plain runs too: said, as a kept one is
                rep.messages.append("settings changed from the store's: " + settings_text(changed, changed=True)
                                    + " (what depends on them is recomputed; later plain runs keep them)")
        prev = held if not cfg.full else None
        rep.config_key = storestate.config_key(cfg)
        # HEAD read once, before the files: the version records the commit its files were read at
        # (a commit landing mid-run is then seen as new by the next run, never as indexed)
        head = gitio.head_commit(root)
        # whose work tree this run reads: a note hashed against another worktree's is not judged by it
        # (branchnotes.IndexedHistory.unindexed)
        rep.branch = gitio.checkout_branch(root) if head else ""
        # and the default one: a note written at a version of another records it (branchnotes.served_branch)
        rep.default_branch = gitio.default_branch(root) if rep.branch else ""
        rep.worktree = "clean" if gitio.worktree_clean(root, inside) else "dirty"
        if rep.worktree == "dirty":     # the files are read from disk: say what the version holds
            # which, so an answer can say so once the work tree lost them (stashed, reverted); each
            # state is narrowed to the bytes parsed after the parse (storestate.as_parsed)
            from pipeline.files import inside as within

            dirty = [p for p in gitio.dirty_paths(root) if not any(within(p, i) for i in inside)]   # sorted there
            rep.worktree_key = storestate.worktree_key(root, dirty)
            under = f"under HEAD {head[:12]}" if head else "on a branch with no commit yet"
            rep.messages.append(f"the work tree has uncommitted changes: they are indexed, {under} "
                                "(a session with --worktree sees edits without indexing them)")
        why = storestate.up_to_date(head, store, prev, rep, gitio.boundary_key(boundary))
        if why:
            rep.up_to_date, rep.version, rep.incremental = True, prev.version, True
            rep.nodes = dict((prev.report or {}).get("nodes") or {})     # what the version it stays at holds
            rep.messages.append(why)
            rep.seconds["total"] = time.perf_counter() - t0
            return rep
        if rep.worktree == "dirty":     # read only by a run that parses: an up-to-date one reads no file
            rep.dirty_paths = storestate.dirty_states(root, dirty[:DIRTY_PATHS_KEPT])
        if before_work is not None:
            before_work()
        prev_snap = store.snapshot(prev) if prev else None
        latest = st.latest_published(store)
        rep.incremental = prev is not None
        rep.version = version = (latest.version if latest else 0) + 1
        written.writing(version)

        # history needs no file or parsed node: it is mined (mostly inside `git log`) while the files
        # are read and parsed. What it imports is imported here first (its modules, and Lance by
        # opening the previous nodes): a module's first import runs its code, which may parse
        # literals (numpy headers, torch/pandas through lance), and CPython 3.11.7's AST object
        # conversion is not safe in two threads at once (stratum.npyio; fixed in 3.11.8).
        import pipeline.cochange  # noqa: F401
        import pipeline.files  # noqa: F401 - and what the main thread imports meanwhile
        import pipeline.history  # noqa: F401
        import stratum.ids  # noqa: F401

        import lance  # noqa: F401 - a first index has no previous version to open: the writer thread would import it
        import pyarrow.acero  # noqa: F401 - history's first table join

        if prev_snap is not None:
            prev_snap.lance_table("nodes")
        pool = ThreadPoolExecutor(1, thread_name_prefix="stratum-history")
        mine_stop = MineWatch(stop, say)

        def mine():         # on the history thread: says when it starts, how far it is, when it ends
            out, took = timed(lambda: st.history(root, cfg, prev, prev_snap, rep, _noop, boundary, mine_stop))
            mine_stop.mined(rep.history.get("commits"), took)
            return out, took

        with mine_ends_with_run(pool, mine_stop):
            mining = pool.submit(mine)
            pool.shutdown(wait=False)       # the thread ends with its one call; result() waits for it
            with Stage(rep, "discover", progress):      # each stage says when it starts and ends (a long
                src = st.read_sources(root, cfg, prev_snap, rep, inside)   # history's were silent: a probe)
            if stop is not None:            # a stop set during discover: no engine (a Ray start) begun for it
                from pipeline.history import check_stop
                check_stop(stop, "discover")
            eng, said = engine_for(cfg, src.parse_bytes, rep, say)
            rep.engine = engine or said
            with Stage(rep, "parse", progress, len(src.to_parse)) as steps:   # ends with the reuse
                parsed = eng.parse(repo_name, src.to_parse, cfg.parse, steps)
                rep.files_parsed, rep.files_reused = len(parsed), len(src.reused)
                nodes, edges, file_imports = st.collect(parsed, rep)
                if src.reused:
                    old_nodes, old_edges, old_imports = st.reuse(prev_snap, src.reused, vectors=not cfg.embed.enabled)
                    rep.absorb_reused(old_nodes)
                    nodes.extend(old_nodes)
                    edges.extend(old_edges)
                    file_imports.update(old_imports)
            # the uncommitted files' states, as of the bytes parsed (a save between the look and the
            # read made answers serve it as fresh: storestate.as_parsed)
            rep.dirty_paths = storestate.as_parsed(root, rep.dirty_paths, nodes)
            with Stage(rep, "link", progress):
                externals = st.link(root, repo_name, cfg, nodes, edges, file_imports, rep, prev_snap,
                                    {p for p, _ in src.to_parse})
        with st.Writer(store) as writer:       # Lance writes on a helper thread from here on
            with Stage(rep, "history", progress):     # the wait for the mine (history_mined: its own time)
                with mine_ends_with_run(pool, mine_stop):       # a signal lands in this wait, mostly
                    (hist_tables, watermark, known), mined_s = mining.result()   # re-raises its error here
                rep.timed("history_mined", mined_s)
                edges.extend(st.cochange_edges(hist_tables, nodes))
            if cfg.history.symbols:
                with Stage(rep, "symbols", progress) as steps:      # steps: commits read
                    _symbols(eng, root, cfg, hist_tables, prev_snap, rep, steps, known)
            writer.history(hist_tables, externals)   # final now: written while notes and embed run
            with Stage(rep, "notes", progress):
                merged_ids = st.carry_notes(store, prev_snap, nodes, edges, rep, hist_tables, cfg)
            with Stage(rep, "embed", progress, quiet=not cfg.embed.enabled) as steps:   # a plan, then the texts
                # --full rebuilds what the source derives, not the content-addressed embedding cache
                cache_from = st.full_cache(store, held, rep) if prev is None and cfg.embed.enabled else None
                work = st.embed_plan(cfg, prev, prev_snap, nodes, rep, reused=src.reused, cache_from=cache_from)
                del cache_from      # its hold on the previous version ends here, not after the publish
                cache_tab = None
                if work is not None:
                    vectors = eng.embed(work.plan.texts, cfg.embed, steps) if work.plan.texts else []
                    cache_tab = st.embed_attach(work, nodes, vectors)
            with Stage(rep, "write", progress):
                datasets, index_files, checks = st.write(store, version, nodes, edges, externals, hist_tables,
                                                         cache_tab, rep, prev, writer=writer)
        rep.seconds["total"] = time.perf_counter() - t0
        # the run's own hold on the previous version ends before the prune, which keeps what readers
        # hold: it counted as one (`--keep 1` beside a server kept three versions, not two)
        del prev_snap
        publish.go_live(store, Manifest(
            version=version, published_at=time.time(), repo_name=repo_name, repo_path=str(root), root_commits=roots,
            settings=settings_of(cfg), indexed_commit=head, history_watermark=watermark, datasets=datasets,
            token_encoding=cfg.parse.token_encoding, embedding=work.info if work else None, indexes=index_files,
            deltalog_merged=merged_ids, report=rep.to_dict(), integrity=checks), merged_ids, cfg.keep_versions, rep)
    return rep


DIRTY_PATHS_KEPT = 5000     # uncommitted paths a version records (the manifest stays small)


def _symbols(eng, root: Path, cfg: IndexConfig, tables: dict, prev_snap, rep: RunReport, progress: Progress,
             known=None) -> None:
    """Symbol-level co-change: the diffs of commits not mined before mapped to function spans
    (batches on the engine), beside the previous version's rows (``symbols.stored_base``; ``known``:
    its commit shas, as the history stage read them); the pairs recomputed over all of them. Adds
    ``symbol_changes`` and ``symbol_cochange`` to ``tables``. Timed by its stage (``symbols``)."""
    import pyarrow as pa

    from pipeline.storestate import PARSE_FORMAT
    from pipeline.symbols import SYMBOL_CHANGES, compute, mine_key, plan, stored_base

    commits, changes = tables["commits"], tables["file_changes"]
    kept, known = stored_base(prev_snap, cfg, rep, commits, known)
    # batches of at most SYMBOL_BATCH commits: the progress moves by them (8 batches of ~5,600 commits
    # were 14.5 minutes of sympy's history in eight steps). Each batch parses its files' spans anew:
    # 1,600 sympy commits took 53-61 s in batches of 1,600 or 500, 70-72 s in batches of 200
    shas = [sha for b in plan(changes, commits, cfg.history, known=known) for sha in b]     # oldest first
    size = max(1, -(-len(shas) // max(1, local_cpus(cfg) * 4, -(-len(shas) // SYMBOL_BATCH))))
    batches = [shas[i:i + size] for i in range(0, len(shas), size)]
    parts = eng.symbols(root, batches, progress)
    pieces = ([kept] if kept is not None else []) + [p.cast(SYMBOL_CHANGES) for p in parts]
    rows = pa.concat_tables(pieces) if pieces else SYMBOL_CHANGES.empty_table()
    # current_path is resolved at HEAD by the history stage (mine, combine): no second rename walk
    tables["symbol_cochange"] = out = compute(rows, changes, commits, cfg.history, resolved=True)
    tables["symbol_changes"] = rows
    rep.history.update(symbol_pairs=out.num_rows, symbol_commits_mined=sum(len(b) for b in batches),
                       symbol_changes_kept=kept.num_rows if kept is not None else 0,
                       symbols_key=mine_key(cfg.history, PARSE_FORMAT))


__all__ = ["index_repository", "ensure_ray", "choose_engine", "engine_for", "object_store_bytes", "InProcess", "OnRay",
           "PARSE_BATCH_FILES", "PARSE_BATCH_BYTES", "Progress"]
