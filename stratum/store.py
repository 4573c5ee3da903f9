"""The cold tier: Lance datasets on disk, published through one atomic manifest switch.

Layout of a store root (default ``<repo>/.git/stratum/``: ``stratum.storehome``)::

    manifest.json            the published manifest (replaced atomically with os.replace)
    manifests/000007.json    every manifest ever published (audit, and to pin an old version)
    data-v1/<name>.lance     Lance datasets (the format version is in the path, so a format
                             change can never read stale data)
    indexes/v000007/         warm-tier indexes built by the pipeline for that published version
    deltalog/                append-only experience notes (see stratum.deltalog)
    lock                     held by the single writer (re-index) while it writes
    readers/vNNNNNN.*.hold   one per open Snapshot, share-locked while it lives: what ``prune`` keeps

A re-index writes new Lance versions of the datasets, then publishes a manifest naming them.
Readers open a ``Snapshot``: datasets checked out at the versions its manifest names, so a reader
holding an old manifest keeps reading the old data while a new version is published.

Integrity: ``publish`` records each dataset version's files (data files and Lance manifest) with
block checksums in the manifest (stratum.integrity); a Snapshot checks them when it opens (every
block for a store up to FULL_AT_LOAD bytes, else sizes and first/last blocks), and every Lance
call is translated once, here: a damaged file or a Rust panic becomes a StoreDamaged that says
to run `stratum repair`, never a traceback. A damaged cache (``CACHES``: the embedding cache, which
only the index job reads) does not stop a version being served: the Snapshot says so once (a
warning) and refuses to read that dataset. A manifest is checked for its shape when read
(``Manifest.from_json``, ``stratum.manifest``): a damaged one is unreadable, never half-used.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import itertools
import logging
import os
import re
import shutil
import time
import typing
import weakref
from pathlib import Path
from typing import Iterator

import pyarrow as pa

from stratum import integrity
from stratum import schema as S
from stratum.errors import InvalidArgument, NotFound, StoreDamaged, StoreError, StratumError
from stratum.manifest import Manifest

FORMAT_DIR = f"data-v{S.SCHEMA_VERSION}"
DEFAULT_KEEP = 3                  # published versions ``prune`` keeps besides those readers hold
CACHES = frozenset({"embeddings"})  # datasets only `stratum index` reads (text hash -> vector): no query
                                    # does, so a damaged one is not read and the version is still served
_U64 = (1 << 64) - 1
_holds = itertools.count()
log = logging.getLogger(__name__)
_CACHE_WARNED: set[tuple] = set()    # (store, version, published_at, cache) a damaged cache was reported for


class Store:
    """A store root. Cheap to construct; opens datasets lazily. A root whose path is not UTF-8 is
    refused here (``InvalidArgument``): Lance cannot open it."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        refuse_non_utf8(self.root)
        self.data_dir = self.root / FORMAT_DIR
        self._db = None

    # ---- reading -------------------------------------------------------------------------
    def exists(self) -> bool:
        return (self.root / "manifest.json").is_file()

    def manifest(self, version: int | None = None) -> Manifest:
        """The published manifest, or an older published one by number."""
        path = self.root / "manifest.json" if version is None else self.root / "manifests" / f"{version:06d}.json"
        try:
            m = Manifest.from_json(path.read_text())
        except FileNotFoundError:
            if version is None:
                raise NotFound(f"no index at {self.root}: run `stratum index` first") from None
            raise StoreError(f"store {self.root} has no published version {version}") from None
        except OSError as e:        # a store path that is a file, a manifest that is a folder: a typed reason
            raise StoreError.from_os(e) from e
        except (ValueError, TypeError) as e:
            raise StoreError(f"manifest {path} is unreadable: {e}; `stratum repair` publishes the last intact "
                             f"version again (every note kept)") from None
        if m.schema_version != S.SCHEMA_VERSION:
            raise StoreError(f"store {self.root} has schema version {m.schema_version}; this build reads "
                             f"{S.SCHEMA_VERSION}: re-index with `stratum index --full`")
        return m

    def snapshot(self, manifest: Manifest | None = None) -> "Snapshot":
        return Snapshot(self, manifest or self.manifest())

    def db(self):
        """A lancedb connection over the datasets (benchmarks and Lance's own indexes use it; the
        store itself reads and writes through pylance)."""
        if self._db is None:
            import lancedb

            self.data_dir.mkdir(parents=True, exist_ok=True)
            self._db = lancedb.connect(str(self.data_dir))
        return self._db

    def table_names(self) -> list[str]:
        if not self.data_dir.exists():
            return []
        return sorted(p.name[:-6] for p in self.data_dir.glob("*.lance"))

    # ---- writing -------------------------------------------------------------------------
    @contextlib.contextmanager
    def writer_lock(self) -> Iterator[None]:
        """One re-index at a time per store; a second one fails fast with a clear message."""
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreError(f"another index run holds {self.root / 'lock'}", retryable=True) from None
            yield
        finally:
            os.close(fd)

    def write_dataset(self, name: str, table: pa.Table) -> int:
        """Write a full new version of a dataset; returns its Lance version (not yet published).
        Through the Lance dataset API (pylance): importing lancedb costs ~1 s of a small re-index.
        A vector holding NaN or inf is refused (InvalidArgument) before anything is written: it
        would poison every search that scores it, long after the write."""
        import lance

        expected = S.DATASETS[name]
        if table.schema != expected:
            table = table.cast(expected)
        table = pa.Table.from_arrays(table.columns, schema=_written_schema(name))
        _refuse_nonfinite_vectors(name, table)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        uri = self.data_dir / f"{name}.lance"
        with lance_errors(f"dataset {name} in {self.root}", self.root, writing=True):
            ds = lance.write_dataset(table, str(uri), mode="overwrite" if uri.exists() else "create")
        return int(ds.version)

    def publish(self, manifest: Manifest) -> Manifest:
        """Make ``manifest`` the published one with a single atomic rename."""
        (self.root / "manifests").mkdir(parents=True, exist_ok=True)
        manifest.integrity = self._integrity(manifest)
        text = manifest.to_json()
        hist = self.root / "manifests" / f"{manifest.version:06d}.json"
        atomic_write(hist, text)
        atomic_write(self.root / "manifest.json", text)
        return manifest

    def _integrity(self, manifest: Manifest) -> dict:
        """Checksums of every dataset version the manifest names (reused when already recorded:
        Lance files are immutable once written)."""
        out = {}
        for name, version in sorted(manifest.datasets.items()):
            old = (manifest.integrity or {}).get(name)
            out[name] = old if old and old.get("version") == version else self.dataset_integrity(name, version)
        return out

    def dataset_integrity(self, name: str, version: int) -> dict:
        """One dataset version's manifest entry: its files' block checksums and their seal. A
        writer may compute it right after ``write_dataset`` (the index job does, on its writer
        thread) and hand it to ``publish`` in ``Manifest.integrity``, which keeps it."""
        rels = self.lance_files(name, version)
        recs = integrity.records(self.data_dir / f"{name}.lance", rels)
        return {"version": version, "files": recs, "seal": integrity.seal(recs)}

    def lance_files(self, name: str, version: int) -> list[str]:
        """A dataset version's files relative to its folder: its Lance manifest and data files."""
        import lance

        uri = self.data_dir / f"{name}.lance"
        with lance_errors(f"dataset {name} v{version} in {self.root}", self.root):
            ds = lance.dataset(str(uri), version=version)
            files = [f"data/{df.path}" for frag in ds.get_fragments() for df in frag.metadata.files]
        for cand in (f"_versions/{_U64 - version}.manifest", f"_versions/{version}.manifest"):
            if (uri / cand).is_file():
                files.append(cand)
                break
        return files

    def verify(self, manifest: Manifest, *, full: bool | None = None,
               names: typing.Collection[str] | None = None) -> list[str]:
        """Damage in the dataset files of ``manifest`` ("name: file: reason"); see stratum.integrity.
        ``names``: only these datasets (``full=None`` still chooses by the whole version's size)."""
        checks = [(n, e) for n, e in sorted((manifest.integrity or {}).items()) if n in manifest.datasets]
        if full is None:
            full = sum(integrity.total_size(e.get("files", {})) for _, e in checks) <= integrity.FULL_AT_LOAD
        out = []
        for name, entry in checks:
            if names is not None and name not in names:
                continue
            recs = entry.get("files")
            if not isinstance(recs, dict) or integrity.seal(recs) != entry.get("seal") \
                    or entry.get("version") != manifest.datasets[name]:
                out.append(f"{name}: the manifest's checksums for it are damaged")
                continue
            out += [f"{name}: {d}" for d in integrity.verify(self.data_dir / f"{name}.lance", recs, full=full)]
        return out

    # ---- pruning ---------------------------------------------------------------------------
    def published_versions(self) -> list[int]:
        d = self.root / "manifests"
        return sorted(int(p.stem) for p in d.glob("[0-9]*.json")) if d.is_dir() else []

    def held_versions(self) -> set[int]:
        """Versions an open Snapshot (in any process) holds; stale hold files are removed."""
        held = set()
        d = self.root / "readers"
        for p in d.glob("v*.hold") if d.is_dir() else []:
            try:
                fd = os.open(p, os.O_RDWR)
            except FileNotFoundError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                held.add(int(p.name[1:7]))
            else:
                p.unlink(missing_ok=True)           # its reader is gone (closed or died)
            finally:
                os.close(fd)
        return held

    def prune(self, keep: int = DEFAULT_KEEP, *, locked: bool = False) -> dict:
        """Remove Lance versions and warm folders that neither the newest ``keep`` published
        versions nor any open reader (``held_versions``) use. ``locked``: the caller holds
        ``writer_lock`` (the index job, after publish); otherwise prune takes it. Returns what
        went: {"versions": kept published versions, "lance": {dataset: [versions]}, "warm": [dirs]}."""
        if keep < 1:
            from stratum.errors import InvalidArgument

            raise InvalidArgument(f"prune keeps at least 1 version, not {keep}")
        with contextlib.nullcontext() if locked else self.writer_lock():
            return self._prune(keep)

    def _prune(self, keep: int) -> dict:
        import lance

        current = self.manifest()
        versions = self.published_versions()
        kept = set(versions[-keep:]) | {current.version} | self.held_versions()
        manifests = [current] + [self.manifest(v) for v in sorted(kept) if v != current.version and v in versions]
        used: dict[str, set[int]] = {}
        dirs = set()
        for m in manifests:
            for name, v in m.datasets.items():
                used.setdefault(name, set()).add(v)
            if (m.indexes or {}).get("dir"):
                dirs.add((self.root / m.indexes["dir"]).resolve())
        removed: dict[str, list[int]] = {}
        for name in self.table_names():
            with lance_errors(f"dataset {name} in {self.root}", self.root):
                ds = lance.dataset(str(self.data_dir / f"{name}.lance"))
                mine = used.get(name, set())
                if mine and ds.version > max(mine) and _fragments(ds) != _fragments(ds.checkout_version(max(mine))):
                    # a run killed after writing, before it published, left the newest version
                    # unpublished (16 MB of flask's, for good: a probe), and Lance keeps its newest:
                    # the newest published one is made newest again (a restore: a version of that
                    # manifest, on its files) and the killed run's can go. A restore is such a
                    # version itself, on the published files: not restored again at the next prune
                    ds.checkout_version(max(mine)).restore()
                    ds = lance.dataset(str(self.data_dir / f"{name}.lance"))
                drop = [v["version"] for v in ds.versions()
                        if v["version"] not in used.get(name, set()) and v["version"] != ds.version]
                if drop:
                    ds.cleanup_old_versions(versions=drop, delete_unverified=True,
                                            error_if_tagged_old_versions=False)
            if drop:
                removed[name] = drop
        warm = []
        idx = self.root / "indexes"
        for p in sorted(idx.iterdir()) if idx.is_dir() else []:
            if p.resolve() not in dirs and own_warm_folder(p):
                shutil.rmtree(p, ignore_errors=True)
                warm.append(p.name)
        return {"versions": sorted(kept), "lance": removed, "warm": warm}

    def newest_number(self) -> int:
        """The highest version number ever published: every copy's name, damaged or set aside
        (``manifests/damaged/``) too (0: none). A repair numbers its version after it, never over a
        version a reader or a page token may hold."""
        d = self.root / "manifests"
        names = [p.stem for p in (*d.glob("[0-9]*.json"), *(d / "damaged").glob("[0-9]*.json"))] if d.is_dir() else []
        return max((int(n) for n in names if n.isdigit()), default=0)

    def index_dir(self, version: int) -> Path:
        return self.root / "indexes" / f"v{version:06d}"


