"""Checksums of store files, recorded when they are written and checked before they are served.

Why per block: a full CRC of every file at every load is cheap for a repository-sized store
(zlib's crc32 runs at ~3.5 GB/s here) but would add seconds to a 1M-node shard whose warm tier
is ~3 GB. So each file is recorded as its size plus one CRC-32 per ``BLOCK`` bytes; a check is
``full`` (every block: repair, small stores at load) or ``quick`` (the size, the first and the
last block, where the headers and footers of .npy, usearch and Lance files live). A quick check
plus the indexes' structure checks (every stored row number in range) keeps a damaged large
store from crashing a request; ``stratum repair --check`` reads every block.

A record is ``{"size": int, "block": bytes per CRC, "crc": [int, ...]}``; a set of records is keyed by the file's path
relative to a base directory, and carries its own CRC (``seal``) so a damaged record set is told
apart from a damaged file.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

BLOCK = 4 << 20                 # bytes per CRC block (a quick check reads two per file)
FULL_AT_LOAD = 256 << 20        # stores (or warm tiers) up to this size are fully checked at load
_READ = 1 << 20


@dataclass(frozen=True)
class Damage:
    path: str                   # relative to the checked directory
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def record(path: str | os.PathLike) -> dict:
    """Size and per-block CRC-32 of one file."""
    crcs, size = [], 0
    block_size = BLOCK
    with open(path, "rb") as f:
        while True:
            block = f.read(block_size)
            if not block:
                break
            crcs.append(zlib.crc32(block))
            size += len(block)
    return {"size": size, "block": block_size, "crc": crcs}


def records(base: str | os.PathLike, paths: Iterable[str]) -> dict[str, dict]:
    base = Path(base)
    return {p: record(base / p) for p in sorted(paths)}


def seal(recs: Mapping[str, dict]) -> int:
    """A CRC over a record set itself (canonical JSON)."""
    return zlib.crc32(json.dumps(recs, sort_keys=True, separators=(",", ":")).encode())


def total_size(recs: Mapping[str, dict]) -> int:
    return sum(int(r["size"]) for r in recs.values())


def verify(base: str | os.PathLike, recs: Mapping[str, dict], *, full: bool | None = None) -> list[Damage]:
    """Damage found in the recorded files under ``base``. ``full=None``: every block when the
    files total at most FULL_AT_LOAD bytes, else the quick check (size, first and last block)."""
    base = Path(base)
    if full is None:
        full = total_size(recs) <= FULL_AT_LOAD
    out: list[Damage] = []
    for rel, rec in recs.items():
        path = base / rel
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            out.append(Damage(rel, "missing"))
            continue
        except OSError as e:
            out.append(Damage(rel, f"unreadable ({e.strerror})"))
            continue
        want = int(rec["size"])
        if size != want:
            out.append(Damage(rel, f"size {size} bytes, recorded {want}"))
            continue
        crcs, block = rec["crc"], int(rec.get("block", BLOCK))
        blocks = range(len(crcs)) if full else sorted({0, len(crcs) - 1} - {-1})
        try:
            bad = _bad_block(path, crcs, blocks, block)
        except OSError as e:
            out.append(Damage(rel, f"unreadable ({e.strerror})"))
            continue
        if bad is not None:
            out.append(Damage(rel, f"checksum mismatch in bytes {bad * block}-{min(size, (bad + 1) * block)}"))
    return out


def _bad_block(path: Path, crcs: list[int], blocks: Iterable[int], block: int) -> int | None:
    with open(path, "rb") as f:
        for b in blocks:
            f.seek(b * block)
            crc, left = 0, block
            while left:
                chunk = f.read(min(_READ, left))
                if not chunk:
                    break
                crc = zlib.crc32(chunk, crc)
                left -= len(chunk)
            if crc != int(crcs[b]):
                return b
    return None


__all__ = ["BLOCK", "FULL_AT_LOAD", "Damage", "record", "records", "seal", "total_size", "verify"]
