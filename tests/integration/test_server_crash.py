"""kill -9 of a `stratum serve` process while client threads write notes through gRPC.

Every note the server acknowledged is there after a restart on the same store (get by id, search
by a word only it contains), and nothing half-written is ever returned: the log read by a fresh
reader holds only whole notes that some client sent, and a torn tail is reported as damage."""

from __future__ import annotations

import random
import threading
import time

import pytest

from serving.client import Client
from stratum import ids
from stratum import notes as N
from stratum.deltalog import DeltaLog, encode_record
from stratum.uids import new_uid
from stratum.errors import NotFound, StratumError
from tests.integration.test_experience_e2e import TIMEOUT, bench, make_workspace

pytestmark = pytest.mark.slow
ROUNDS = 3
WRITERS = 4
ACKS_PER_ROUND = (8, 24)       # the kill comes after a random number of acknowledgements in this range
TARGETS = ["shop/cart.py", "shop/pricing.py::discount", "shop/cart.py::Cart.total", "shop/invoice.py"]
PAD = "the cart total rounds twice after the discount; "          # 48 bytes


class Writers:
    """WRITERS threads, each on its own channel and session, writing notes until the server dies.
    ``acked``: note id -> (word, text) once remember returned; ``sent``: every text ever sent."""

    def __init__(self, address: str, tag: str, rng: random.Random):
        self.address, self.tag, self.rng = address, tag, rng
        self.acked: dict[str, tuple[str, str]] = {}
        self.sent: set[str] = set()
        self.failures: list[StratumError] = []
        self._lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run, args=(k,), daemon=True) for k in range(WRITERS)]

    def _note(self, k: int, i: int) -> tuple[str, str]:
        with self._lock:
            word = "zq" + "".join(self.rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(10))
            pad = PAD * self.rng.choice([0, 1, 4, 30, 120, 300])          # up to ~14 KiB: spans pages
        return word, f"{word}: crash round {self.tag}, writer {k}, note {i}. {pad}"

    def _run(self, k: int) -> None:
        with Client(self.address, timeout=TIMEOUT) as c:
            try:
                s = c.open_session(author=f"crash-writer-{k}").data["session"]
            except StratumError as e:
                self.failures.append(e)
                return
            for i in range(10_000):
                word, text = self._note(k, i)
                with self._lock:
                    self.sent.add(text)
                try:
                    nid = c.remember(s, "rca" if i % 2 else "insight", text, [TARGETS[(k + i) % len(TARGETS)]]
                                     ).data["note_id"]
                except StratumError as e:    # the server is gone: this note may or may not be durable
                    self.failures.append(e)
                    return
                with self._lock:
                    self.acked[nid] = (word, text)

    def start(self) -> None:
        for t in self.threads:
            t.start()

    def join(self) -> None:
        for t in self.threads:
            t.join(timeout=TIMEOUT)
            assert not t.is_alive()


def _check_log(store, sent: set[str], acked: dict) -> dict:
    """What a fresh reader of the log sees: whole notes only, every acknowledged one, damage reported."""
    scan = DeltaLog(store / "deltalog").scan()
    uids = [r.uid for r in scan.records]
    assert len(uids) == len(set(uids))
    for r in scan.records:
        assert r.type == "note"
        note = N.note_from_body(r.uid, r.body)
        assert note.text in sent and note.author.startswith(("crash-writer-", "warm")), note.text[:80]
    present = {ids.note_id(u) for u in uids}
    missing = set(acked) - present
    assert not missing, f"{len(missing)} acknowledged notes lost"
    sizes = {p.name: p.stat().st_size for p in DeltaLog(store / "deltalog").segments()}
    for d in scan.damage:          # the only damage a crash may leave: an unfinished last record
        assert d.reason == "torn_tail" and d.offset + d.length == sizes[d.segment], str(d)
    return {"records": len(uids), "unacked_durable": len(present - set(acked)), "torn_tails": len(scan.damage)}