# what a warm folder the store made is named (``Store.index_dir``; a rebuild's set-aside copy,
# ``warm.rebuild_warm``) and what it holds (``warm._build``): prune removes nothing else
_WARM_NAME = re.compile(r"v[0-9]{6}|\.v[0-9]{6}\.damaged-[0-9]+")
WARM_ENTRIES = frozenset({"rows.id.npy", "rows.doc.npy", "keyword", "graph", "vector", "warm.json"})


def own_warm_folder(p: Path) -> bool:
    """Whether ``p`` (under a store's ``indexes/``) is a warm folder the store made: its name as the
    store names one, a real folder (no link), holding only what a warm build writes (a run killed
    midway: some of it). Prune removed every ``indexes/v*`` folder: through a ``.stratum`` link a
    repository committed, ``stratum index`` deleted a user's ``indexes/vault`` elsewhere (a probe)."""
    if not _WARM_NAME.fullmatch(p.name) or p.is_symlink() or not p.is_dir():
        return False
    try:
        return all(e.name in WARM_ENTRIES for e in os.scandir(p))
    except OSError:
        return False


def _fragments(ds) -> list[tuple]:
    """A Lance version's fragments as the files they read (data and deletions): metadata only."""
    return [(f.metadata.id, tuple(df.path for df in f.data_files()), str(f.metadata.deletion_file))
            for f in ds.get_fragments()]


