"""The delta log: append-only, checksummed, durable records (experience notes and tombstones).

This module is the only owner of the on-disk format; everything else goes through ``DeltaLog``.

Layout of ``<store>/deltalog/``::

    <uid>-<pid>-<rand>.seg     one segment per writer (a DeltaLog object in one process); records
                               are appended only by the process that created it, under its lock
    .<name>.new                a segment being created (locked, then renamed into place)
    .lock-NN                   empty files whose flocks order writers that must read before they
                               append (``DeltaLog.exclusive``); never records
    retired/<name>.seg         segments whose every record was merged into a published version

A segment is a plain concatenation of records::

    magic  b"\\xa7SLR"  4 bytes   (0xA7 never occurs in the payload: it is ASCII-only JSON)
    version          1 byte    (FORMAT_VERSION)
    flags            1 byte    (0, reserved)
    reserved         2 bytes
    payload length   4 bytes   little-endian
    uid             16 bytes   48-bit ms timestamp + 80-bit random/counter (time ordered, unique)
    checksum        16 bytes   blake2b-128 over the 28 header bytes above + the payload
    payload          n bytes   JSON, ASCII only: {"type": "note"|"retract"|"confirm", "body": {...}}

Why one segment per writer: a record can only interleave with another if two writers share a file.
Giving each writer its own file makes that impossible by construction, on any local filesystem,
without trusting O_APPEND atomicity for large writes or cross-process fcntl locks for ordering.
Threads of one process share their writer's segment through one lock, and their appends are
group-committed: one write + one fdatasync acknowledges every record queued meanwhile.

Records are read as Unicode text: a JSON escape of a lone surrogate (``\\udce9``, which builds
before the rule wrote for a command-line byte that was not UTF-8) reads as U+FFFD, as a decoder
with errors="replace" reads that byte; no UTF-8 writer after us (Arrow, protobuf, MCP) takes one.

Readers never return a damaged record: a record whose checksum fails, whose header is malformed,
or which ends past the end of the file is skipped and reported as ``Damage`` (segment, offset,
bytes skipped); reading resumes at the next magic that starts a valid record. An incomplete
record at the end of a segment still held by a live writer is an append in flight, not damage.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import secrets
import struct
import threading
import time
import weakref
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from stratum.errors import InvalidArgument, StoreDamaged, StoreError, StoreReadOnly, StratumError
from stratum.notetext import LONE_SURROGATE
from stratum.uids import new_uid, uid_int, uid_str

if TYPE_CHECKING:
    from stratum.logtail import LogTail

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
MAGIC = b"\xa7SLR"
_HEADER = struct.Struct("<4sBBHI16s")          # magic, version, flags, reserved, payload length, uid
HEADER_SIZE = _HEADER.size                      # 28
CHECK_SIZE = 16
OVERHEAD = HEADER_SIZE + CHECK_SIZE             # 44 bytes per record besides the payload
MAX_PAYLOAD = 4 << 20                           # larger lengths are corrupt headers, not records
SEGMENT_SUFFIX = ".seg"
DEFAULT_SEGMENT_BYTES = 8 << 20
COMMIT_DELAY = 0.0005                           # seconds a group-commit leader may wait for company
RECORD_TYPES = ("note", "retract", "confirm")
LOCK_STRIPES = 64                               # files ``DeltaLog.exclusive`` spreads its keys over

_SYNC = getattr(os, "fdatasync", os.fsync)      # data + file size; enough to read the record back
_NOT_WRITABLE = {errno.EROFS, errno.EACCES, errno.EPERM}   # an append that no retry will mend
_READ_ONLY = "read-only: "                      # marks such a failed batch's error


# ---- records and reports ---------------------------------------------------------------------
@dataclass(frozen=True)
class Record:
    uid: str                    # unique, time-ordered id of the record
    type: str                   # "note", "retract" or "confirm"
    body: dict                  # the JSON payload body
    segment: str                # segment file name it was read from
    offset: int                 # byte offset of the record in that segment


@dataclass(frozen=True)
class Damage:
    segment: str
    offset: int                 # where the skipped bytes start
    length: int                 # how many bytes were skipped
    reason: str                 # torn_tail | checksum | bad_header | bad_payload

    def __str__(self) -> str:
        return f"{self.segment} @ {self.offset}: {self.reason}, {self.length} bytes skipped"


@dataclass
class ScanReport:
    records: list[Record] = field(default_factory=list)   # valid records, ordered by uid
    damage: list[Damage] = field(default_factory=list)
    segments: int = 0
    bytes: int = 0

    @property
    def ok(self) -> bool:
        return not self.damage


@dataclass
class RetireReport:
    retired: list[str] = field(default_factory=list)          # segment names moved (or deleted)
    kept: dict[str, str] = field(default_factory=dict)        # segment name -> why it stays


def encode_record(uid: str, type: str, body: dict) -> bytes:
    """The bytes of one record (exposed for tests and tools that must craft damaged logs)."""
    if type not in RECORD_TYPES:
        raise InvalidArgument(f"unknown delta-log record type {type!r}; expected one of {RECORD_TYPES}")
    try:
        payload = json.dumps({"type": type, "body": body}, ensure_ascii=True, sort_keys=True,
                             separators=(",", ":"), allow_nan=False).encode("ascii")
    except (TypeError, ValueError) as e:
        raise InvalidArgument(f"delta-log record body is not plain JSON: {e}") from None
    if len(payload) > MAX_PAYLOAD:
        raise InvalidArgument(f"delta-log record of {len(payload)} bytes exceeds {MAX_PAYLOAD} bytes")
    header = _HEADER.pack(MAGIC, FORMAT_VERSION, 0, 0, len(payload), uid_int(uid).to_bytes(16, "big"))
    check = hashlib.blake2b(header + payload, digest_size=CHECK_SIZE).digest()
    return header + check + payload


def _decode_at(buf: bytes, pos: int) -> tuple[str, Any]:
    """Try to read one record at ``pos``: ("ok", (uid, type, body, end)) or (reason, end_or_None)."""
    n = len(buf)
    if n - pos < OVERHEAD:
        return "short", None
    magic, ver, _flags, _res, length, uid_b = _HEADER.unpack_from(buf, pos)
    if magic != MAGIC or ver != FORMAT_VERSION or length > MAX_PAYLOAD:
        return "bad_header", None
    end = pos + OVERHEAD + length
    if end > n:
        return "short", None
    check = buf[pos + HEADER_SIZE:pos + OVERHEAD]
    h = hashlib.blake2b(digest_size=CHECK_SIZE)
    h.update(buf[pos:pos + HEADER_SIZE])
    payload = buf[pos + OVERHEAD:end]
    h.update(payload)
    if h.digest() != check:
        return "checksum", None
    try:
        obj = json.loads(payload.decode("ascii"))
        rtype, body = obj["type"], obj["body"]
        if not isinstance(body, dict) or not isinstance(rtype, str):
            raise ValueError("type/body")
    except (ValueError, KeyError, TypeError):
        return "bad_payload", end
    if b"\\ud" in payload or b"\\uD" in payload:     # how ASCII JSON spells U+D000-U+DFFF: rare, then looked at
        body = _as_text(body)
    return "ok", (uid_str(int.from_bytes(uid_b, "big")), rtype, body, end)


def _as_text(v: Any) -> Any:
    """``v`` (JSON data) with each lone surrogate in its strings replaced by U+FFFD: one record an
    older build accepted failed every merge into Lance, and every answer serving it, for good."""
    if isinstance(v, str):
        return LONE_SURROGATE.sub("\ufffd", v)
    if isinstance(v, list):
        return [_as_text(x) for x in v]
    if isinstance(v, dict):
        return {_as_text(k): _as_text(x) for k, x in v.items()}
    return v


def parse_segment(buf: bytes, name: str, start: int = 0, *, live: bool = False
                  ) -> tuple[list[Record], list[Damage], int]:
    """Parse records from ``buf[start:]``. Returns (records, damage, resume offset).

    The resume offset is where a later read should continue: the end of ``buf``, or the start of
    an incomplete tail when ``live`` (the writer is alive, so the tail is an append in flight).
    """
    records: list[Record] = []
    damage: list[Damage] = []
    pos, n = start, len(buf)

    def skip(at: int, to: int, reason: str) -> None:
        if damage and damage[-1].offset + damage[-1].length == at:   # coalesce adjacent damage
            d = damage[-1]
            damage[-1] = Damage(name, d.offset, to - d.offset, d.reason)
        else:
            damage.append(Damage(name, at, to - at, reason))

    while pos < n:
        status, val = _decode_at(buf, pos)
        if status == "ok":
            uid, rtype, body, end = val
            records.append(Record(uid, rtype, body, name, pos))
            pos = end
            continue
        if status == "bad_payload":          # checksum held but JSON did not: skip exactly it
            skip(pos, val, "bad_payload")
            pos = val
            continue
        # find the next magic that starts a valid record
        nxt = buf.find(MAGIC, pos + 1)
        while nxt != -1 and _decode_at(buf, nxt)[0] not in ("ok", "bad_payload"):
            nxt = buf.find(MAGIC, nxt + 1)
        if nxt == -1:                         # nothing valid after: the tail is torn
            if live:
                return records, damage, pos
            skip(pos, n, "torn_tail" if status in ("short", "bad_header") else status)
            return records, damage, n
        skip(pos, nxt, "bad_header" if status == "short" else status)
        pos = nxt
    return records, damage, pos


# ---- the log ---------------------------------------------------------------------------------
class DeltaLog:
    """An append-only log in one directory, shared by threads and processes.

    ``append`` returns only after the record is durable (written and fdatasync'ed; the directory
    is fsync'ed when a segment is created). Reading never needs a lock. ``guard`` runs before every
    write and raises when the log may not be written now (``in_store``: its store is not there).
    """

    def __init__(self, directory: str | os.PathLike, *, segment_bytes: int = DEFAULT_SEGMENT_BYTES,
                 group_commit: bool = True, sync: bool = True, guard: Callable[[], None] | None = None):
        self.dir = Path(directory)
        self.guard: Callable[[], None] = guard or (lambda: None)
        self.segment_bytes = segment_bytes
        self.group_commit = group_commit
        self.sync = sync                     # False only for benchmarks measuring the fsync cost
        self._init_writer_state()
        _instances.add(self)

    def _after_fork_in_child(self) -> None:
        """A forked child never writes to its parent's segment: it starts its own on first append;
        nor holds the parent's ``exclusive`` locks (a flock lives while any copy of its fd is open)."""
        if self._fd is not None:
            os.close(self._fd)              # the parent's descriptor (and its flock) stays open
        for fd in list(self._held):
            os.close(fd)
        self._init_writer_state()

    def _init_writer_state(self) -> None:
        lock = threading.Lock()
        self._cv = threading.Condition(lock)        # appenders wait here for their batch
        self._gather = threading.Condition(lock)    # the leader waits here for a batch to fill
        self._last_batch = 1
        self._fd: int | None = None
        self._seg_name: str | None = None
        self._seg_size = 0
        self._pending: list[bytes] = []
        self._enqueued = 0                   # sequence number of the last record queued
        self._processed = 0                  # last sequence number written (or failed)
        self._failed: list[tuple[int, int, str]] = []   # (first seq, last seq, error) of failed batches
        self._leader = False
        self.fsyncs = 0                      # how many syncs this writer issued (benchmarks)
        self._held: set[int] = set()         # fds of the ``exclusive`` locks this process holds

    # ---- writing -----------------------------------------------------------------------------
    @contextmanager
    def exclusive(self, key: str) -> Iterator[None]:
        """Hold, across the processes writing this log, a lock named by ``key``: a writer that must
        see the others' records before it appends (``NotesOverlay.remember``: is this note written
        already?) reads and appends inside it. Each writer still appends to its own segment; keys
        are spread over LOCK_STRIPES files (a flock each), so writers of different keys rarely wait."""
        stripe = zlib.crc32(key.encode("utf-8", "surrogatepass")) % LOCK_STRIPES     # stable across processes
        self.guard()
        try:
            self._make_dir()
            # read-only is enough for a flock; 0o666 so a group-writable log stays shared (umask decides)
            fd = os.open(self.dir / f".lock-{stripe:02d}", os.O_RDONLY | os.O_CREAT, 0o666)
        except OSError as err:
            if err.errno in _NOT_WRITABLE:
                raise StoreReadOnly(f"the store's delta log {self.dir} is not writable ({err.strerror}): writing "
                                    "notes needs write access to it; reading works as it is") from err
            raise StoreError(f"delta log {self.dir}: cannot take a write lock: {err}", retryable=True) from err
        self._held.add(fd)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            if fd in self._held:            # not in a child forked inside (it closed its copy)
                self._held.discard(fd)
                os.close(fd)                # releases the flock

    def append(self, type: str, body: dict) -> str:
        """Append one record; returns its uid once it is durable. StoreError if it may not be."""
        return self.append_many([(type, body)])[0]

    def append_many(self, items: Iterable[tuple[str, dict]]) -> list[str]:
        """Append several records with one sync; returns their uids once all are durable."""
        items = list(items)
        if not items:
            return []
        self.guard()
        with self._cv:
            uids = []
            for type, body in items:
                uid = new_uid()                  # inside the lock: file order == uid order
                self._pending.append(encode_record(uid, type, body))
                uids.append(uid)
            self._enqueued += 1
            seq = self._enqueued
            if self._leader:
                self._gather.notify()
            if not self.group_commit:
                self._flush_locked()
            while self._processed < seq:
                if self._leader:
                    self._cv.wait()
                else:
                    self._lead()
            for lo, hi, err in self._failed:
                if lo <= seq <= hi and err.startswith(_READ_ONLY):
                    raise StoreReadOnly(f"the store's delta log {self.dir} is not writable "
                                        f"({err[len(_READ_ONLY):]}): writing notes needs write access to it; "
                                        "reading works as it is")
                if lo <= seq <= hi:
                    raise StoreError(f"delta log append to {self.dir} failed: {err}", retryable=True)
        return uids

    def _flush_locked(self) -> None:
        while self._processed < self._enqueued:
            self._lead(release=False)

    def _lead(self, release: bool = True) -> None:
        """Write and sync everything queued; called with the lock held.

        Group commit: if the previous batch held k appends, the leader first waits (at most
        COMMIT_DELAY) for k appends to queue up, so concurrent writers keep sharing one sync
        instead of the first one back after a sync going alone. A lone writer never waits.
        """
        self._leader = True
        if release and self._last_batch > 1:
            deadline = time.monotonic() + COMMIT_DELAY
            while self._enqueued - self._processed < self._last_batch:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._gather.wait(left)
        batch, self._pending = self._pending, []
        first, last = self._processed + 1, self._enqueued
        self._last_batch = last - first + 1
        err, unexpected = None, None
        if release:
            self._cv.release()
        try:
            self._write(b"".join(batch))
        except OSError as e:
            err = f"{e.strerror or e} ({type(e).__name__})"
            if e.errno in _NOT_WRITABLE:
                err = _READ_ONLY + err
            self._abandon_segment()
        except BaseException as e:  # noqa: BLE001 - waiters must be released, then it propagates
            err, unexpected = f"{type(e).__name__}: {e}", e
            self._abandon_segment()
        finally:
            if release:
                self._cv.acquire()
            self._leader = False
        if err is not None:
            self._failed.append((first, last, err))
            del self._failed[:-64]
            log.error("delta log %s: append failed: %s", self.dir, err)
        self._processed = last
        self._cv.notify_all()
        if unexpected is not None:
            raise unexpected

    def _write(self, data: bytes) -> None:
        # a segment unlinked under us (its store deleted or indexed anew) would take notes nobody reads
        if self._fd is None or self._seg_size >= self.segment_bytes or os.fstat(self._fd).st_nlink == 0:
            self._open_segment()
        fd = self._fd
        assert fd is not None                # _open_segment set it
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        self._seg_size += len(data)
        if self.sync:
            _SYNC(fd)
            self.fsyncs += 1

    def _open_segment(self) -> None:
        self._close_segment()
        self._make_dir()
        name = f"{new_uid()}-{os.getpid()}-{secrets.token_hex(3)}{SEGMENT_SUFFIX}"
        tmp = self.dir / f".{name}.new"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)    # held while this segment is ours (see retire)
            os.rename(tmp, self.dir / name)
            if self.sync:
                _fsync_dir(self.dir)
        except OSError:
            os.close(fd)
            raise
        self._fd, self._seg_name, self._seg_size = fd, name, 0

    def _make_dir(self) -> None:
        """The log's directory, made durable in its parent when new (a note acknowledged in it must
        survive a power cut)."""
        if not self.dir.is_dir():
            self.dir.mkdir(parents=True, exist_ok=True)
            if self.sync:
                _fsync_dir(self.dir.parent)

    def _close_segment(self) -> None:
        if self._fd is not None:
            os.close(self._fd)              # releases the flock: the segment is sealed
        self._fd, self._seg_name, self._seg_size = None, None, 0

    def _abandon_segment(self) -> None:
        fd, self._fd, self._seg_name, self._seg_size = self._fd, None, None, 0
        if fd is not None:
            try:
                os.close(fd)
            except OSError as e:
                log.warning("delta log %s: closing a failed segment: %s", self.dir, e)

    def seal(self) -> None:
        """Close the current segment (the next append starts a new one), so it can be retired."""
        with self._cv:
            while self._leader:
                self._cv.wait()
            self._close_segment()

    close = seal

    @property
    def active_segment(self) -> str | None:
        return self._seg_name

    # ---- reading -----------------------------------------------------------------------------
    def segments(self) -> list[Path]:
        """Live segment files, oldest first (names start with their creation uid)."""
        if not self.dir.is_dir():
            return []
        return sorted(p for p in self.dir.iterdir() if p.name.endswith(SEGMENT_SUFFIX) and p.is_file())

    def scan(self) -> ScanReport:
        """Every valid record of every live segment, ordered by uid, and the damage found."""
        rep = ScanReport()
        todo, read, gone = self.segments(), set(), False
        while todo:
            path = todo.pop(0)
            read.add(path.name)
            live = _is_locked(path)          # before reading: a sealed segment never grows again
            try:
                buf = path.read_bytes()
            except FileNotFoundError:        # retired while we listed, or repaired (its copy has a new
                if not gone:                 # name: list again once, so its records are not lost)
                    gone = True
                    todo += [p for p in self.segments() if p.name not in read and p not in todo]
                continue
            except OSError as e:
                raise StoreError(f"cannot read delta-log segment {path}: {e}") from None
            recs, dmg, _ = parse_segment(buf, path.name, live=live)
            rep.records.extend(recs)
            rep.damage.extend(dmg)
            rep.segments += 1
            rep.bytes += len(buf)
        rep.records.sort(key=lambda r: r.uid)
        for d in rep.damage:
            log.warning("delta log %s: damage skipped: %s", self.dir, d)
        return rep

    def tail(self) -> "LogTail":
        """An incremental reader (``logtail.LogTail``): each ``poll()`` returns only what was appended
        since the last."""
        from stratum.logtail import LogTail

        return LogTail(self)

    # ---- retiring ----------------------------------------------------------------------------
    def retire(self, merged_ids: Iterable[str], *, delete: bool = False) -> RetireReport:
        """Move segments whose every record is in ``merged_ids`` to ``retired/`` (or delete them).

        Call it only after the version holding those records is published. A segment still held
        by a live writer is never retired (it may grow); it goes at a later merge once sealed.
        """
        merged = set(merged_ids)
        rep = RetireReport()
        if not self.dir.is_dir():
            return rep
        retired_dir = self.dir / "retired"
        for path in self.segments():
            fd = _try_lock(path)
            if fd is None:
                rep.kept[path.name] = "held by a live writer"
                continue
            try:
                recs, _dmg, _ = parse_segment(path.read_bytes(), path.name)
                left = sum(1 for r in recs if r.uid not in merged)
                if left:
                    rep.kept[path.name] = f"{left} unmerged records"
                    continue
                if delete:
                    path.unlink()
                else:
                    retired_dir.mkdir(exist_ok=True)
                    os.rename(path, retired_dir / path.name)
                rep.retired.append(path.name)
            finally:
                os.close(fd)
        for tmp in self.dir.glob(".*.new"):   # creations that died before the rename
            fd = _try_lock(tmp)
            if fd is not None:
                try:
                    tmp.unlink()
                finally:
                    os.close(fd)
        if rep.retired:
            _fsync_dir(self.dir)
            if not delete:
                _fsync_dir(retired_dir)
        return rep


