"""`get` of a line range, and a `path:LINE` target, on a real index of a real git repository: the
tool in-process, over a real gRPC server on port 0, through the MCP adapter and from the CLI.

An agent with a traceback line number needs those lines, not the whole file (probe: a `get --level
full` of a 3,094-line file cost 25,470 tokens)."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import grpc
import pytest

from serving._gen import stratum_pb2 as pb
from serving._gen import stratum_pb2_grpc as pb_grpc
from serving.client import Client
from serving.server import serve
from stratum import errors as E
from stratum import tokens
from stratum.tools import Tools
from tests.gitrepo import indexed_tools
from tests.integration.test_branch_overlay import branched  # noqa: F401  (the fixture)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tools(indexed_store):
    t = Tools.open([str(indexed_store[1])])
    yield t
    t.close()


@pytest.fixture(scope="module")
def cart_lines(indexed_store) -> list[str]:
    """shop/cart.py as committed (the index is at HEAD), one entry per line (1-based: [n - 1])."""
    return (indexed_store[0] / "shop" / "cart.py").read_text().split("\n")[:-1]


def _session(tools, budget=20000):
    return tools.open_session(author="lines", budget=budget).data["session"]


def test_a_line_range_serves_those_lines_counted_and_stated(tools, cart_lines):
    s = _session(tools)
    whole = tools.get(_session(tools), "shop/cart.py", "full").items[0]
    r = tools.get(s, "shop/cart.py", lines="13-15")
    it = r.items[0]
    assert it.text == "\n".join(cart_lines[12:15]) and it.text.lstrip().startswith("def add")
    assert (it.kind, it.path, it.level, it.start_line, it.end_line) == ("file", "shop/cart.py", "full", 13, 15)
    assert it.meta["lines"] == "13-15" and it.meta["lines_total"] == len(cart_lines) == 19
    assert it.tokens == tokens.count(it.text) + sum(n["tokens"] for n in it.notes)
    assert it.tokens < whole.tokens
    e = r.envelope
    assert (e.returned, e.has_more, e.tokens_returned, e.budget.used) == (1, False, it.tokens, it.tokens)
    # the same range again is already in context; the whole file at full level is an entry of its own
    assert tools.get(s, "shop/cart.py", lines="13-15").envelope.budget.used == it.tokens
    full = tools.get(s, "shop/cart.py", "full")
    assert full.envelope.budget.used == it.tokens + full.items[0].tokens
    keys = {e["node_id"] for e in tools.status(s).data["session"]["entries"]}
    assert f"{it.id}#L13-15" in keys and it.id in keys
    # one line; to the end
    one = tools.get(s, "shop/cart.py", lines="14").items[0]
    assert (one.text, one.start_line, one.end_line) == (cart_lines[13], 14, 14)
    tail = tools.get(s, "shop/cart.py", lines=" 17 - ").items[0]
    assert tail.text == "\n".join(cart_lines[16:]) and (tail.start_line, tail.end_line) == (17, 19)
    assert not tail.warnings


def test_a_symbols_range_is_clipped_to_its_lines_and_says_so(tools, cart_lines):
    s = _session(tools)
    it = tools.get(s, "shop/cart.py::Cart.total", lines="15-40").items[0]
    assert (it.qualname, it.start_line, it.end_line) == ("Cart.total", 17, 19)
    assert it.text == "\n".join(cart_lines[16:19])
    assert it.meta == {**it.meta, "lines": "17-19", "lines_total": 19, "node_lines": "17-19"}
    assert it.warnings == ["lines 15-40 asked; shop/cart.py::Cart.total spans lines 17-19: served 17-19"]
    part = tools.get(s, "shop/cart.py::Cart.total", lines="18-18").items[0]
    assert part.text == cart_lines[17] and not part.warnings


@pytest.mark.parametrize("target, lines, message", [
    ("shop/cart.py", "abc", "lines must be START-END"),
    ("shop/cart.py", "-5", "lines must be START-END"),
    ("shop/cart.py", "1-2-3", "lines must be START-END"),
    ("shop/cart.py", "5-3", "the end comes before the start"),
    ("shop/cart.py", "0-3", "line numbers start at 1"),
    ("shop/cart.py", "40-50", "outside shop/cart.py, which has 19 lines"),
    ("shop/cart.py::Cart.total", "1-3", "outside shop/cart.py::Cart.total, which spans lines 17-19 of 19"),
    ("shop", "1-2", "lines read source: shop is a dir"),
    ("shop/cart.py", "1" * 40, "limit is 32"),
])
def test_bad_ranges_are_invalid_arguments(tools, target, lines, message):
    with pytest.raises(E.InvalidArgument, match=message):
        tools.get(_session(tools), target, lines=lines)


def test_path_colon_line_names_the_innermost_definition_around_it(tools):
    s = _session(tools)
    got = {t: tools.get(s, t, "summary").items[0] for t in
           ("shop/cart.py:18", "shop/cart.py:18:9", "./shop/cart.py:14", "shop/cart.py:7", "shop/cart.py:3")}
    assert got["shop/cart.py:18"].qualname == got["shop/cart.py:18:9"].qualname == "Cart.total"
    assert got["./shop/cart.py:14"].qualname == "Cart.add"
    assert (got["shop/cart.py:7"].kind, got["shop/cart.py:7"].qualname) == ("class", "Cart")
    assert got["shop/cart.py:3"].kind == "file"                  # module-level code: the file itself
    full = tools.get(s, "shop/cart.py:18", "full").items[0]
    assert full.level == "full" and full.text.lstrip().startswith("def total")
    both = tools.get(s, "shop/cart.py:18", lines="19").items[0]    # a line range within it
    assert (both.qualname, both.start_line, both.end_line) == ("Cart.total", 19, 19)
    tools.pin(s, "shop/cart.py:14")                             # every target-taking tool reads it
    assert got["./shop/cart.py:14"].id in tools.status(s).data["session"]["pins"]
    with pytest.raises(E.InvalidArgument, match="shop/cart.py has 19 lines"):
        tools.get(s, "shop/cart.py:99")
    with pytest.raises(E.InvalidArgument, match="path:LINE needs a file, and this is a dir"):
        tools.get(s, "shop:3")
    with pytest.raises(E.NotFound, match="no node 'shop/nope.py'"):
        tools.get(s, "shop/nope.py:3")


def test_a_whole_file_over_the_budget_points_at_a_line_range(tools):
    whole = tools.get(_session(tools), "shop/cart.py", "full").items[0]
    s = _session(tools, budget=whole.tokens - 1)
    with pytest.raises(E.BudgetExceeded, match=r'lines="START-END" \(--lines START-END on the command line; the file has 19 lines\)'):
        tools.get(s, "shop/cart.py", "full")
    assert tools.get(s, "shop/cart.py", lines="17-19").items[0].tokens < whole.tokens


def test_an_evicted_range_is_named_with_its_lines(tools):
    s = _session(tools, budget=200)
    tools.get(s, "shop/cart.py", lines="13-15")
    evicted = []
    for target in ("shop/pricing.py", "shop/invoice.py", "tests/test_cart.py", "shop/cart.py", "shop/pricing.py",
                   "shop/invoice.py"):
        evicted += tools.get(s, target, "full").envelope.evictions
    assert "file shop/cart.py lines 13-15" in {e.label for e in evicted}, evicted
    # dropped whole: a range has no api or summary level (it was "demoted" to its file's api, text
    # the agent never received: a probe)
    assert all(e.to_level == "cold" for e in evicted if "lines 13-15" in e.label), evicted


def test_over_grpc_the_same_item_and_the_same_errors(tools):
    server, port = serve(tools, port=0, reload_interval=None)
    try:
        with Client(f"127.0.0.1:{port}", timeout=30) as c:
            sid = c.open_session(author="wire").data["session"]
            local = _session(tools)
            over = c.get(sid, "shop/cart.py", lines="13-15")
            assert over.items == tools.get(local, "shop/cart.py", lines="13-15").items
            assert over.items[0].meta["lines_total"] == 19 and over.envelope.tokens_returned == over.items[0].tokens
            assert c.get(sid, "shop/cart.py:18").items[0].qualname == "Cart.total"
            with pytest.raises(E.InvalidArgument, match="the end comes before the start"):
                c.get(sid, "shop/cart.py", lines="9-2")
            stub = pb_grpc.StratumStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
            with pytest.raises(grpc.RpcError) as err:
                stub.Get(pb.GetRequest(session=sid, target="shop/cart.py", lines="x"), timeout=30)
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "START-END" in err.value.details()
            msg = stub.Get(pb.GetRequest(session=sid, target="shop/cart.py", lines="17-"), timeout=30)
            assert (msg.items[0].start_line, msg.items[0].end_line) == (17, 19)
    finally:
        server.stop(None)


def test_through_mcp(indexed_store):
    from mcp import Client as MCPClient

    from serving.mcp_server import build_server

    async def run():
        async with MCPClient(build_server(lambda: Tools.open([str(indexed_store[1])]), author="mcp-lines")) as client:
            schema = next(t for t in (await client.list_tools()).tools if t.name == "get").input_schema
            ok = await client.call_tool("get", {"target": "shop/cart.py", "lines": "13-15"})
            bad = await client.call_tool("get", {"target": "shop/cart.py", "lines": "15-13"})
            return schema, json.loads(ok.content[0].text), bad

    schema, ok, bad = anyio.run(run)
    assert schema["properties"]["lines"]["type"] == "string" and schema["required"] == ["target"]
    it = ok["items"][0]
    assert (it["start_line"], it["end_line"], it["meta"]["lines_total"]) == (13, 15, 19)
    assert bad.is_error and "invalid_argument: lines '15-13': the end comes before the start" in bad.content[0].text


def test_from_the_cli(indexed_store, cart_lines):
    def stratum(*args):
        return subprocess.run([sys.executable, "-m", "stratum.cli", *args, "--store", str(indexed_store[1])],
                              capture_output=True, text=True, timeout=300)

    p = stratum("get", "shop/cart.py", "--lines", "13-15", "--json")
    assert p.returncode == 0, p.stderr
    it = json.loads(p.stdout)["items"][0]
    assert it["text"] == "\n".join(cart_lines[12:15]) and it["meta"]["lines"] == "13-15"
    p = stratum("get", "shop/cart.py", "--lines", "13-15")
    assert p.stdout.startswith("--- file shop/cart.py lines 13-15 of 19 [full, ")
    p = stratum("get", "shop/cart.py:18", "--level", "full")
    assert p.returncode == 0 and "::Cart.total" in p.stdout.splitlines()[0]
    p = stratum("get", "shop/cart.py", "--lines", "20-30")
    assert p.returncode == 2 and "which has 19 lines" in p.stderr and "Traceback" not in p.stderr


def test_a_branch_session_reads_the_branchs_lines(branched):
    """Lines and path:LINE through a branch overlay (built by the pipeline, confined to the
    repository): the branch's text and definitions, not the indexed default branch's."""
    from pipeline.overlay import builder

    _repo, store = branched
    t = Tools.open([str(store)], overlay_builder=builder())
    try:
        feat = t.open_session(branch="feat").data["session"]
        it = t.get(feat, "pkg/a.py", lines="5-6").items[0]
        assert it.text == "def zebra_frobnicate():\n    return 2" and it.meta["lines_total"] == 6
        assert t.get(feat, "pkg/a.py:6").items[0].qualname == "zebra_frobnicate"
        base = t.open_session().data["session"]
        with pytest.raises(E.InvalidArgument, match="which has 2 lines"):
            t.get(base, "pkg/a.py", lines="5-6")
    finally:
        t.close()


def test_a_line_range_counts_as_its_node_for_proximity(tools):
    """A range's context entry (``<id>#L13-15``) is its file's for the controller's graph scores
    (G: proximity to the files being edited, C: co-change): it scored 0 and was evicted first."""
    from stratum.memory import MemoryGraph

    g = MemoryGraph(tools.memory)
    fid = tools.get(_session(tools), "shop/cart.py", "summary").items[0].id
    assert g.file_of(f"{fid}#L13-15") == g.file_of(fid) == fid
    assert g.neighbors(f"{fid}#L13-15") == g.neighbors(fid) != []


def test_a_crlf_files_range_ends_without_a_stray_carriage_return(tmp_path):
    """A probe: `get crlf.py --lines 5-6` ended its text with '\\r' (the last line's CRLF end half cut)."""
    src = "import os\r\n\r\n\r\nclass CrlfClass:\r\n    def meth(self):\r\n        return os.sep\r\n"
    with indexed_tools(tmp_path, {"crlf.py": src.encode()}) as (t, s):
        it = t.get(s, "crlf.py", lines="4-5").items[0]
        assert it.text == "class CrlfClass:\r\n    def meth(self):"
        assert t.get(s, "crlf.py", lines="6").items[0].text == "        return os.sep"