class Snapshot:
    """Datasets pinned at the versions one manifest names; safe to read while a re-index runs."""

    def __init__(self, store: Store, manifest: Manifest, *, verify: bool | None = None):
        """``verify``: check the dataset files against the manifest's checksums (None: every
        block for a small store, sizes and first/last blocks for a large one; False: skip)."""
        self.store = store
        self.manifest = manifest
        self._datasets: dict[str, object] = {}   # lance datasets at the pinned versions
        self.damaged_caches: dict[str, str] = {}    # cache dataset -> why it is not read (see CACHES)
        self._hold()
        if verify is not False:
            damage = store.verify(manifest, full=verify, names=set(manifest.datasets) - CACHES)
            if damage:
                raise StoreDamaged(f"store {store.root} version {manifest.version} is damaged: "
                                   f"{_first(damage)}; it is not served: run `stratum repair --store {store.root}`")
            for name in sorted(CACHES & set(manifest.datasets)):
                damage = store.verify(manifest, full=verify, names={name})
                if damage:
                    self.damaged_caches[name] = (
                        f"the {name} cache of store {store.root} version {manifest.version} is damaged "
                        f"({_first(damage)}): it is not read, and no query reads it; `stratum repair --store "
                        f"{store.root}` drops it from the version")
                    said = (str(store.root), manifest.version, manifest.published_at, name)
                    if said not in _CACHE_WARNED:   # once a process: a server's reload opens the version anew
                        _CACHE_WARNED.add(said)
                        log.warning("%s", self.damaged_caches[name])

    def _hold(self) -> None:
        """Share-lock a hold file while this snapshot lives, so ``prune`` keeps its version (a
        read-only store cannot be pruned either, so no hold is needed there)."""
        d = self.store.root / "readers"
        path = d / f"v{self.manifest.version:06d}.{os.getpid()}.{next(_holds)}.hold"
        tmp = path.with_name(path.name + ".new")     # not matched by prune's glob until it is locked
        try:
            d.mkdir(exist_ok=True)
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return
        fcntl.flock(fd, fcntl.LOCK_SH)
        try:
            os.rename(tmp, path)   # visible to prune only now, already locked (no stale-looking window)
        except OSError:
            _release(fd, tmp)
            return
        weakref.finalize(self, _release, fd, path)

    def has(self, name: str) -> bool:
        return name in self.manifest.datasets

    def lance_table(self, name: str):
        """The dataset at the pinned version (a ``lance.LanceDataset``)."""
        if name not in self.manifest.datasets:
            raise StoreError(f"dataset {name!r} is not in published version {self.manifest.version} "
                             f"of {self.store.root}")
        if name in self.damaged_caches:
            raise StoreDamaged(self.damaged_caches[name])
        if name not in self._datasets:
            import lance

            with lance_errors(f"dataset {name} v{self.manifest.datasets[name]} in {self.store.root}",
                              self.store.root):
                self._datasets[name] = lance.dataset(str(self.store.data_dir / f"{name}.lance"),
                                                     version=self.manifest.datasets[name])
        return self._datasets[name]

    def take(self, name: str, rows: list[int], columns: list[str]) -> pa.Table:
        """Rows by position at the pinned version. Through the Lance dataset itself (pylance):
        a one-row take costs ~0.6-1.2 ms there against ~3.3 ms through lancedb's take_offsets
        (measured at 1M nodes, docs/bench/grpc.md)."""
        ds = self.lance_table(name)
        with lance_errors(f"dataset {name} v{self.manifest.datasets.get(name)} in {self.store.root}",
                          self.store.root):
            return ds.take(list(rows), columns=columns)

    def read(self, name: str, columns: list[str] | None = None, where: str | None = None) -> pa.Table:
        """Read a dataset (or some columns, optionally filtered) as an Arrow table."""
        ds = self.lance_table(name)
        with lance_errors(f"dataset {name} v{self.manifest.datasets[name]} in {self.store.root}", self.store.root):
            tab = ds.to_table(columns=columns, filter=where)
        S.check_schema(S.DATASETS[name].with_metadata(_meta_of(ds)), S.DATASETS[name], f"{name}")
        return tab

    def count(self, name: str) -> int:
        if not self.has(name):
            return 0
        ds = self.lance_table(name)
        with lance_errors(f"dataset {name} v{self.manifest.datasets[name]} in {self.store.root}", self.store.root):
            return ds.count_rows()


