"""Delta-log reliability with real processes: kill -9 mid-append, damaged segments, 8 concurrent
writers (threads and processes) x 1,000 notes, and rejected notes writing nothing."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pipeline.merge import merge
from stratum import ids, notes as N
from stratum.codelookup import CodeLookup
from stratum.deltalog import DeltaLog
from stratum.errors import NoteRejected

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
REPO = "shop"
CODE = [{"id": ids.node_id(REPO, p, "file"), "repo": REPO, "kind": "file", "path": p, "qualname": "",
         "content_hash": ids.content_hash(p)} for p in ("shop/cart.py", "shop/pay.py", "shop/ship.py")]

# A writer process: THREADS threads each write notes through notes.write_note and print
# "<uid> <note id>" only after the call returned (i.e. once the note is durable).
WRITER = r"""
import sys, threading
from stratum import ids, notes as N
from stratum.codelookup import CodeLookup
from stratum.deltalog import DeltaLog

path, tag, threads, per_thread = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
code = CodeLookup.from_records([{"id": ids.node_id("shop", p, "file"), "kind": "file", "path": p, "qualname": "",
                     "content_hash": ids.content_hash(p)} for p in ("shop/cart.py", "shop/pay.py", "shop/ship.py")])
log = DeltaLog(path)
out_lock = threading.Lock()

def work(t):
    for i in range(per_thread):
        text = f"note {tag}-{t}-{i}: " + "cause " * ((i * 37) % 400)       # 20 B .. 2.4 KiB
        note = N.write_note(log, "rca", text, ["shop/cart.py", "shop/pay.py"][: 1 + i % 2], f"agent-{tag}",
                            resolve=code.resolve, session=f"s{tag}")
        with out_lock:
            sys.stdout.write(f"{note.record_uid} {note.id}\n")
            sys.stdout.flush()

