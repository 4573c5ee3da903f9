"""The delta log: durable appends, checksummed records, damage found and skipped, safe retiring."""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
import time

import pytest

from stratum import deltalog as D
from stratum.logdamage import damage, set_aside_damage
from stratum import uids as U
from stratum.errors import InvalidArgument


def _log(tmp_path, **kw) -> D.DeltaLog:
    return D.DeltaLog(tmp_path / "deltalog", **kw)


def _only_segment(lg: D.DeltaLog):
    segs = lg.segments()
    assert len(segs) == 1
    return segs[0]


def test_append_then_a_fresh_reader_sees_every_record_in_order(tmp_path):
    lg = _log(tmp_path)
    bodies = [{"text": f"note {i}", "unicode": "héllo \u2603 \U0001f600", "n": i} for i in range(20)]
    uids = [lg.append("note", b) for b in bodies]
    assert uids == sorted(uids) and len(set(uids)) == 20
    rep = _log(tmp_path).scan()               # another object, as another process would read it
    assert rep.ok and rep.segments == 1
    assert [r.uid for r in rep.records] == uids
    assert [r.body for r in rep.records] == bodies
    assert all(r.type == "note" for r in rep.records)


def test_a_lone_surrogate_an_older_build_wrote_reads_as_u_fffd(tmp_path):
    """JSON can spell one ("\\udce9": a command-line byte that was not UTF-8), Arrow, protobuf and
    MCP take none: one such note failed every index of its store for good."""
    lg = _log(tmp_path)
    lg.append("note", {"text": "caf\udce9 \ud800", "tags": ["t\udfff"], "about": [{"given": "a\udce9"}],
                       "k\udce9": 1, "n": None})
    kept = {"text": "a pair \U0001f600, U+D7FF \ud7ff and the text \\ud800 are kept", "n": 2}
    lg.append("note", kept)
    first, second = (r.body for r in _log(tmp_path).scan().records)
    assert first == {"text": "caf\ufffd \ufffd", "tags": ["t\ufffd"], "about": [{"given": "a\ufffd"}],
                     "k\ufffd": 1, "n": None}
    assert second == kept
    assert damage(_log(tmp_path)) == []        # a record read so is whole, not damage


def test_uids_are_unique_time_ordered_and_carry_their_time():
    before = time.time()
    uids = [U.new_uid() for _ in range(5000)]
    after = time.time()
    assert len(set(uids)) == 5000 and uids == sorted(uids)
    assert all(len(u) == 26 for u in uids)
    assert before - 0.002 <= U.uid_time(uids[0]) <= U.uid_time(uids[-1]) <= after + 0.002


def test_empty_or_missing_log_reads_as_empty(tmp_path):
    rep = _log(tmp_path).scan()
    assert rep.records == [] and rep.damage == [] and rep.segments == 0


def test_bad_records_are_refused_and_nothing_is_written(tmp_path):
    lg = _log(tmp_path)
    with pytest.raises(InvalidArgument, match="record type"):
        lg.append("gossip", {"x": 1})
    with pytest.raises(InvalidArgument, match="plain JSON"):
        lg.append("note", {"x": object()})
    with pytest.raises(InvalidArgument, match="plain JSON"):
        lg.append("note", {"x": float("nan")})
    assert lg.segments() == []


def test_every_torn_tail_is_detected_and_never_returned(tmp_path):
    lg = _log(tmp_path)
    uids = [lg.append("note", {"text": "x" * 50, "i": i}) for i in range(3)]
    lg.seal()
    seg = _only_segment(lg)
    data = seg.read_bytes()
    last = _log(tmp_path).scan().records[-1].offset
    for cut in range(last + 1, len(data)):       # every possible torn write of the last record
        seg.write_bytes(data[:cut])
        rep = _log(tmp_path).scan()
        assert [r.uid for r in rep.records] == uids[:2]
        assert len(rep.damage) == 1
        d = rep.damage[0]
        assert (d.segment, d.offset, d.length, d.reason) == (seg.name, last, cut - last, "torn_tail")