_UNCOMPRESSED = {"lance-encoding:compression": "none"}


@functools.lru_cache(maxsize=None)
def _written_schema(name: str) -> pa.Schema:
    """The schema a dataset is written with: ``stratum.schema``'s, its string columns marked
    uncompressed for Lance. Measured on flask's nodes (2.7k rows): a write 64 -> 16 ms CPU, a scan
    of every column but the vector 20 -> 4 ms, a 100-row take of full/api 2.0 -> 1.6 ms, for 36%
    more bytes (6.8 -> 9.2 MB; the vectors, stored as they are either way, are 4.2 MB of it).
    Every re-index writes and reads these columns whole; readers decode either encoding."""
    expected = S.DATASETS[name]
    fields = [f.with_metadata({**(f.metadata or {}), **_UNCOMPRESSED})
              if pa.types.is_string(f.type) or pa.types.is_large_string(f.type) else f for f in expected]
    return pa.schema(fields, metadata=expected.metadata)


def _refuse_nonfinite_vectors(name: str, table: pa.Table, shown: int = 5) -> None:
    """Raise InvalidArgument naming the dataset, how many rows hold a NaN/inf vector and the
    first few of their ids. Per row one sum, finite iff every element is (an overflow to inf
    is only a false alarm, re-checked element by element): a pass at memory speed, no mask the
    size of the vectors."""
    import numpy as np

    key = next((k for k in ("id", "text_hash") if k in table.column_names), None)
    for field in table.schema:
        if not (pa.types.is_fixed_size_list(field.type) and pa.types.is_floating(field.type.value_type)):
            continue
        bad: list[np.ndarray] = []
        start = 0
        for chunk in table.column(field.name).chunks:
            dim = chunk.type.list_size
            vals = chunk.values.slice(chunk.offset * dim, len(chunk) * dim).to_numpy(zero_copy_only=False)
            vals = vals.reshape(len(chunk), dim)
            with np.errstate(over="ignore", invalid="ignore"):
                rows = np.flatnonzero(~np.isfinite(vals.sum(axis=1)))
            rows = rows[~np.isfinite(vals[rows]).all(axis=1)]
            if chunk.null_count:
                rows = rows[chunk.is_valid().to_numpy(zero_copy_only=False)[rows]]
            bad.append(rows + start)
            start += len(chunk)
        rows = np.concatenate(bad) if bad else np.empty(0, np.int64)
        if len(rows):
            first = rows[:shown].tolist()
            which = (f"{key} " + ", ".join(map(str, table.column(key).take(first).to_pylist()))
                     if key else "row " + ", ".join(map(str, first)))
            more = ", ..." if len(rows) > shown else ""
            raise InvalidArgument(f"dataset {name}: {len(rows)} row(s) have a non-finite (NaN or inf) "
                                  f"{field.name} ({which}{more}); nothing was written")