_instances: "weakref.WeakSet[DeltaLog]" = weakref.WeakSet()


def _reset_logs_after_fork() -> None:
    for lg in list(_instances):
        lg._after_fork_in_child()


os.register_at_fork(after_in_child=_reset_logs_after_fork)


def in_store(root: Path, read_manifest: Callable[[], Any]) -> Callable[[], None]:
    """A ``guard`` for the log of the store at ``root``: refuses (StoreDamaged) while the store has no
    readable manifest (``Store.manifest``, read again when manifest.json's inode, size or time change).
    A note written while the store was moved away was acknowledged, then lost when it came back."""
    path, seen = Path(root) / "manifest.json", [None]     # seen[0]: the (inode, size, time) read last

    def guard() -> None:
        st = os.stat(path) if path.is_file() else None
        key: Any = None if st is None else (st.st_ino, st.st_size, st.st_mtime_ns)
        if key is not None and key == seen[0]:
            return
        try:
            read_manifest()
        except (StratumError, OSError) as e:
            raise StoreDamaged(f"the store {root} is unavailable: {getattr(e, 'message', e)}; notes are not "
                               "written to it until it is restored, repaired or indexed again (nothing was "
                               "written)") from None
        seen[0] = key
    return guard


def _try_lock(path: Path) -> int | None:
    """An fd holding an exclusive flock on ``path``, or None if a writer holds it (or it is gone)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _is_locked(path: Path) -> bool:
    fd = _try_lock(path)
    if fd is None:
        return path.exists()
    os.close(fd)
    return False


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


__all__ = ["DeltaLog", "Record", "Damage", "ScanReport", "RetireReport", "encode_record", "parse_segment", "in_store", "FORMAT_VERSION", "MAGIC", "OVERHEAD", "RECORD_TYPES",
           "DEFAULT_SEGMENT_BYTES"]