def test_corrupt_byte_in_the_middle_skips_only_that_record(tmp_path):
    lg = _log(tmp_path)
    uids = [lg.append("note", {"text": f"note {i}"}) for i in range(5)]
    lg.seal()
    seg = _only_segment(lg)
    recs = _log(tmp_path).scan().records
    data = bytearray(seg.read_bytes())
    data[recs[2].offset + D.OVERHEAD + 3] ^= 0x20        # flip one payload bit of record 2
    seg.write_bytes(bytes(data))
    rep = _log(tmp_path).scan()
    assert [r.uid for r in rep.records] == uids[:2] + uids[3:]
    assert [(d.offset, d.length, d.reason) for d in rep.damage] == \
        [(recs[2].offset, recs[3].offset - recs[2].offset, "checksum")]


def test_corrupt_length_field_resyncs_at_the_next_record(tmp_path):
    lg = _log(tmp_path)
    uids = [lg.append("note", {"text": f"note {i}"}) for i in range(4)]
    lg.seal()
    seg = _only_segment(lg)
    recs = _log(tmp_path).scan().records
    data = bytearray(seg.read_bytes())
    data[recs[1].offset + 8:recs[1].offset + 12] = (10**9).to_bytes(4, "little")   # absurd length
    seg.write_bytes(bytes(data))
    rep = _log(tmp_path).scan()
    assert [r.uid for r in rep.records] == [uids[0]] + uids[2:]
    assert [(d.offset, d.reason) for d in rep.damage] == [(recs[1].offset, "bad_header")]


def test_zero_filled_tail_after_a_crash_is_reported(tmp_path):
    lg = _log(tmp_path)
    uids = [lg.append("note", {"i": i}) for i in range(2)]
    lg.seal()
    seg = _only_segment(lg)
    size = seg.stat().st_size
    with open(seg, "ab") as f:
        f.write(b"\0" * 4096)
    rep = _log(tmp_path).scan()
    assert [r.uid for r in rep.records] == uids
    assert [(d.offset, d.length, d.reason) for d in rep.damage] == [(size, 4096, "torn_tail")]


def test_an_append_in_flight_is_not_damage_while_its_writer_lives(tmp_path):
    lg = _log(tmp_path)
    uid = lg.append("note", {"i": 0})
    seg = _only_segment(lg)
    partial = D.encode_record(U.new_uid(), "note", {"i": 1})[:30]
    with open(seg, "ab") as f:               # what a reader may see mid-write
        f.write(partial)
    rep = _log(tmp_path).scan()
    assert [r.uid for r in rep.records] == [uid] and rep.damage == []
    lg.seal()                                 # the writer is gone: now it is a torn tail
    rep = _log(tmp_path).scan()
    assert [r.uid for r in rep.records] == [uid]
    assert [d.reason for d in rep.damage] == ["torn_tail"]


def test_tail_poll_returns_only_new_records(tmp_path):
    lg = _log(tmp_path, segment_bytes=300)
    tail = _log(tmp_path).tail()
    assert tail.poll().records == []
    a = [lg.append("note", {"i": i}) for i in range(3)]
    assert [r.uid for r in tail.poll().records] == a
    assert tail.poll().records == []
    b = [lg.append("retract", {"note": "n1"}) for _ in range(4)]
    got = tail.poll().records
    assert [r.uid for r in got] == b and all(r.type == "retract" for r in got)
    assert len(lg.segments()) > 1             # rotation happened along the way


def test_segments_rotate_at_the_size_limit(tmp_path):
    lg = _log(tmp_path, segment_bytes=1000)
    uids = [lg.append("note", {"text": "y" * 200}) for _ in range(20)]
    segs = lg.segments()
    assert len(segs) >= 4
    assert all(p.stat().st_size < 1000 + 300 for p in segs)
    assert [r.uid for r in _log(tmp_path).scan().records] == uids


