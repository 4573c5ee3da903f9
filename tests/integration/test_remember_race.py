"""Identical notes written at the same moment by threads of one process leave one note: gRPC serves
each request on a thread, and an agent fleet retries a write that timed out while the first is still
running. On a real indexed git repository, through the overlay and through the tools."""

from __future__ import annotations

import shutil
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.slow

THREADS = 8
ROUNDS = 10
TARGET = "shop/pricing.py::price_of"


@pytest.fixture()
def store(indexed_store, tmp_path):
    copy = tmp_path / "store"
    shutil.copytree(indexed_store[1], copy, ignore=shutil.ignore_patterns("deltalog"))
    return copy


def _at_once(n: int, call) -> list:
    """``call(i)`` on n threads released together (a barrier right before the call: they race)."""
    gate = threading.Barrier(n)

    def run(i):
        gate.wait()
        return call(i)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(run, range(n)))


def _overlay(store):
    from stratum.overlay import NotesOverlay
    from stratum.shard import Shard
    from stratum.store import Store

    return NotesOverlay(Shard(Store(store)))


def _remember(ov, text: str, author: str = "agent-a") -> tuple[str, bool]:
    return ov.remember_or_found(kind="rca", text=text, about=[TARGET], tags=[], supersedes=[],
                                author=author, session=f"s-{author}")


def _logged(ov, text: str) -> list[str]:
    return [r.uid for r in ov.log.scan().records if r.type == "note" and r.body["text"] == text]


def test_identical_writes_at_once_leave_one_note(store):
    ov = _overlay(store)
    for k in range(ROUNDS):
        text = f"price_of raises KeyError for unknown SKUs (round {k})"
        got = _at_once(THREADS, lambda i: _remember(ov, text))
        ids = {nid for nid, _ in got}
        assert len(ids) == 1, f"round {k}: {len(ids)} notes for one finding"
        assert sum(written for _, written in got) == 1, f"round {k}: {got}"
        assert [n.id for n in ov.notes.values() if n.text == text] == list(ids)
        assert len(_logged(ov, text)) == 1


def test_different_writes_at_once_are_all_written(store):
    """The write lock keeps identical writes apart, not different ones: every author's note is written."""
    ov = _overlay(store)
    text = "price_of should answer an unknown SKU with a clear error, not a bare KeyError"
    got = _at_once(THREADS, lambda i: _remember(ov, text, author=f"agent-{i}"))
    assert all(written for _, written in got) and len({nid for nid, _ in got}) == THREADS
    assert len(_logged(ov, text)) == THREADS


def test_identical_remembers_through_the_tools_answer_one_note(store):
    """As concurrent requests of one server see it: one answer without a warning, the others name it."""
    from stratum.tools import Tools

    t = Tools.open([str(store)])
    try:
        sessions = [t.open_session(author="agent-t").data["session"] for _ in range(THREADS)]
        text = "price_of KeyError: the PRICES table lacks the SKU, not the caller"
        got = _at_once(THREADS, lambda i: t.remember(sessions[i], "failure", text, about=[TARGET]))
        ids = {r.data["note_id"] for r in got}
        assert len(ids) == 1
        nid = ids.pop()
        assert sum(not r.envelope.warnings for r in got) == 1
        assert sum(any("identical" in w and nid in w for w in r.envelope.warnings) for r in got) == THREADS - 1
        assert [i.id for i in t.walk(sessions[0], TARGET, ["notes"]).items if i.id == nid] == [nid]
    finally:
        t.close()


PROCESSES = 3


def _write_in_a_process(store: str, texts: list[str], gate, out) -> None:
    """One server replica on the same store: its own overlay and log segment; each round starts
    with the other processes' (a barrier right before the call)."""
    ov = _overlay(store)
    for text in texts:
        gate.wait(timeout=120)
        out.put(_remember(ov, text))


def test_identical_writes_from_several_processes_leave_one_note(store):
    """Replicas serving one store (a client's retry may reach another one) write through their own
    log segments; an identical note written by two of them at once is still written once."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")       # lance is not fork-safe
    texts = [f"price_of caches a stale SKU table across reloads (round {k})" for k in range(ROUNDS)]
    gate, out = ctx.Barrier(PROCESSES), ctx.Queue()
    procs = [ctx.Process(target=_write_in_a_process, args=(str(store), texts, gate, out), daemon=True)
             for _ in range(PROCESSES)]
    try:
        for p in procs:
            p.start()
        got = [out.get(timeout=120) for _ in range(PROCESSES * ROUNDS)]
        for p in procs:
            p.join(timeout=60)
            assert p.exitcode == 0
    finally:                            # a child that failed must not keep the run waiting
        for p in procs:
            if p.is_alive():
                p.terminate()
    ov = _overlay(store)
    for text in texts:
        assert len(_logged(ov, text)) == 1, text
    assert sum(written for _, written in got) == ROUNDS
    assert len({nid for nid, _ in got}) == ROUNDS


def test_a_plain_write_extends_the_look_up_of_identical_notes(store):
    """``remember`` finds a copy by a map of the notes (author, kind, text); a write that changes no
    other note's state extends it for the new notes dict instead of leaving it to a rebuild (a pass
    over every note, what each remember paid before)."""
    ov = _overlay(store)
    first, _ = _remember(ov, "price_of rounds before it converts the currency")
    second, written = _remember(ov, "price_of ignores the SKU's discount tier")
    assert written and ov._same[0] is ov.notes            # extended by the fold of the second write
    assert _remember(ov, "price_of rounds before it converts the currency") == (first, False)