def _tear(store, pid: int) -> dict:
    """Append the first half of a whole note record to the killed server's segment, as a crash in
    the middle of its write would leave it."""
    seg = next(p for p in DeltaLog(store / "deltalog").segments() if f"-{pid}-" in p.name)
    uid, word = new_uid(), "zqtornrecordword"
    body = N.note_body("insight", f"{word}: this note was never acknowledged", [], "crash-writer-x")
    data = encode_record(uid, "note", body)
    with open(seg, "ab") as f:
        f.write(data[: len(data) // 2])
    return {"id": ids.note_id(uid), "word": word, "segment": seg.name}


def _check_served(address: str, acked: dict, search_for: dict) -> None:
    """Through a restarted server: get by id returns the whole note; search finds it by its word."""
    with Client(address, timeout=TIMEOUT) as c:
        s = c.open_session(author="reader-model").data["session"]
        for nid, (_word, text) in acked.items():
            it = c.get(s, nid, level="full").items[0]
            assert it.id == nid and text.strip() in it.text
        for nid, (word, _text) in search_for.items():
            hits = c.search(s, word, kinds=["rca", "insight"], page_size=5).items
            assert nid in [h.id for h in hits], (word, [h.id for h in hits])


def test_kill_9_server_while_clients_write_keeps_every_acknowledged_note(indexed_store, tmp_path):
    ws = make_workspace(indexed_store, tmp_path)
    rng = random.Random(20261130)
    acked: dict[str, tuple[str, str]] = {}
    sent = {"warm-up note: loads the model"}
    rounds = []
    srv = ws.server("serve0").start()
    try:
        with Client(srv.address, timeout=TIMEOUT) as c:
            s = c.open_session(author="warm-up").data["session"]
            acked[c.remember(s, "insight", "warm-up note: loads the model", []).data["note_id"]] = \
                ("warm", "warm-up note: loads the model")
        for k in range(ROUNDS):
            t0 = time.perf_counter()
            w = Writers(srv.address, str(k), rng)
            target = rng.randint(*ACKS_PER_ROUND)
            w.start()
            deadline = time.time() + 60
            while len(w.acked) < target and time.time() < deadline and all(t.is_alive() for t in w.threads):
                time.sleep(0.005)
            srv.kill9()                                      # mid-stream: writers are still calling
            killed_at = len(w.acked)
            w.join()
            assert w.acked, f"no note acknowledged before the kill; server log:\n{srv.log()[-2000:]}"
            assert len(w.failures) == WRITERS                # each writer saw the server die
            acked.update(w.acked)
            sent |= w.sent
            if k == 1:     # make the tear a crash can leave: the dead server's segment ends mid-record
                torn = _tear(ws.store, srv.pid)
            log_state = _check_log(ws.store, sent, acked)

            t1 = time.perf_counter()
            srv = ws.server(f"serve{k + 1}").start()        # restart on the same store
            restart_s = time.perf_counter() - t1
            _check_served(srv.address, acked, w.acked)
            rounds.append({"round": k, "acked": len(w.acked), "acked_at_kill": killed_at,
                           "in_flight": len(w.sent) - len(w.acked), **log_state,
                           "restart_s": round(restart_s, 1), "round_s": round(time.perf_counter() - t0, 1)})
        with Client(srv.address, timeout=TIMEOUT) as c:
            s = c.open_session().data["session"]
            status = c.status(s).data["shards"][0]
            with pytest.raises(NotFound):                    # the torn note is never data
                c.get(s, torn["id"])
            assert torn["id"] not in [h.id for h in c.search(s, torn["word"], page_size=50).items]
        final = _check_log(ws.store, sent, acked)
        assert final["torn_tails"] >= 1 and status["unmerged_notes"] == final["records"]
        listed = ws.notes_cli("list")                        # the CLI reports the damage, lists no torn note
        assert any(torn["segment"] in d and "torn_tail" in d for d in listed["log_damage"])
        assert len(listed["notes"]) == final["records"] and torn["id"] not in {n["id"] for n in listed["notes"]}
        assert "damage skipped" in (tmp_path / "serve2.log").read_text()
    finally:
        srv.stop()
    assert "Traceback" not in "".join((tmp_path / f"serve{k}.log").read_text() for k in range(ROUNDS + 1))
    bench("server_kill9", rounds=rounds, acked_total=len(acked))
