"""The delta log's incremental reader, for the serving overlay: each ``poll()`` returns only the
records appended since the last, by an offset per segment name (a segment a repair rewrote has a new
name, so it is read again whole; its records are skipped by id downstream).
"""

from __future__ import annotations

import logging

from stratum.deltalog import Damage, DeltaLog, Record, ScanReport, _is_locked, parse_segment

log = logging.getLogger("stratum.deltalog")


class LogTail:
    """Reads a log incrementally (for the serving overlay): remembers an offset per segment."""

    def __init__(self, log_: DeltaLog):
        self.log = log_
        self._offsets: dict[str, int] = {}
        self._reported: set[tuple[str, int]] = set()

    def poll(self) -> ScanReport:
        rep = ScanReport()
        seen = set()
        for path in self.log.segments():
            name = path.name
            seen.add(name)
            start = self._offsets.get(name, 0)
            try:
                size = path.stat().st_size
                if size <= start:
                    continue
                live = _is_locked(path)
                with open(path, "rb") as f:
                    f.seek(start)
                    buf = f.read()
            except FileNotFoundError:
                continue
            recs, dmg, resume = parse_segment(buf, name, live=live)
            for r in recs:
                rep.records.append(Record(r.uid, r.type, r.body, name, r.offset + start))
            for d in dmg:
                d = Damage(name, d.offset + start, d.length, d.reason)
                if (name, d.offset) not in self._reported:
                    self._reported.add((name, d.offset))
                    rep.damage.append(d)
                    log.warning("delta log %s: damage skipped: %s", self.log.dir, d)
            self._offsets[name] = start + resume
            rep.segments += 1
            rep.bytes += resume
        for gone in set(self._offsets) - seen:
            del self._offsets[gone]
        rep.records.sort(key=lambda r: r.uid)
        return rep


__all__ = ["LogTail"]
