"""The cold tier: Lance datasets on disk, published through one atomic manifest switch.

Layout of a store root (default ``<repo>/.stratum/``)::

    manifest.json            the published manifest (replaced atomically with os.replace)
    manifests/000007.json    every manifest ever published (audit, and to pin an old version)
    data-v1/<name>.lance     Lance datasets (the format version is in the path, so a format
                             change can never read stale data)
    indexes/v000007/         warm-tier indexes built by the pipeline for that published version
    deltalog/                append-only experience notes (see stratum.deltalog)
    lock                     held by the single writer (re-index) while it writes

A re-index writes new Lance versions of the datasets, then publishes a manifest naming them.
Readers open a ``Snapshot``: datasets checked out at the versions its manifest names, so a reader
holding an old manifest keeps reading the old data while a new version is published.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

import pyarrow as pa

from stratum import schema as S
from stratum.errors import NotFound, StoreError

FORMAT_DIR = f"data-v{S.SCHEMA_VERSION}"


@dataclass
class Manifest:
    version: int                            # published version of the store (1, 2, ...)
    published_at: float
    repo_name: str
    repo_path: str
    indexed_commit: str | None              # HEAD when indexed (None: not a git repo / no commits)
    history_watermark: str | None           # last mined commit (incremental history)
    datasets: dict[str, int]                # dataset name -> Lance version
    schema_version: int = S.SCHEMA_VERSION
    token_encoding: str = "cl100k_base"
    embedding: dict | None = None           # {"model", "dim", "weights_hash"}
    indexes: dict = field(default_factory=dict)   # warm index files relative to the root
    deltalog_merged: list[str] = field(default_factory=list)  # log record ids merged into this version
    report: dict = field(default_factory=dict)    # the run report summary

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "Manifest":
        d = json.loads(text)
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in d.items() if k in known})


class Store:
    """A store root. Cheap to construct; opens datasets lazily."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
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
        except (ValueError, TypeError) as e:
            raise StoreError(f"manifest {path} is unreadable: {e}") from None
        if m.schema_version != S.SCHEMA_VERSION:
            raise StoreError(f"store {self.root} has schema version {m.schema_version}; this build reads "
                             f"{S.SCHEMA_VERSION}: re-index with `stratum index --full`")
        return m

    def snapshot(self, manifest: Manifest | None = None) -> "Snapshot":
        return Snapshot(self, manifest or self.manifest())

    def db(self):
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
        """Write a full new version of a dataset; returns its Lance version (not yet published)."""
        expected = S.DATASETS[name]
        if table.schema != expected:
            table = table.cast(expected)
        table = table.replace_schema_metadata(expected.metadata)
        db = self.db()
        kw = {"on_bad_vectors": "null"} if "vector" in table.column_names else {}
        tbl = db.create_table(name, table, mode="overwrite", **kw) if name in self.table_names() \
            else db.create_table(name, table, **kw)
        return tbl.version

    def publish(self, manifest: Manifest) -> Manifest:
        """Make ``manifest`` the published one with a single atomic rename."""
        (self.root / "manifests").mkdir(parents=True, exist_ok=True)
        text = manifest.to_json()
        hist = self.root / "manifests" / f"{manifest.version:06d}.json"
        _atomic_write(hist, text)
        _atomic_write(self.root / "manifest.json", text)
        return manifest

    def next_version(self) -> int:
        return self.manifest().version + 1 if self.exists() else 1

    def index_dir(self, version: int) -> Path:
        return self.root / "indexes" / f"v{version:06d}"


class Snapshot:
    """Datasets pinned at the versions one manifest names; safe to read while a re-index runs."""

    def __init__(self, store: Store, manifest: Manifest):
        self.store = store
        self.manifest = manifest
        self._tables: dict[str, object] = {}     # lancedb tables
        self._datasets: dict[str, object] = {}   # lance datasets (row takes)

    def has(self, name: str) -> bool:
        return name in self.manifest.datasets

    def lance_table(self, name: str):
        if name not in self.manifest.datasets:
            raise StoreError(f"dataset {name!r} is not in published version {self.manifest.version} "
                             f"of {self.store.root}")
        if name not in self._tables:
            try:
                t = self.store.db().open_table(name)
                t.checkout(self.manifest.datasets[name])
            except Exception as e:  # lance raises plain ValueError/OSError: translate here, once
                raise StoreError(f"cannot open dataset {name} v{self.manifest.datasets[name]} in "
                                 f"{self.store.root}: {e}") from None
            self._tables[name] = t
        return self._tables[name]

    def take(self, name: str, rows: list[int], columns: list[str]) -> pa.Table:
        """Rows by position at the pinned version. Through the Lance dataset itself (pylance):
        a one-row take costs ~0.6-1.2 ms there against ~3.3 ms through lancedb's take_offsets
        (measured at 1M nodes, docs/bench/grpc.md)."""
        ds = self._datasets.get(name)
        if ds is None:
            ds = self.lance_table(name).to_lance()
            if ds.version != self.manifest.datasets[name]:
                ds = ds.checkout_version(self.manifest.datasets[name])
            self._datasets[name] = ds
        return ds.take(list(rows), columns=columns)

    def read(self, name: str, columns: list[str] | None = None, where: str | None = None) -> pa.Table:
        """Read a dataset (or some columns, optionally filtered) as an Arrow table."""
        t = self.lance_table(name)
        if where is None and columns is None:
            tab = t.to_arrow()
        else:
            q = t.search().where(where) if where else t.search()
            if columns:
                q = q.select(columns)
            tab = q.limit(None).to_arrow() if hasattr(q, "limit") else q.to_arrow()
        S.check_schema(S.DATASETS[name].with_metadata(_meta_of(t)), S.DATASETS[name], f"{name}")
        return tab

    def count(self, name: str) -> int:
        return self.lance_table(name).count_rows() if self.has(name) else 0


def _meta_of(lance_tbl) -> dict:
    return lance_tbl.schema.metadata or {}


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


__all__ = ["Manifest", "Store", "Snapshot", "FORMAT_DIR"]