ts = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
for t in ts: t.start()
for t in ts: t.join()
print(f"done {log.fsyncs}", flush=True)
"""


def _spawn(path: Path, tag: str, threads: int, per_thread: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag, str(threads), str(per_thread)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)


def _acks(lines: list[str]) -> dict[str, str]:
    """uid -> note id for every complete acknowledgement line."""
    out = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 2 and line.endswith("\n") and parts[0] != "done":
            out[parts[0]] = parts[1]
    return out


def _check_note(r) -> None:
    """Every record returned is a whole, valid note (never half-written)."""
    assert r.type == "note"
    n = N.note_from_body(r.uid, r.body)
    assert n.text.startswith("note ") and n.author.startswith("agent-") and n.about


def test_kill_9_while_appending_keeps_every_acknowledged_note(tmp_path):
    path = tmp_path / "deltalog"
    acked: dict[str, str] = {}
    rng = random.Random(7)
    for round_ in range(4):
        p = _spawn(path, f"k{round_}", threads=4, per_thread=100_000)
        lines = []
        want = 150 + rng.randrange(150)
        while len(lines) < want:
            line = p.stdout.readline()
            assert line, p.stderr.read()
            lines.append(line)
        os.kill(p.pid, signal.SIGKILL)
        p.wait(30)
        lines += p.stdout.readlines()         # acks printed before the kill landed
        acked.update(_acks(lines))
    rep = DeltaLog(path).scan()
    got = {r.uid: r for r in rep.records}
    missing = set(acked) - set(got)
    assert not missing, f"{len(missing)} acknowledged notes lost"
    for r in rep.records:
        _check_note(r)
    assert all(ids.note_id(u) == nid for u, nid in acked.items())
    assert {d.reason for d in rep.damage} <= {"torn_tail"}        # only a write cut short by the kill
    assert len(rep.records) == len(got)                           # no record returned twice
    print(f"\nkill -9 x4: {len(acked)} acked, {len(got)} present, {len(rep.damage)} torn tails skipped")


def test_truncated_or_corrupted_segment_tails_are_reported_and_skipped(tmp_path):
    path = tmp_path / "deltalog"
    p = _spawn(path, "t", threads=2, per_thread=50)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    acked = _acks(out.splitlines(keepends=True))
    (seg,) = DeltaLog(path).segments()
    good = DeltaLog(path).scan().records
    assert [r.uid for r in good] == sorted(acked)
    data = seg.read_bytes()
    last = good[-1].offset
    # 1) the last 5 bytes lost
    seg.write_bytes(data[:-5])
    rep = DeltaLog(path).scan()
    assert [r.uid for r in rep.records] == [r.uid for r in good[:-1]]
    assert [(d.segment, d.offset, d.reason) for d in rep.damage] == [(seg.name, last, "torn_tail")]
    # 2) the last bytes overwritten with garbage
    seg.write_bytes(data[:-7] + b"\xff" * 7)
    rep = DeltaLog(path).scan()
    assert [r.uid for r in rep.records] == [r.uid for r in good[:-1]]
    assert [(d.offset, d.length, d.reason) for d in rep.damage] == [(last, len(data) - last, "checksum")]
    # 3) both: a garbage tail appended after an intact log
    seg.write_bytes(data + os.urandom(300))
    rep = DeltaLog(path).scan()
    assert [r.uid for r in rep.records] == [r.uid for r in good]
    assert [(d.offset, d.length) for d in rep.damage] == [(len(data), 300)]
    # the damaged log still merges, and still accepts new notes
    res = merge([], rep.records, CODE)
    assert len(res.nodes) == len(good)
    N.write_note(DeltaLog(path), "rca", "after damage", ["shop/ship.py"], "me", resolve=CodeLookup.from_records(CODE).resolve)
    assert len(DeltaLog(path).scan().records) == len(good) + 1


def _assert_all_once(path: Path, expected_texts: set[str], code) -> None:
    rep = DeltaLog(path).scan()
    assert rep.ok
    texts = [r.body["text"].split(":")[0] for r in rep.records]
    assert len(texts) == len(expected_texts) == len(set(texts)) and set(texts) == expected_texts
    res = merge([], rep.records, code)
    assert len(res.nodes) == len({n["id"] for n in res.nodes}) == len(expected_texts)
    again = merge(res.nodes, rep.records, code)
    assert len(again.nodes) == len(expected_texts) and again.new_ids == []


def test_8_threads_x_1000_notes_each_present_once(tmp_path):
    path = tmp_path / "deltalog"
    log = DeltaLog(path)
    code = CodeLookup.from_records(CODE)
    errors = []

    def work(w):
        try:
            for i in range(1000):
                N.write_note(log, "rca", f"note th-{w}-{i}: x", ["shop/cart.py"], f"agent-{w}", resolve=code.resolve)
        except Exception as e:  # surfaced below: a thread's failure must fail the test
            errors.append(e)

    t0 = time.perf_counter()
    ts = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    dt = time.perf_counter() - t0
    assert not errors
    _assert_all_once(path, {f"note th-{w}-{i}" for w in range(8) for i in range(1000)}, CODE)
    print(f"\n8 threads x 1000: {dt:.2f}s, {8000 / dt:.0f} notes/s, {log.fsyncs} fsyncs (group commit)")


def test_8_processes_x_1000_notes_each_present_once(tmp_path):
    path = tmp_path / "deltalog"
    t0 = time.perf_counter()
    procs = [_spawn(path, f"p{w}", threads=1, per_thread=1000) for w in range(8)]
    outs = [p.communicate(timeout=600) for p in procs]
    dt = time.perf_counter() - t0
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    acked = {}
    for out, _ in outs:
        acked.update(_acks(out.splitlines(keepends=True)))
    assert len(acked) == 8000
    assert len(DeltaLog(path).segments()) == 8                # one segment per writer process
    _assert_all_once(path, {f"note p{w}-0-{i}" for w in range(8) for i in range(1000)}, CODE)
    print(f"\n8 processes x 1000: {dt:.2f}s wall incl. start-up, {8000 / dt:.0f} notes/s")


def test_rejected_notes_write_nothing(tmp_path):
    path = tmp_path / "deltalog"
    log = DeltaLog(path)
    code = CodeLookup.from_records(CODE)
    cases = [("x" * (16 * 1024 + 1), ["shop/cart.py"], "over the limit of 16384"),
             ("", ["shop/cart.py"], "empty"),
             ("real cause", ["shop/cart.py", "shop/gone.py"], "unknown target: 'shop/gone.py'")]
    for text, about, msg in cases:
        with pytest.raises(NoteRejected, match=msg):
            N.write_note(log, "rca", text, about, "agent", resolve=code.resolve)
    assert not path.exists() or DeltaLog(path).scan().records == []
