"""A note written in a linked worktree about code the worktree had not committed says so, on every
surface: its target records ``uncommitted`` (``notes.Target``), set by the worktree session's
resolver from the overlay's dirty paths (``branchnotes.NoteScope``).

A probe (session 23, F7): in worktree fw an agent wrote a note about a new function ``bulk`` before
committing it. The target was recorded with the worktree's HEAD, so a session on main said
"pending: its code (shop/pricing.py::bulk) is on branch fw at <HEAD>", untrue of that commit (the
code is not in it), and the label read ``[branch fw at <HEAD>]``. Real repositories, the real index
job, overlay builder, Tools, CLI, a gRPC server on loopback and MCP."""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client as MCPClient

from pipeline.job import index_repository
from pipeline.overlay import builder
from serving.client import Client
from serving.mcp_server import build_server
from serving.server import serve
from stratum import notes as N
from stratum.config import EmbedConfig, IndexConfig
from stratum.deltalog import DeltaLog
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo, git

pytestmark = pytest.mark.slow

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
CART = ('"""Cart."""\n\n\nclass Cart:\n    """Cart."""\n\n    def add(self, name):\n        """Add."""\n'
        "        return name\n")
PRICING = ('"""Pricing."""\n\n\ndef discount(total, rate):\n    """Discount."""\n'
           "    return round(total * (1 - rate), 2)\n")
BULK = '\n\ndef bulk(n):\n    """Uncommitted."""\n    return n\n'
WRAP = '\n\ndef wrap(n):\n    """Committed."""\n    return n\n'


def _setup(tmp_path):
    """main indexed; worktree fw: ``wrap`` committed, ``bulk`` added and not committed, and one note
    about each, written in the worktree's session. Returns (repo, store, worktree, fw's HEAD, bulk's
    note, wrap's note)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART, "shop/pricing.py": PRICING})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", str(wt), "-b", "fw")
    (wt / "shop/wrap.py").write_text('"""Wrap."""' + WRAP)
    git(wt, "add", "-A")
    git(wt, "commit", "-qm", "fw: wrap")
    head = git(wt, "rev-parse", "HEAD").strip()
    (wt / "shop/pricing.py").write_text(PRICING + BULK)                # not committed
    t = _tools(store)
    sid = t.open_session(worktree=str(wt)).data["session"]
    bulk = t.remember(sid, "insight", "bulk is a batching helper", ["shop/pricing.py::bulk"]).data["note_id"]
    wrap = t.remember(sid, "insight", "wrap is committed", ["shop/wrap.py::wrap"]).data["note_id"]
    t.close()
    return r, store, wt, head, bulk, wrap


def _tools(store: str) -> Tools:
    return Tools.open([store], overlay_builder=builder(CFG))


def _said(backend, nid: str) -> tuple[list[str], str]:
    """(warnings, api text) of note NID's item in a session on the default branch."""
    s = backend.open_session(author="agent").data["session"]
    (item,) = backend.get(s, nid).items
    return list(item.warnings), item.text


def _mcp_said(open_backend, nid: str) -> tuple[list[str], str]:
    async def go():
        async with MCPClient(build_server(open_backend, author="agent", reload_interval=None)) as c:
            got = await c.call_tool("get", {"target": nid})
            assert not got.is_error, got.content
            return json.loads(got.content[0].text)
    (item,) = anyio.run(go)["items"]
    return list(item["warnings"]), item["note_text"]


def test_a_note_about_uncommitted_worktree_code_says_so_on_every_surface(tmp_path, capsys):
    _, store, _, head, bulk, wrap = _setup(tmp_path)
    where = f"uncommitted in a worktree of branch fw (at HEAD {head[:12]})"
    tools = _tools(store)
    server, port = serve(tools, port=0, reload_interval=None)
    client = Client(f"127.0.0.1:{port}", timeout=60)
    try:
        here, there = _said(tools, bulk), _said(client, bulk)
        mcp_here = _mcp_said(lambda: _tools(store), bulk)
        mcp_there = _mcp_said(lambda: Client(f"127.0.0.1:{port}", timeout=60), bulk)
        committed = _said(tools, wrap)
    finally:
        client.close()
        server.stop(None)
        tools.close()
    warnings, text = here
    assert f"pending: its code (shop/pricing.py::bulk) was {where} when the note was written" in warnings[0], warnings
    assert f"on branch fw at {head[:12]}" not in " ".join(warnings)
    assert f"shop/pricing.py::bulk [{where}]" in text, text
    assert here == there == mcp_here == mcp_there               # the same words on every surface
    # code the worktree had committed is on its branch at that commit, as before
    assert any(f"pending: its code (shop/wrap.py::wrap) is on branch fw at {head[:12]}" in w for w in committed[0])
    assert "uncommitted" not in " ".join(committed[0]) + committed[1]

    rc, out, err = run(capsys, "notes", "show", bulk, "--store", store)
    assert rc == 0, err
    assert f"shop/pricing.py::bulk [{where}]" in out and f"was {where} when the note was written" in out, out
    rc, out, err = run(capsys, "notes", "list", "--store", store)
    assert rc == 0, err
    assert f"shop/pricing.py::bulk [{where}]" in out and f"shop/wrap.py::wrap [branch fw at {head[:12]}]" in out, out