def test_retire_only_fully_merged_sealed_segments(tmp_path):
    lg = _log(tmp_path, segment_bytes=1)      # one record per segment
    uids = [lg.append("note", {"i": i}) for i in range(4)]
    other = _log(tmp_path)                    # e.g. the index job, in another process
    rep = other.retire(uids[:2])
    assert len(rep.retired) == 2
    names = {p.name for p in lg.segments()}
    assert len(names) == 2
    assert any("unmerged" in why for why in rep.kept.values())
    rep = other.retire(uids)                  # the last segment is still held by its writer
    assert len(rep.retired) == 1 and list(rep.kept.values()) == ["held by a live writer"]
    assert [r.uid for r in other.scan().records] == [uids[3]]
    lg.seal()
    rep = other.retire(uids, delete=True)
    assert len(rep.retired) == 1 and other.scan().records == []
    assert len(list((tmp_path / "deltalog" / "retired").iterdir())) == 3
    new = lg.append("note", {"i": 9})         # the writer carries on in a new segment
    assert [r.uid for r in other.scan().records] == [new]


def test_threads_never_interleave_and_group_commit_batches_syncs(tmp_path):
    lg = _log(tmp_path)
    acked: list[str] = []
    lock = threading.Lock()

    def writer(w):
        for i in range(40):
            u = lg.append("note", {"w": w, "i": i, "text": "z" * (i * 7)})
            with lock:
                acked.append(u)

    ts = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    rep = _log(tmp_path).scan()
    assert rep.ok and sorted(acked) == [r.uid for r in rep.records]
    assert sorted((r.body["w"], r.body["i"]) for r in rep.records) == [(w, i) for w in range(8) for i in range(40)]
    assert lg.fsyncs <= 320                   # never more syncs than appends (usually far fewer)


def test_append_many_is_one_sync(tmp_path):
    lg = _log(tmp_path)
    uids = lg.append_many([("note", {"i": i}) for i in range(10)])
    assert lg.fsyncs == 1 and [r.uid for r in lg.scan().records] == uids



@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_writes_its_own_segment(tmp_path):
    lg = _log(tmp_path)
    parent_uid = lg.append("note", {"who": "parent"})
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_fork_child_with_inherited_log, args=(lg, q))
    p.start()
    child_uid, child_seg = q.get(timeout=30)
    p.join(30)
    assert p.exitcode == 0
    assert child_seg != lg.active_segment
    after = lg.append("note", {"who": "parent"})
    rep = _log(tmp_path).scan()
    assert rep.ok and [r.uid for r in rep.records] == sorted([parent_uid, child_uid, after])
    assert len(lg.segments()) == 2


def _fork_child_with_inherited_log(lg, q):
    q.put((lg.append("note", {"who": "child"}), lg.active_segment))


FAILING_WRITER = r"""
import resource, signal, sys
from stratum.deltalog import DeltaLog
from stratum.errors import StoreError
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)          # writes past the limit fail with EFBIG
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (2000, hard))
log = DeltaLog(sys.argv[1])
acked = []
try:
    for i in range(100):
        acked.append(log.append("note", {"text": "y" * 300, "i": i}))
except StoreError as e:
    print("ERR", e.code, e.retryable, flush=True)
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
acked.append(log.append("note", {"text": "after", "i": -1}))   # carries on in a fresh segment
print(" ".join(acked), flush=True)
"""


