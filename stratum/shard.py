"""A loaded read-only shard: one store at one published version, with its warm tier.

Tiers (DESIGN.md): cold = the Lance datasets on disk; warm = this object: node metadata and
summaries in RAM, the adjacency (CSR), the vector and keyword indexes memory-mapped from the files
the pipeline saved beside the shard, and a bounded LRU cache of full node records (api/full text is
fetched from Lance on demand); hot = what a session's controller has placed in the agent's context.

Unmerged notes from the delta log live in an in-memory overlay on top of the read-only data, so a
note is searchable, walkable and gettable the moment ``remember`` acknowledges it.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections import OrderedDict
from contextvars import ContextVar
from typing import Any, Callable, Iterable, Iterator

import numpy as np
import pyarrow as pa

from stratum import schema as S
from stratum.errors import InvalidArgument, NotFound, StoreDamaged, StoreError, StratumError
from stratum.codelookup import CodeLookup
from stratum.envelope import StoresVersion
from stratum.whichstore import once_each
from stratum.graph import Neighbors
from stratum.keyindex import Column, KeyIndex
from stratum.ratelimit import Lasting
from stratum.seedtable import SeedTable
from stratum.store import Manifest, Store

# Columns kept in RAM for every node; api/full text and vectors stay in Lance until asked for.
WARM_COLUMNS = ["id", "repo", "kind", "subkind", "path", "name", "qualname", "language", "parent_id",
                "start_line", "end_line", "signature", "summary", "summary_tokens", "api_tokens",
                "full_tokens", "content_hash", "author", "session", "created_at", "tags", "status", "meta"]
FULL_CACHE_ENTRIES = 4096


log = logging.getLogger("stratum.shard")
RETRY_DAMAGED = 30.0      # seconds before a damaged published version is tried again

def _notes_meta_only(t: pa.Table) -> pa.Table:
    """``t`` with code nodes' ``meta`` null: a code node's is its calls and imports as written,
    the index's input, never read while serving (in RAM it was ~1.6x the summaries' bytes)."""
    import pyarrow.compute as pc

    i = t.schema.get_field_index("meta")
    code = pc.is_in(t.column("kind"), value_set=pa.array(S.CODE_KINDS))
    return t.set_column(i, "meta", pc.if_else(code, pa.scalar(None, pa.string()), t.column("meta")))


class Shard:
    """One store, pinned at one manifest. Thread-safe for reads."""

    def __init__(self, store: Store, manifest: Manifest | None = None, embedder=None):
        from stratum.warm import WarmIndexes

        self.store = store
        self.snapshot = store.snapshot(manifest)
        self.manifest = self.snapshot.manifest
        self.version = self.manifest.version
        t = _notes_meta_only(self.snapshot.read("nodes", columns=WARM_COLUMNS).combine_chunks())  # one chunk: O(1) row access
        self.meta = t
        # Column views and hashed key lookups, not Python objects per row: at 1M nodes dicts and
        # lists cost gigabytes and most of the load time (stratum/keyindex.py).
        self._col = {name: Column(t.column(name)) for name in WARM_COLUMNS}
        self.row_of = KeyIndex(self._col["id"].array)
        self.code = CodeLookup(t, row_of=self.row_of)   # the one resolver (notes and merge use it too)
        self.warm = WarmIndexes.load(store.root, self.manifest, self.meta, snapshot=self.snapshot,
                                     embedder=embedder, row_of_id=self.row_of)
        self._lock = threading.Lock()
        self._full: OrderedDict[int, dict] = OrderedDict()
        self.compiled_hops = self.warm.compiled_hops      # tests set it to compare both paths
        self._is_file: np.ndarray | None = None
        # every file's first look for ranking (stratum.seedtable), made on a helper thread: a large
        # shard's searches read one file at a time until it is ready
        self._seeds: SeedTable | None = None
        self.seeds_ready = threading.Event()
        if self.compiled_hops:
            threading.Thread(target=self._build_seeds, name="seed-table", daemon=True).start()
        else:
            self.seeds_ready.set()

    # ---- lookups --------------------------------------------------------------------------
    @property
    def repo(self) -> str:
        return self.manifest.repo_name

    def __len__(self) -> int:
        return self.meta.num_rows

    def resolve(self, target: str) -> int | None:
        """Row of a node id, a path, or path::qualified.name; None when this shard lacks it."""
        return self.code.row(target)

    def row(self, i: int) -> dict:
        """Warm record of a node (no api/full text, no vector)."""
        i = int(i)
        return {c: col.peek(i) for c, col in self._col.items()}    # codes/lists where ranking made them

    def rows(self, rows) -> list[dict]:
        """Warm records of many nodes at once (one Arrow take)."""
        return self.meta.take(pa.array(np.asarray(rows, dtype=np.int64))).to_pylist()

    def ids(self, rows) -> list[str]:
        """The ids of these rows (the searcher's id reader: slices of the Arrow buffers at 1M nodes,
        ~2x cheaper than a take and ``to_pylist``)."""
        return self.warm.searcher.meta.ids_of(np.asarray(rows, np.int64))

    def docs(self, rows) -> list[str | None]:
        """The ``doc`` column (a note's own text; not in the warm columns) of these rows, one take."""
        rows = [int(r) for r in rows]
        if not rows:
            return []
        got = self.snapshot.take("nodes", rows, ["id", "doc"]).to_pylist()
        if [g["id"] for g in got] != self._col["id"].array.take(pa.array(rows)).to_pylist():
            raise NotFound(f"node rows moved in {self.store.root}; reload the shard")
        return [g["doc"] for g in got]

    def col(self, name: str) -> Column:
        return self._col[name]

    def record(self, i: int) -> dict:
        """Full record including api and full text, through the bounded LRU cache."""
        with self._lock:
            if i in self._full:
                self._full.move_to_end(i)
                return self._full[i]
        rec = self.snapshot.take("nodes", [i], ["id", "api", "full"]).to_pylist()[0]
        if rec["id"] != self._col["id"][i]:  # defensive: dataset order must match the warm rows
            raise NotFound(f"node row {i} moved in {self.store.root}; reload the shard")
        full = self.row(i)
        full.update(api=rec["api"], full=rec["full"])
        with self._lock:
            self._full[i] = full
            while len(self._full) > FULL_CACHE_ENTRIES:
                self._full.popitem(last=False)
        return full

    def neighbors(self, i: int, kinds: tuple[str, ...] = (), direction: str = "out") -> list[tuple[int, str, str, float]]:
        """(row, edge kind, direction, weight) of the nodes one hop away."""
        return self.warm.graph_neighbors(i, kinds, direction)

    def edge_attrs(self, src: int, dst: int, kind: str) -> dict:
        return self.warm.edge_attrs(src, dst, kind)

    def link_meta(self, src: int, dst: int) -> dict:
        """How a calls/inherits edge was resolved and the call as written (``WarmIndexes.link_meta``)."""
        return self.warm.link_meta(int(src), int(dst))

    def members(self, i: int) -> list[int]:
        """The definitions inside a file or class row (its contains edges, down to methods)."""
        out, todo = [], [int(i)]
        path = self._col["path"][i] if self._col["kind"][i] == "file" else None    # a file: its own rows
        while todo:
            kids = [r for r, k, _, _ in self.neighbors(todo.pop(), ("contains",), "out")
                    if self._col["kind"][r] in ("class", "function", "method")
                    and (path is None or self._col["path"][r] == path)]
            out += kids
            todo += kids
        return out

    def edge_attrs_many(self, src: int, dsts: list[int], kind: str) -> list[dict]:
        return self.warm.edge_attrs_many(src, dsts, kind)

    def hop(self, i: int, kinds: tuple[str, ...] = (), direction: str = "out") -> tuple[Neighbors, list[str]]:
        """``neighbors`` as arrays (``graph.Neighbors``) with the edge kind names its codes index."""
        self.warm.ensure_served()
        return self.warm.graph.neighbors(int(i), kinds, direction), self.warm.graph.kind_names

    def cochange_top(self, i: int, k: int) -> tuple[list[int], list[dict]]:
        """The ``k`` strongest co-change partners of a row and their edge attributes (compiled)."""
        return self.warm.cochange_top(int(i), k)

    def seed_cochange(self, i: int, k: int) -> tuple[list[int], list, list[bool], list[int], list[float], list[int]]:
        """A file's ``k`` strongest co-change partners that have edge attributes (``cochange_top``'s
        order) as plain values: (rows, paths (None: none), whether each is a file, support,
        confidence (NaN: null), last time (us; ``warm.NO_TIME``: null)); from the seed table when it
        is ready and ``i`` is a file."""
        t = self._seeds
        got = t.cochange(int(i)) if t is not None and k == t.k_co else None
        if got is not None:
            return got
        rows, support, conf, when = self.warm.cochange_arrays(int(i), k)
        return rows, self._col["path"].take(rows), self._col["kind"].equals(rows, "file").tolist(), support, conf, when

    def seed_structure(self, i: int, k: int) -> tuple[int, list[int], list, list[str], list[bool]]:
        """``structure_top`` with the neighbours' paths: (how many, rows, paths, edge kind names,
        outgoing); from the seed table when it is ready and ``i`` is a file."""
        t = self._seeds
        got = t.structure(int(i)) if t is not None and k == t.k_st else None
        if got is not None:
            return got
        n, rows, kinds, outgoing = self.structure_top(i, k)
        return n, rows, self._col["path"].take(rows), kinds, outgoing

    def structure_top(self, i: int, k: int) -> tuple[int, list[int], list[str], list[bool]]:
        """Import/test file neighbours of a row, the ``k`` most specific first (compiled): (how
        many, rows, edge kind names, outgoing)."""
        return self.warm.structure_top(int(i), k, self._file_mask())

    def file_row(self, path: str) -> int | None:
        """``resolve(path)``, through the seed table's path map when it has the answer (a dict look,
        not two hash lookups in 10^6 keys)."""
        t = self._seeds
        r = t.row_of(path) if t is not None else None
        return r if r is not None else self.resolve(path)

    def _file_mask(self) -> np.ndarray:
        if self._is_file is None:
            self._is_file = self._col["kind"].equals(np.arange(len(self)), "file")
        return self._is_file

    def seed_table(self, wait: float | None = 0.0) -> SeedTable | None:
        """The seed table (None while it is made, or when it could not be: then rows are read one
        file at a time); ``wait``: seconds to wait for it (None: until it is done)."""
        self.seeds_ready.wait(wait)
        return self._seeds

    def build_seed_table(self) -> SeedTable:
        """Make the seed table now, on this thread (a small shard has none; tests compare both)."""
        from stratum import seedtable
        from stratum.rank import CO_PARTNERS, GRAPH_PARTNERS

        self._seeds = seedtable.build(self.warm, self._file_mask(), self._col["path"], self._col["id"].array,
                                      self._col["kind"], CO_PARTNERS, GRAPH_PARTNERS)
        return self._seeds

    def _build_seeds(self) -> None:
        try:
            self.build_seed_table()
        except (StoreDamaged, StoreError, OSError) as e:     # searches read per file, and meet it there
            log.warning("no seed table for %s: %s", self.store.root, e)
        finally:
            self.seeds_ready.set()

    def degrees(self, rows) -> np.ndarray:
        """Edges of every kind at these nodes, both directions."""
        self.warm.ensure_served()
        return self.warm.graph.degrees(rows)


class ShardSet:
    """Several shards answered together (e.g. one per repository or monorepo subtree).

    ``shards`` is what a call answers from: inside ``pinned`` (a tool call) the list the call
    started with, whatever ``reload`` switches meanwhile; elsewhere the newest loaded (``live``)."""

    def __init__(self, stores: list[str], embedder=None):
        if not stores:
            raise NotFound("no store given: pass at least one --store PATH")
        stores = once_each(stores)      # one store however it is spelled (A, A/, ./A, a symlink)
        self.stores = [Store(s) for s in stores]
        self._embedder = embedder
        self._refused: dict[int, tuple[int, float]] = {}   # store index -> (damaged version, retry after)
        self._unreadable: dict[int, Lasting] = {}   # store index -> its manifest's unreadable spells (the log's)
        self._why: dict[int, tuple[float, str]] = {}   # store index -> (wall time since, why): for status
        self.live: list[Shard] = [Shard(s, embedder=embedder) for s in self.stores]
        self._call: ContextVar[list[Shard] | None] = ContextVar(f"shards-{id(self)}", default=None)
        seen: dict[str, Store] = {}
        for st, sh in zip(self.stores, self.live):
            name = sh.manifest.repo_name
            if name in seen:        # node ids are made from the name: every shared path's id would be one
                raise InvalidArgument(
                    f"the stores {seen[name].root} and {st.root} both hold a repository named {name!r}: their "
                    f"node ids collide (`{name}:app.py` and every id would name the first one's). Serve them "
                    f"from separate servers (a probe found the second unreachable)")
            seen[name] = st

    @property
    def shards(self) -> list[Shard]:
        """The shards of the running call (``pinned``), else the newest loaded."""
        held = self._call.get()
        return self.live if held is None else held

    @contextlib.contextmanager
    def pinned(self) -> Iterator[list[Shard]]:
        """Hold the shards loaded now for one call (a call within a call keeps the outer one's): every
        part of its answer, text, version, commits and freshness, is then of one version. Each part
        used to read the newest shards: a reload landing mid-call (the server's reload thread, any
        moment) labelled the old version's text with the new commit, stale false (a fleet probe)."""
        held = self._call.get()
        if held is not None:
            yield held
            return
        live = self.live                # read once: a reload may swap it at any moment
        token = self._call.set(live)
        try:
            yield live
        finally:
            self._call.reset(token)

    def reload(self) -> list[tuple[str, int, int]]:
        """Load newly published versions; returns (store, old version, new version) for each switch.
        In-flight calls keep the shards they started with (``pinned``), so they never fail mid-way.
        Each store on its own: one whose manifest cannot be read (moved away, truncated) or whose new
        version cannot be loaded keeps its loaded version and the others still switch (one store's
        missing manifest once left every store at its old version until it came back: a probe)."""
        switched, new = [], list(self.live)
        for k, st in enumerate(self.stores):
            try:
                m = st.manifest()
            except (StratumError, OSError) as e:
                self._unreadable_now(k, e)
                continue
            self._why.pop(k, None)
            if k in self._unreadable and self._unreadable[k].over() is not None:
                log.warning("store %s: its manifest is readable again (version %d)", st.root, m.version)
            refused = self._refused.get(k)
            # a new version, or the same number published anew: a store deleted and indexed again at
            # its path starts at version 1 again, and was never loaded (a probe: served from files gone)
            held = self.live[k].manifest
            if (m.version != held.version or m.published_at != held.published_at) and not (
                    refused and refused[0] == m.version and time.monotonic() < refused[1]):
                try:
                    new[k] = Shard(st, m, embedder=self._embedder)
                except (StratumError, OSError) as e:
                    # keep serving the version we have; a damaged one is not re-read (and re-verified:
                    # up to 256 MB) on every reload tick, only after RETRY_DAMAGED seconds (a repair
                    # may fix warm files in place) or once a newer version is published
                    self._refused[k] = (m.version, time.monotonic() + RETRY_DAMAGED)
                    log.warning("not switching %s to version %d: %s", st.root, m.version,
                                e.message if isinstance(e, StratumError) else e)
                    continue
                switched.append((str(st.root), self.live[k].version, m.version))
        self.live = new
        return switched

    def _unreadable_now(self, k: int, err: Exception) -> None:
        """Say that store ``k`` keeps its loaded version: once, then once a minute while it lasts
        (``ratelimit.Lasting``: each reload tick, twice a second, once logged it forever)."""
        text = err.message if isinstance(err, StratumError) else str(err)
        self._why[k] = (self._why[k][0] if k in self._why else time.time(), text)
        due = self._unreadable.setdefault(k, Lasting()).now()
        if due is None:
            return
        lasting = "" if due.first else f" for {due.lasted:.0f} s"
        log.warning("store %s: cannot read its manifest%s (%s); still serving its version %d, the other "
                    "stores switch as they publish", self.stores[k].root, lasting, text, self.live[k].version)

    def held_back(self) -> list[str]:
        """A warning per store kept at its loaded version because its manifest cannot be read (status
        says so: only the server log did, so a client saw the old version as if it were current)."""
        out = []
        for k, (since, why) in sorted(dict(self._why).items()):    # a copy: the reload thread changes it
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(since))
            out.append(f"store {self.stores[k].root} is held at its loaded version {self.live[k].version}: its "
                       f"manifest cannot be read since {when} ({time.time() - since:.0f} s): {why}; restore the "
                       "store at its path, or index the repository again (the other stores still switch)")
        return out

    @property
    def version(self) -> int:
        """The shard's version with one store; with several, a number that changes whenever any
        shard publishes (a hash of every version: a sum of v x 1000^k collided once a store
        passed 1,000 versions, which a watch re-indexing each commit reaches)."""
        if len(self.shards) == 1:
            return self.shards[0].version
        import hashlib

        key = ",".join(str(s.version) for s in self.shards).encode()
        combined = int.from_bytes(hashlib.blake2b(key, digest_size=6).digest(), "big") or 1
        return StoresVersion(combined, tuple((s.repo, s.version) for s in self.shards))


def one_version_per_call(specs: Iterable[Any]) -> Callable[[type], type]:
    """A class decorator: each method the ``specs`` name (``toolspec._SPECS``: read once the class body
    has marked its tools) runs inside ``self.shards.pinned()``, so its whole answer, the envelope's
    version, commits and freshness too, is of the version loaded when it started."""
    def held(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def call(self, *args, **kwargs):
            shards = getattr(self, "shards", None)       # None: a stand-in self (a test's) holds none
            with shards.pinned() if shards is not None else contextlib.nullcontext():
                return fn(self, *args, **kwargs)
        return call

    def apply(cls: type) -> type:
        for name in {t.name for t in specs} & set(vars(cls)):
            setattr(cls, name, held(vars(cls)[name]))
        return cls
    return apply


__all__ = ["Shard", "ShardSet", "WARM_COLUMNS", "FULL_CACHE_ENTRIES", "one_version_per_call"]
