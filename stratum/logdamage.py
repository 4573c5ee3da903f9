"""Damage in a delta log, for `stratum repair`: what is damaged in every segment, live and retired,
and setting it aside. Apart from ``stratum.deltalog`` (whose readers skip damage and go on) because
only repair rewrites a sealed segment; the record format stays that module's.
"""

from __future__ import annotations

import os
from pathlib import Path

from stratum.deltalog import (_HEADER, OVERHEAD, SEGMENT_SUFFIX, Damage, DeltaLog, _fsync_dir, _is_locked,
                              _try_lock, parse_segment)


def damage(log: DeltaLog) -> list[Damage]:
    """The damage in every segment, live and retired (a live writer's incomplete tail is an
    append in flight, not damage): what ``stratum repair --check`` reports."""
    out: list[Damage] = []
    for path in _all_segments(log):
        live = _is_locked(path)         # before reading, as scan: a sealed segment never grows again
        try:
            buf = path.read_bytes()
        except FileNotFoundError:
            continue
        out.extend(parse_segment(buf, _label(log.dir, path), live=live)[1])
    return out


def set_aside_damage(log: DeltaLog) -> tuple[list[Damage], list[str]]:
    """Rewrite each sealed segment (live or retired) that holds damage with its valid records
    only, byte for byte, as ``<name>-r.seg``, its original kept as ``damaged/<name>``: no note is
    lost (the skipped bytes were never readable), and the damage is reported by this call, not by every later
    index. Returns (the damage set aside, segments left because a live writer holds them)."""
    done: list[Damage] = []
    held: list[str] = []
    aside = log.dir / "damaged"
    for path in _all_segments(log):
        fd = _try_lock(path)
        if fd is None:
            if path.exists() and parse_segment(path.read_bytes(), path.name, live=True)[1]:
                held.append(_label(log.dir, path))
            continue
        try:
            buf = path.read_bytes()
            recs, dmg, _ = parse_segment(buf, path.name)
            if not dmg:
                continue
            aside.mkdir(exist_ok=True)
            keep = aside / path.name
            while keep.exists():
                keep = keep.with_name(keep.name + ".1")
            clean = b"".join(buf[r.offset:r.offset + OVERHEAD + _HEADER.unpack_from(buf, r.offset)[4]] for r in recs)
            for target, data in ((keep, buf), (aside / f".{path.name}.clean", clean)):
                wfd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                try:
                    os.write(wfd, data)
                    os.fsync(wfd)
                finally:
                    os.close(wfd)
            # under a new name (sorting right after the old), the old one then removed: a running
            # server's tail keeps a byte offset per segment name, and a shorter file of the same
            # name hid the records it had not read yet (a review); it reads the new one whole
            # (records it has are skipped by id)
            os.rename(aside / f".{path.name}.clean", path.with_name(path.name[:-len(SEGMENT_SUFFIX)] + "-r" + SEGMENT_SUFFIX))
            _fsync_dir(path.parent)
            path.unlink()
            _fsync_dir(aside)
            _fsync_dir(path.parent)
            done.extend(Damage(_label(log.dir, path), d.offset, d.length, d.reason) for d in dmg)
        finally:
            os.close(fd)
    return done, held


def _all_segments(log: DeltaLog) -> list[Path]:
    retired = log.dir / "retired"
    more = sorted(p for p in retired.iterdir() if p.name.endswith(SEGMENT_SUFFIX) and p.is_file()) \
        if retired.is_dir() else []
    return log.segments() + more


def _label(root: Path, path: Path) -> str:
    """A segment's name as reports give it: ``retired/<name>`` for a retired one."""
    return path.name if path.parent == root else f"{path.parent.name}/{path.name}"


__all__ = ["damage", "set_aside_damage"]