def test_a_failed_write_is_an_error_and_the_log_stays_readable(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    p = subprocess.run([sys.executable, "-c", FAILING_WRITER, str(tmp_path / "deltalog")], cwd=root,
                       env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    err, acked = p.stdout.splitlines()
    assert err == "ERR store_error True"
    acked = acked.split()
    rep = _log(tmp_path).scan()
    assert [r.uid for r in rep.records] == acked          # every acknowledged record, nothing else
    assert rep.records[-1].body["text"] == "after" and len(acked) >= 3
    assert [d.reason for d in rep.damage] in ([], ["torn_tail"])
    assert len(_log(tmp_path).segments()) == 2


def test_an_exclusive_lock_keeps_the_logs_new_directory_durable_and_fails_clearly(tmp_path, monkeypatch):
    """``exclusive`` may be the first to make ``deltalog/``: the first note's directory is still
    fsynced into its parent (else an acknowledged note could vanish in a power cut); a lock it cannot
    take is a retryable StoreError, not a raw OSError; the lock files are never read as records."""
    from stratum.errors import StoreError

    synced = []
    real = D._fsync_dir
    monkeypatch.setattr(D, "_fsync_dir", lambda p: (synced.append(p), real(p)))
    lg = D.DeltaLog(tmp_path / "store" / "deltalog")
    (tmp_path / "store").mkdir()
    with lg.exclusive("author\0rca\0text"):
        uid = lg.append("note", {"text": "x"})
    assert tmp_path / "store" in synced and lg.dir in synced
    assert [r.uid for r in D.DeltaLog(lg.dir).scan().records] == [uid]
    assert any(p.name.startswith(".lock-") for p in lg.dir.iterdir())
    (tmp_path / "file").write_text("")
    bad = D.DeltaLog(tmp_path / "file" / "deltalog")
    with pytest.raises(StoreError, match="cannot take a write lock") as e:
        with bad.exclusive("k"):
            pass
    assert e.value.retryable


def test_a_forked_child_does_not_hold_its_parents_exclusive_lock(tmp_path):
    """A flock lives while any copy of its fd is open: a child forked while the parent holds a lock
    closes its copy, so the parent's next writer does not wait for the child to exit."""
    lg = D.DeltaLog(tmp_path / "deltalog")
    with lg.exclusive("k"):
        pid = os.fork()
        if pid == 0:                                    # the child: outlives the parent's hold
            time.sleep(2)
            os._exit(0)
    try:
        t0 = time.monotonic()
        with lg.exclusive("k"):
            waited = time.monotonic() - t0
        assert waited < 1.0, f"waited {waited:.1f} s for the child"
    finally:
        os.waitpid(pid, 0)


def test_a_running_tail_reads_what_repair_kept_after_it_set_damage_aside(tmp_path):
    """A review: `repair` rewrote a damaged segment shorter under its name, and a running server's
    tail (a byte offset per name) never read the records it had not reached (r3 here)."""
    w = D.DeltaLog(tmp_path / "log")
    w.append("note", {"text": "r1"})
    w.append("note", {"text": "r2"})
    seg = w.segments()[0]
    buf = bytearray(seg.read_bytes())
    buf[D.OVERHEAD + 2] ^= 0xFF                     # r1's payload fails its checksum
    with open(seg, "r+b") as f:
        f.write(bytes(buf[:D.OVERHEAD + 4]))
    tail = D.DeltaLog(tmp_path / "log").tail()
    assert [r.body["text"] for r in tail.poll().records] == ["r2"]
    w.append("note", {"text": "r3"})
    w.seal()
    original = seg.read_bytes()
    done, held = set_aside_damage(D.DeltaLog(tmp_path / "log"))
    assert done and not held
    assert "r3" in [r.body["text"] for r in tail.poll().records]
    fresh = D.DeltaLog(tmp_path / "log")
    assert [r.body["text"] for r in fresh.scan().records] == ["r2", "r3"] and not damage(fresh)
    assert [p.name for p in fresh.segments()] == [seg.name[:-4] + "-r.seg"]
    assert (tmp_path / "log" / "damaged" / seg.name).read_bytes() == original    # the original kept


def test_a_scan_that_meets_a_repair_between_listing_and_reading_keeps_every_record(tmp_path):
    """A review: the repaired copy has a new name and the old file goes; a scan that listed before
    and read after found neither and returned none of that segment's records."""
    w = D.DeltaLog(tmp_path / "log")
    w.append("note", {"text": "r1"})
    w.append("note", {"text": "r2"})
    w.seal()
    seg = w.segments()[0]
    with open(seg, "ab") as f:
        f.write(D.MAGIC + b"\x01\x00\x00torn")                   # a torn tail to set aside
    log = D.DeltaLog(tmp_path / "log")
    listed = log.segments

    def segments_then_repair():
        out = listed()
        if not getattr(log, "_repaired", False):
            log._repaired = True
            set_aside_damage(D.DeltaLog(tmp_path / "log"))
        return out
    log.segments = segments_then_repair
    assert sorted(r.body["text"] for r in log.scan().records) == ["r1", "r2"]
