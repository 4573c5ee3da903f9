"""A C++ header's declaration and its .cc's out-of-line definition as a pair, on a real repository
through the real index: a test of the header tests the .cc implementing it (a ``tests`` edge, ``by:
"header"``), and a note about either shows on the other, said as about it, counted once per answer,
in process, over gRPC, through MCP and from the CLI alike. A poly-language probe on leveldb: `walk
db/db_impl.cc --edge tests --direction in` gave nothing though db/db_test.cc tests db/db_impl.h, and
a failure note about ``db/db_impl.cc::leveldb.DBImpl.Write`` did not show on the header's
declaration."""

from __future__ import annotations

import json

import anyio
import pytest

from serving.client import Client
from serving.server import serve
from stratum import tokens
from stratum.tools import Tools
from tests.clirun import indexed_repo, run

pytestmark = pytest.mark.slow


def _lines_of(*lines: str) -> str:
    return "\n".join(lines) + "\n"


FILES = {
    "src/store.h": _lines_of("#pragma once", "namespace shop {", "class Store {", " public:", "  int Add(int k);",
                             "  int Size();", "};", "}  // namespace shop"),
    "src/store.cc": _lines_of('#include "store.h"', "namespace shop {", "int Store::Add(int k) { return k + Size(); }",
                              "int Store::Size() { return 0; }", "}  // namespace shop"),
    # includes the header but is no source of it (another stem): no test of the header tests it
    "src/other.cc": _lines_of('#include "store.h"', "int Twice(shop::Store* s) { return s->Add(2); }"),
    # a test by its name of nothing ("shop"): it tests the header by its include alone
    "src/shop_test.cc": _lines_of('#include "store.h"', "int main() {", "  shop::Store s;", "  return s.Add(1);", "}"),
    # overloads defined in the other order than declared: Put#2 of the header is not Put#2 of the .cc
    "src/box.h": _lines_of("#pragma once", "namespace shop {", "class Box {", " public:", "  void Put(int k);",
                           "  void Put(const char* s);", "};", "}  // namespace shop"),
    "src/box.cc": _lines_of('#include "box.h"', "namespace shop {", "void Box::Put(const char* s) {}",
                            "void Box::Put(int k) {}", "}  // namespace shop"),
}
ADD_CC, ADD_H = "src/store.cc::shop.Store.Add", "src/store.h::shop.Store.Add"
SIZE_CC, SIZE_H = "src/store.cc::shop.Store.Size", "src/store.h::shop.Store.Size"
FAILURE, INSIGHT = "tried caching Add; broke Size", "Size is constant time"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """(Tools, the store's path, the two notes' ids): a failure note about the .cc's definition of
    Add, an insight about the header's declaration of Size."""
    _repo, store = indexed_repo(tmp_path_factory.mktemp("s33pairs") / "repo", FILES)
    t = Tools.open([store])
    sid = t.open_session(author="agent").data["session"]
    failure = t.remember(sid, "failure", FAILURE, [ADD_CC]).data["note_id"]
    insight = t.remember(sid, "insight", INSIGHT, [SIZE_H]).data["note_id"]
    yield t, store, failure, insight
    t.close()


def _session(t: Tools) -> str:
    return t.open_session(author="reader").data["session"]


def _lines(item) -> list[str]:
    return [n["line"] for n in item.notes]


def test_a_test_of_a_header_tests_the_source_implementing_it(indexed):
    t = indexed[0]
    s = _session(t)
    (it,) = t.walk(s, "src/store.cc", ["tests"], "in").items
    assert (it.path, it.edge, it.direction) == ("src/shop_test.cc", "tests", "in")
    assert it.meta["by"] == "header" and it.meta["header"] == "src/store.h"
    (it,) = t.walk(s, "src/store.h", ["tests"], "in").items
    assert (it.path, it.meta["by"]) == ("src/shop_test.cc", "import")
    assert t.walk(s, "src/other.cc", ["tests"], "in").items == []      # includes it, another stem
    out = t.walk(s, "src/shop_test.cc", ["tests"]).items
    assert sorted(i.path for i in out) == ["src/store.cc", "src/store.h"]