@contextlib.contextmanager
def lance_errors(what: str, root, *, writing: bool = False) -> Iterator[None]:
    """Translate whatever Lance raises (ValueError, OSError, a Rust panic surfacing as
    pyo3's PanicException, a BaseException) into one error saying what to do: a failed read
    may be damage (StoreDamaged: run repair); a failed write (``writing``: a full disk, a file size
    limit) published nothing, so the store is as it was (StoreError: fix the cause, index again;
    it said "reading ... may be damaged: run repair", a probe). A read from a store no longer at its
    path (moved away or deleted while a server holds its version) says so: repair cannot help there."""
    try:
        yield
    except (KeyboardInterrupt, SystemExit, GeneratorExit, StratumError):
        raise
    except BaseException as e:  # noqa: BLE001 - translated, not swallowed
        text = " ".join(str(e).split())[:300]
        if writing:
            raise StoreError(f"writing {what} failed ({type(e).__name__}: {text}); nothing was published: the "
                             "store still serves its last version (free space or lift the limit, then index "
                             "again)") from None
        if not Path(root).is_dir():        # the folder itself is gone, not damage in it
            raise StoreDamaged(f"the store {root} is unavailable: it is no longer at its path (moved away or "
                               f"deleted while served), so {what} cannot be read; restore it at {root}, or index "
                               "the repository again (`stratum index`)") from None
        raise StoreDamaged(f"reading {what} failed ({type(e).__name__}: {text}); the store may be damaged: "
                           f"run `stratum repair --store {root}`") from None


