"""What checking a store's files costs at load (stratum/integrity.py), and what a load costs now.

Definitions (printed with the results):
- load: ``Shard(Store(root))`` in this process, page cache warm (one untimed load first), median
  of --repeat; includes the Lance checksum check (Snapshot) and the warm checks (WarmIndexes.load).
- full check: every block of every recorded file (Lance dataset versions + warm folder) read and
  CRC-32'd; quick check: sizes plus the first and last block of each file (what a load does above
  FULL_AT_LOAD bytes); structure: the indexes' row-range checks at load (part of ``load``).
- crc32 throughput: zlib.crc32 over an in-memory buffer of --crc-mb MB (the ceiling of a full check).
- synthetic: one file of --synthetic-mb MB of random bytes (page cache warm): recording its
  checksums (what publish and build_warm add), a full and a quick check; scaled to the E4 1M-node
  store's 5,012 MB (2,748 MB Lance nodes version + 2,264 MB warm tier, docs/bench/e4.md).

    python benchmarks/warm_integrity.py --store PATH [--repeat 5] [--load-only]

``--load-only`` imports nothing but Shard/Store, so the same command run with PYTHONPATH set to an
older tree (``git archive <commit> stratum | tar -x -C DIR``) gives the before figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path


def _median_ms(fn, repeat: int) -> float:
    fn()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t) * 1000)
    return statistics.median(ts)


def _synthetic(mb: int, near: Path) -> dict:
    import tempfile

    from stratum import integrity

    with tempfile.TemporaryDirectory(dir=near.parent) as tmp:
        f = Path(tmp) / "big.bin"
        with open(f, "wb") as w:
            for _ in range(mb // 64):
                w.write(os.urandom(64 << 20))
        integrity.record(f)                                  # page cache warm
        t = time.perf_counter()
        recs = {"big.bin": integrity.record(f)}
        rec_s = time.perf_counter() - t
        full = _median_ms(lambda: integrity.verify(tmp, recs, full=True), 3) / 1000
        quick = _median_ms(lambda: integrity.verify(tmp, recs, full=False), 3) / 1000
    scale = 5012 / mb
    return {"mb": mb, "record_s": rec_s, "full_s": full, "quick_ms": quick * 1000,
            "at_1M_record_s": rec_s * scale, "at_1M_full_s": full * scale,
            "record_entries": len(recs["big.bin"]["crc"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--crc-mb", type=int, default=512)
    ap.add_argument("--load-only", action="store_true")
    ap.add_argument("--synthetic-mb", type=int, default=0)
    args = ap.parse_args()

    import stratum
    from stratum.shard import Shard
    from stratum.store import Store

    root = Path(args.store)
    out = {"store": str(root), "stratum": str(Path(stratum.__file__).parent),
           "load_ms": _median_ms(lambda: Shard(Store(root)), args.repeat)}
    if not args.load_only:
        import zlib

        from stratum import integrity
        from stratum.warm import verify_warm

        st = Store(root)
        m = st.manifest()
        d = root / m.indexes["dir"]
        lance_bytes = sum(integrity.total_size(e["files"]) for e in m.integrity.values())
        warm_bytes = integrity.total_size(json.loads((d / "warm.json").read_text())["files"])
        out.update(rows=m.indexes.get("rows"), lance_mb=lance_bytes / 2**20, warm_mb=warm_bytes / 2**20,
                   full_check_ms=_median_ms(lambda: (st.verify(m, full=True), verify_warm(d, full=True)), args.repeat),
                   quick_check_ms=_median_ms(lambda: (st.verify(m, full=False), verify_warm(d, full=False)),
                                             args.repeat))
        buf = os.urandom(args.crc_mb << 20)
        t = time.perf_counter()
        zlib.crc32(buf)
        out["crc32_mb_per_s"] = args.crc_mb / (time.perf_counter() - t)
    if args.synthetic_mb:
        out["synthetic"] = _synthetic(args.synthetic_mb, root)
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