def test_a_note_about_a_definition_shows_on_its_declaration_and_back(indexed):
    t, _, failure, insight = indexed
    s = _session(t)
    r = t.get(s, ADD_H, level="full")
    (it,) = r.items
    assert [n["id"] for n in it.notes] == [failure] and it.meta["notes_total"] == 1
    assert f"failure note {failure} (" in it.notes[0]["line"]
    assert it.notes[0]["line"].endswith(f') on its definition {ADD_CC}: "{FAILURE}"')
    # counted in the budget as the item's own notes are
    assert it.tokens == tokens.count(it.text) + it.notes[0]["tokens"] and it.notes[0]["tokens"] > 0
    assert r.envelope.tokens_returned == it.tokens
    # on its own node: as before, no "on"
    (own,) = t.get(s, ADD_CC).items
    assert _lines(own) == [own.notes[0]["line"]] and f") on " not in own.notes[0]["line"]
    # the other way: the declaration's note on the definition
    (it,) = t.get(s, SIZE_CC).items
    assert [n["id"] for n in it.notes] == [insight]
    assert it.notes[0]["line"].endswith(f') on its declaration {SIZE_H}: "{INSIGHT}"')
    # a walk's items carry them too
    got = {i.qualname: _lines(i) for i in t.walk(s, "src/store.h::shop.Store", ["contains"]).items}
    assert len(got["shop.Store.Add"]) == 1 and f"on its definition {ADD_CC}" in got["shop.Store.Add"][0]
    assert len(got["shop.Store.Size"]) == 1 and " on " not in got["shop.Store.Size"][0]


def test_an_answer_holding_both_counts_each_note_once(indexed):
    """A traceback through the header's inline frame and the .cc's: both are items that carry their
    notes; the failure note is the definition's, served once."""
    t, _, failure, _ = indexed
    bt = ("#0  shop::Store::Add (this=0x1, k=1) at src/store.cc:3\n"
          "#1  0x0000555 in shop::Store::Add (k=1) at src/store.h:5\n"
          "#2  0x0000555 in main () at src/shop_test.cc:4\n")
    items = t.search(_session(t), bt).items
    lead = {f"{i.path}::{i.qualname}": i for i in items if i.why.startswith("traceback frame")}
    assert {ADD_CC, ADD_H} <= set(lead)
    carried = [n for i in items for n in i.notes if n["id"] == failure]
    assert len(carried) == 1 and " on " not in carried[0]["line"]
    assert _lines(lead[ADD_CC]) == [carried[0]["line"]] and lead[ADD_H].notes == []


def test_grpc_mcp_and_the_cli_carry_it_alike(indexed, capsys):
    from mcp import Client as MCPClient

    from serving.mcp_server import build_server

    t, store, failure, _ = indexed
    (local,) = t.get(_session(t), ADD_H).items
    want = local.notes[0]["line"]
    assert f"on its definition {ADD_CC}" in want
    server, port = serve(t, port=0, reload_interval=None)
    try:
        with Client(f"127.0.0.1:{port}", timeout=30) as c:
            (over,) = c.get(c.open_session(author="wire").data["session"], ADD_H).items
    finally:
        server.stop(None)
    assert over.notes == local.notes and over.tokens == local.tokens

    async def mcp_get():
        async with MCPClient(build_server(lambda: Tools.open([store]), author="mcp-pairs")) as client:
            return json.loads((await client.call_tool("get", {"target": ADD_H})).content[0].text)

    (item,) = anyio.run(mcp_get)["items"]
    assert [n["note_text"] for n in item["notes"]] == [want] and item["tokens"] == local.tokens    # MCP's name
    rc, out, err = run(capsys, "get", ADD_H, "--store", store, "--json")
    assert rc == 0, err
    (item,) = json.loads(out)["items"]
    assert [n["id"] for n in item["notes"]] == [failure] and item["notes"][0]["line"] == want
    rc, out, _ = run(capsys, "get", ADD_H, "--store", store)
    assert rc == 0 and f"on its definition {ADD_CC}" in out and FAILURE in out


def test_overloads_do_not_share_notes(indexed):
    """A re-probe: the .cc defined Put(const char*) before Put(int), the header declared them the other
    way, and a note on the .cc's Put(int) (``Put#2`` there) showed on the header's ``Put#2``, the
    const char* overload. Overloads never pair; a note stays on its own node."""
    t = indexed[0]
    s = _session(t)
    (cc,) = t.get(s, "src/box.cc::shop.Box.Put#2").items
    assert "int k" in cc.text
    nid = t.remember(s, "failure", "Put(int) drops negative keys", ["src/box.cc::shop.Box.Put#2"]).data["note_id"]
    for target in ("src/box.h::shop.Box.Put", "src/box.h::shop.Box.Put#2", "src/box.cc::shop.Box.Put"):
        (it,) = t.get(_session(t), target).items
        assert nid not in [n["id"] for n in it.notes], target
    (own,) = t.get(_session(t), "src/box.cc::shop.Box.Put#2").items
    assert [n["id"] for n in own.notes] == [nid]