def test_the_flag_is_in_the_log_record_and_old_records_read_as_before(tmp_path):
    _, store, _, head, bulk, wrap = _setup(tmp_path)
    bodies = {N.note_from_body(r.uid, r.body).id: r.body for r in DeltaLog(f"{store}/deltalog").scan().records
              if r.type == "note"}
    (b,), (w,) = bodies[bulk]["about"], bodies[wrap]["about"]
    assert b["uncommitted"] is True and b["branch"] == "fw" and b["branch_commit"] == head
    assert "uncommitted" not in w                               # stored as before when false
    assert N.note_from_body("x", bodies[bulk]).about[0].uncommitted
    old = N.note_from_body("x", bodies[wrap]).about[0]          # a record written before the field
    assert not old.uncommitted and old.label() == f"shop/wrap.py::wrap [branch fw at {head[:12]}]"
    landed = N.Target(**{**b, "branch": "", "branch_commit": ""})   # a merge dropped the marks
    assert "uncommitted" not in landed.to_dict() and landed.label() == "shop/pricing.py::bulk"


def test_committed_merged_and_reindexed_the_note_lands(tmp_path):
    r, store, wt, _, bulk, _ = _setup(tmp_path)
    git(wt, "commit", "-qam", "fw: bulk")
    git(r.path, "merge", "-q", "--no-ff", "-m", "merge fw", "fw")
    index_repository(r.path, store, CFG)
    t = _tools(store)
    main = t.open_session().data["session"]
    (item,) = t.get(main, "shop/pricing.py::bulk").items
    assert {n["id"]: n["stale"] for n in item.notes} == {bulk: False}
    (note,) = t.get(main, bulk).items
    assert not [w for w in note.warnings if w.startswith(("pending", "stale"))], note.warnings
    assert "uncommitted" not in note.text and "[branch" not in note.text, note.text
    t.close()


def test_a_branch_that_moved_on_without_it_says_it_was_never_committed(tmp_path):
    _, store, wt, head, bulk, _ = _setup(tmp_path)
    (wt / "shop/pricing.py").write_text(PRICING)                # bulk dropped, never committed
    (wt / "shop/cart.py").write_text(CART.replace("return name", "return name.strip()"))
    git(wt, "commit", "-qam", "fw: strip")
    t = _tools(store)
    fw = t.open_session(branch="fw").data["session"]
    stale = [w for w in t.get(fw, bulk).items[0].warnings if w.startswith("stale")]
    assert stale and "is not on branch fw: it was uncommitted work in a worktree" in stale[0], stale
    assert "no longer exists" not in stale[0]
    t.close()


def test_a_note_about_an_uncommitted_edit_of_default_branch_code_says_so(tmp_path):
    _, store, wt, head, _, _ = _setup(tmp_path)
    (wt / "shop/cart.py").write_text(CART.replace("return name", "return name.strip()"))
    t = _tools(store)
    sid = t.open_session(worktree=str(wt)).data["session"]
    nid = t.remember(sid, "rca", "add strips names", ["shop/cart.py::Cart.add"]).data["note_id"]
    main = t.open_session().data["session"]
    said = t.get(main, nid).items[0].warnings
    where = f"uncommitted in a worktree of branch fw (at HEAD {head[:12]})"
    assert any(w.startswith(f"written about the version of shop/cart.py::Cart.add {where}: the default "
                            "branch's differs") for w in said), said
    assert not [w for w in said if w.startswith("stale")], said
    t.close()


def test_a_note_written_in_the_main_checkout_about_its_uncommitted_code_says_so(tmp_path, capsys, monkeypatch):
    """The CLI in the main checkout (no session option): a note about a function not committed yet
    read "[branch main at <HEAD>]", a commit without that code (``checkoutnotes`` dropped the
    overlay's dirty paths)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": PRICING})
    head = git(r.path, "rev-parse", "HEAD").strip()
    assert run(capsys, "index", str(r.path), "--no-embed", "--no-ray")[0] == 0
    (r.path / "shop/pricing.py").write_text(PRICING + BULK)                # not committed
    monkeypatch.chdir(r.path)
    rc, out, err = run(capsys, "remember", "insight", "bulk batches orders", "--about", "shop/pricing.py::bulk")
    assert rc == 0, err
    rc, out, err = run(capsys, "notes", "list")
    assert rc == 0, err
    assert f"shop/pricing.py::bulk [uncommitted in a worktree of branch main (at HEAD {head[:12]})]" in out, out
    assert f"[branch main at {head[:12]}]" not in out, out
