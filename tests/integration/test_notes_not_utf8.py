"""A byte that is not UTF-8 in a note, on a real index of a real git repository: Python hands a
command-line byte over as a lone surrogate (``caf\\xe9`` -> ``"caf\\udce9"``), JSON may spell one
(``"\\ud800"``), and none can be stored in Lance or sent by gRPC or MCP. A probe found one accepted
by `remember`, after which every re-index failed for good. Text keeps its finding (U+FFFD for the
byte); a name or tag is refused; a record an older build wrote is read as U+FFFD, so the store
indexes again and serves it, every other note kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from serving.client import Client
from serving.server import serve
from stratum import ids
from stratum.cli import main
from stratum.deltalog import DeltaLog
from stratum.errors import InvalidArgument, NoteRejected
from stratum.notes import session_label
from stratum.store import Store
from stratum.tools import Tools
# the probe tests' CLI fixtures: the sample repository indexed once, a private store copy each test
from tests.integration.test_notes_probe_mends import indexed, run, store  # noqa: F401

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
CAFE = "caf\udce9"          # what the CLI receives for the bytes caf\xe9


def reindex(capsys, repo, store, *flags) -> dict:
    rc, out, err = run(capsys, "index", str(repo.path), "--store", str(store), "--no-embed", "--json", *flags)
    assert rc == 0, err
    return json.loads(out)


def records(store) -> list:
    return DeltaLog(Path(store) / "deltalog").scan().records


def test_a_non_utf8_byte_in_note_text_is_stored_as_u_fffd_and_the_store_indexes_again(indexed, store, capsys):
    repo, _ = indexed
    # the probe's command, as a shell runs it: the argument holds the byte 0xE9
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "remember", "insight", b"log said caf\xe9 failed",
                        "--about", "shop/cart.py", "--store", str(store), "--json"],
                       cwd=ROOT, env=env, capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    nid = json.loads(p.stdout)["data"]["note_id"]
    (rec,) = records(store)
    assert rec.body["text"] == "log said caf\ufffd failed"
    # the same through the library, with JSON's lone surrogate (an MCP or gRPC caller's text)
    t = Tools.open([str(store)])
    try:
        sid = t.open_session(author="agent").data["session"]
        other = t.remember(sid, "rca", "totals \ud800 drift when the coupon is empty", ["shop/cart.py"]).data["note_id"]
    finally:
        t.close()
    # a retract reason with the byte was a traceback (its size was measured by encoding it)
    rc, _, err = run(capsys, "notes", "retract", other, "--reason", f"wrong: {CAFE}", "--store", str(store))
    assert rc == 0, err

    report = reindex(capsys, repo, store)
    assert report["notes"]["by_status"] == {"active": 1, "retracted": 1}
    nodes = {r["id"]: r for r in Store(store).snapshot().read("nodes", columns=["id", "doc", "meta"],
                                                               where="kind IN ('insight', 'rca')").to_pylist()}
    assert nodes[nid]["doc"] == "log said caf\ufffd failed"
    assert nodes[other]["doc"] == "totals \ufffd drift when the coupon is empty"
    assert json.loads(nodes[other]["meta"])["retraction"]["reason"] == "wrong: caf\ufffd"
    t = Tools.open([str(store)])
    try:
        sid = t.open_session(author="reader").data["session"]
        assert "log said caf\ufffd failed" in t.get(sid, nid, level="full").items[0].text
        assert nid in [it.id for it in t.search(sid, "log said caf failed", kinds=["insight"]).items]
    finally:
        t.close()
    reindex(capsys, repo, store, "--full")


@pytest.mark.parametrize("flag, value, what", [
    ("--tag", CAFE, "tag 'caf\\xe9'"),
    ("--author", "bob\udce9", "author 'bob\\xe9'"),
    ("--about", f"shop/{CAFE}.py", "target 'shop/caf\\xe9.py'"),
])
def test_a_non_utf8_byte_in_a_name_tag_or_target_is_refused_from_the_cli(store, capsys, flag, value, what):
    """Matched exactly (trust, ownership, tag filters): replacing the byte would make bob\\xe9 and
    bob\\xe8 one author, so the writer is told to fix the encoding, and nothing is written."""
    argv = ["remember", "insight", "a finding", "--store", str(store), flag, value]
    if flag != "--about":
        argv += ["--about", "shop/cart.py"]
    rc, _out, err = run(capsys, *argv)
    assert rc == 2 and what in err and "not valid UTF-8" in err, err
    assert records(store) == []


def test_a_lone_surrogate_in_a_name_or_tag_is_refused_through_the_tools(store):
    """MCP and gRPC call the same tools: JSON's "\\ud800" is refused as the CLI's byte is."""
    t = Tools.open([str(store)])
    try:
        with pytest.raises(InvalidArgument, match="author '.*' holds a byte that is not valid UTF-8"):
            t.open_session(author="bob\ud800")
        with pytest.raises(InvalidArgument, match="model '.*' holds a byte that is not valid UTF-8"):
            t.open_session(author="bob", model="m\udfff")
        sid = t.open_session(author="agent").data["session"]
        for kw in ({"tags": ["ok", "t\ud800"]}, {"about": ["shop/cart.py\udce9"]},
                   {"supersedes": ["n\ud800"]}):
            args = {"about": ["shop/cart.py"], **kw}
            with pytest.raises(NoteRejected, match="not valid UTF-8") as ei:
                t.remember(sid, "insight", "a finding", **args)
            assert ei.value.code == "note_rejected"
    finally:
        t.close()
    assert records(store) == []


def test_a_record_an_older_build_wrote_is_served_cleaned_and_every_note_kept(indexed, store, capsys):
    """The probe's store: `index` failed on every run (Arrow: surrogates not allowed), gRPC answered
    INTERNAL; retracting the note or `index --full` changed nothing. Written here as such a build
    wrote it: straight to the delta log, past today's validation."""
    repo, _ = indexed
    (cart,) = Store(store).snapshot().read("nodes", columns=["id", "content_hash"],
                                           where="path = 'shop/cart.py' AND kind = 'file'").to_pylist()
    rc, out, err = run(capsys, "remember", "rca", "the cart sums lines before discounts", "--about", "shop/cart.py",
                       "--store", str(store), "--json")
    assert rc == 0, err
    good = json.loads(out)["data"]["note_id"]
    log = DeltaLog(Path(store) / "deltalog")
    uid = log.append("note", {
        "kind": "insight", "text": f"log said {CAFE} failed \ud800",
        "about": [{"given": f"shop/cart.py{CAFE}", "node_id": cart["id"], "content_hash": cart["content_hash"],
                   "path": "shop/cart.py", "qualname": "", "kind": "file"}],
        "author": "bob\udce9", "session": "s\udce9", "tags": [CAFE], "supersedes": [],
        "created_at": "2024-06-01T12:00:00+00:00", "model": "m\udce9", "authenticated": False,
        "commit": None, "maintainer": False})
    log.seal()
    bad = ids.note_id(uid)
    rc, out, err = run(capsys, "notes", "list", "--json", "--store", str(store))
    assert rc == 0, err
    assert {n["id"] for n in json.loads(out)["notes"]} == {good, bad}

    def served(t: Tools) -> None:
        sid = t.open_session(author="reader").data["session"]
        item = t.get(sid, bad, level="full").items[0]
        assert "log said caf\ufffd failed \ufffd" in item.text and item.provenance["author"] == "bob\ufffd"
        notes = t.get(sid, "shop/cart.py").items[0].notes
        assert {n["id"] for n in notes} >= {good, bad}
        server, port = serve(t, port=0, reload_interval=None)        # the probe's INTERNAL: a real channel
        try:
            with Client(f"127.0.0.1:{port}", timeout=30) as c:
                s = c.open_session(author="reader").data["session"]
                assert "caf\ufffd" in c.get(s, bad, level="full").items[0].text
                assert bad in [it.id for it in c.search(s, "log said caf failed", kinds=["insight"]).items]
                c.walk(s, "shop/cart.py")
        finally:
            server.stop(None)

    t = Tools.open([str(store)])        # unmerged: the overlay reads the log
    try:
        served(t)
    finally:
        t.close()
    report = reindex(capsys, repo, store)
    assert report["notes"]["by_status"] == {"active": 2}
    rows = {r["id"]: r for r in Store(store).snapshot().read(
        "nodes", columns=["id", "doc", "author", "session", "tags", "meta"], where="kind IN ('insight', 'rca')"
    ).to_pylist()}
    assert set(rows) == {good, bad}
    assert rows[bad]["doc"] == "log said caf\ufffd failed \ufffd"
    assert (rows[bad]["author"], rows[bad]["session"], rows[bad]["tags"]) == ("bob\ufffd", session_label("s\ufffd"), ["caf\ufffd"])
    meta = json.loads(rows[bad]["meta"])
    assert meta["model"] == "m\ufffd" and meta["about"][0]["given"] == "shop/cart.py" + "caf\ufffd"
    t = Tools.open([str(store)])        # merged: read from Lance
    try:
        served(t)
    finally:
        t.close()
    reindex(capsys, repo, store, "--full")