def _first(damage: list[str], shown: int = 3) -> str:
    more = f" (and {len(damage) - shown} more)" if len(damage) > shown else ""
    return "; ".join(damage[:shown]) + more


def _release(fd: int, path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
    with contextlib.suppress(OSError):
        os.close(fd)


def _meta_of(lance_tbl) -> dict:
    return lance_tbl.schema.metadata or {}


def refuse_non_utf8(root: Path, advice: str = "pass --store with a UTF-8 path (several repositories: "
                                                "--store-root with a UTF-8 folder)") -> None:
    """InvalidArgument when the store's absolute path is not valid UTF-8 (a folder named with other
    bytes, which Python reads as surrogate escapes). Lance and the vector index take only UTF-8
    paths: unchecked, every read failed as "damaged, run repair" and an index run failed midway.
    Checked when a Store is made, before anything is read or written, so nothing is lost.
    ``advice``: what to pass instead; the default names both flags (a multi-repository run refuses
    --store, which alone was advised), and a caller that knows the flag used names it."""
    full = os.path.abspath(root)        # a relative path under a non-UTF-8 working folder fails too
    try:
        full.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(full).decode("utf-8", "backslashreplace")
        raise InvalidArgument(f"the store path {shown} is not valid UTF-8, and the store (Lance) can open "
                              f"only UTF-8 paths: {advice}; a store already there is "
                              f"untouched (rename its folder to use it)") from None


def atomic_write(path: Path, text: str) -> None:
    """Replace PATH whole with TEXT: a temporary file of its own (pid, clock), fsynced, renamed over it,
    the folder fsynced (a reader, or a process killed mid-write, never sees half of it). A write that
    fails (a full disk) leaves no temporary file behind."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    try:
        with open(tmp, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


__all__ = ["Manifest", "Store", "Snapshot", "FORMAT_DIR", "DEFAULT_KEEP", "CACHES", "lance_errors", "refuse_non_utf8", "atomic_write",
           "WARM_ENTRIES", "own_warm_folder"]
