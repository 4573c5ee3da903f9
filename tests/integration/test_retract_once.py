"""A note is retracted once, whoever asks and however many ask at once (a probe: the CLI refused a
retract of a retracted note while gRPC wrote another tombstone each time; 4 concurrent retracts by
two identities all succeeded, 5 records). A real repository, the real index job, two real gRPC
servers with tokens on loopback serving one store (replicas), and the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from serving.auth import ServerSecurity, TokenFile
from serving.client import Client
from serving.server import serve
from stratum import errors as E
from stratum.deltalog import DeltaLog

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
TOKENS = {"alice": "alice-token-4d1e8a0c7b23", "bob": "bob-token-93f2c6a1e8d0"}


@pytest.fixture(scope="module")
def replicas(tmp_path_factory):
    """(store, the addresses of two servers on it): bob writes notes, alice is a maintainer."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    tmp = tmp_path_factory.mktemp("retractonce")
    r = Repo(tmp / "repo")
    r.commit("initial", {"pkg/pool.py": "def acquire(p):\n    return p.pop()\n\n\n"
                                        "def release(p, c):\n    p.append(c)\n"})
    store = tmp / "store"
    index_repository(r.path, store, IndexConfig(num_cpus=1, ray=False))
    tokens = tmp / "tokens"
    tokens.write_text(f"{TOKENS['alice']} alice maintainer\n{TOKENS['bob']} bob\n")
    os.chmod(tokens, 0o600)
    running = []
    for _ in range(2):
        tools = Tools.open([str(store)])
        server, port = serve(tools, port=0, reload_interval=None, security=ServerSecurity(tokens=TokenFile(tokens)))
        running.append((server, tools, f"127.0.0.1:{port}"))
    yield store, [addr for _, _, addr in running]
    for server, tools, _ in running:
        server.stop(None)
        tools.close()


def _client(addr: str, who: str) -> tuple[Client, str]:
    c = Client(addr, timeout=60, token=TOKENS[who])
    return c, c.open_session().data["session"]


def _tombstones(store: Path, nid: str) -> int:
    return sum(1 for r in DeltaLog(store / "deltalog").scan().records if r.type == "retract" and r.body["note"] == nid)


def _cli_retract(store: Path, nid: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratum.cli", "notes", "retract", nid, "--store", str(store)],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=300)


def _note(addr: str, text: str) -> str:
    c, s = _client(addr, "bob")
    with c:
        return c.remember(s, "insight", text, ["pkg/pool.py::acquire"]).data["note_id"]


def test_a_retracted_note_is_not_retracted_again_by_grpc_or_the_cli(replicas):
    store, (one, two) = replicas
    nid = _note(one, "the pool hands out a closed connection when acquire races release")
    (bob, sb), (alice, sa) = _client(one, "bob"), _client(two, "alice")
    with bob, alice:
        assert bob.retract(sb, nid, "wrong").data["note_id"] == nid
        for c, s in ((bob, sb), (alice, sa)):       # the author again; a maintainer on the other replica
            with pytest.raises(E.NoteRejected, match="already retracted"):
                c.retract(s, nid, "again")
    p = _cli_retract(store, nid)
    assert p.returncode == 2 and "already retracted" in p.stderr, p.stderr
    assert _tombstones(store, nid) == 1

    other = _note(two, "release appends a connection the pool already holds")
    assert _cli_retract(store, other).returncode == 0       # the CLI first: gRPC refuses after it
    with Client(one, timeout=60, token=TOKENS["alice"]) as alice:
        with pytest.raises(E.NoteRejected, match="already retracted"):
            alice.retract(alice.open_session().data["session"], other)
    assert _tombstones(store, other) == 1


def test_concurrent_retracts_on_two_replicas_write_one_tombstone(replicas):
    store, addrs = replicas
    nid = _note(addrs[0], "acquire pops from the wrong end of the pool under load")
    callers = [_client(addrs[i % 2], who) for i, who in enumerate(["bob", "alice", "bob", "alice"] * 2)]
    start, results = threading.Barrier(len(callers)), []

    def retract(c: Client, s: str) -> None:
        start.wait()
        try:
            c.retract(s, nid, "withdrawn")
            results.append("ok")
        except E.NoteRejected as err:
            results.append(str(err))

    threads = [threading.Thread(target=retract, args=cs) for cs in callers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for c, _ in callers:
        c.close()
    assert results.count("ok") == 1 and all("already retracted" in r for r in results if r != "ok"), results
    assert _tombstones(store, nid) == 1
