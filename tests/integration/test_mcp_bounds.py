"""One bound for each argument everywhere, search offers only the kinds that can match, and a line
the MCP SDK cannot read is answered.

An MCP probe: `tree` with depth 2**31 and `prefetch` with budget 10**30 answered on local stores
and were refused by `stratum mcp --server` ("depth is out of range": the wire's fields are int32
and int64), and the CLI split the same way; search's `kinds` offered "repo", which never ranks, so
a search for it came back empty without a word; a request holding a lone surrogate escape
(``\\ud800``) or a truncated JSON line got no answer and left nothing in the log. Here, on a real
repository indexed by the real pipeline: the tools, the CLI and `stratum mcp` over raw stdio.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf.descriptor import FieldDescriptor as FD

from serving._gen import stratum_pb2 as pb
from stratum import schema as S
from stratum.cli import main
from stratum.errors import InvalidArgument
from stratum.tools import Tools
from stratum.toolspec import ARGS
from tests.gitrepo import Repo
from tests.waitio import readable

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
WIRE_MAX = {FD.TYPE_INT32: 2**31 - 1, FD.TYPE_INT64: 2**63 - 1}
MAX_DEPTH, MAX_BUDGET = WIRE_MAX[FD.TYPE_INT32], WIRE_MAX[FD.TYPE_INT64]    # TreeRequest.depth, *.budget
KINDS = tuple(k for k in S.NODE_KINDS if k != "repo")      # the repo node never ranks (stratum.warm)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig

    base = tmp_path_factory.mktemp("mcpbounds")
    r = Repo(base / "repo")
    r.commit("add billing", {"billing/invoice.py": 'def total(lines):\n    """Sum the invoice lines."""\n'
                                                   "    return sum(lines)\n",
                             "billing/__init__.py": "", "README.md": "# billing\n"})
    store = base / "store"
    index_repository(r.path, store, IndexConfig(num_cpus=1, ray=False))
    return r, store


def test_the_bounds_are_the_wires_and_every_entry_point_keeps_them(indexed, capsys):
    _repo, store = indexed
    tools = Tools.open([str(store)])
    try:
        sid = tools.open_session(author="bounds").data["session"]
        assert tools.tree(sid, depth=MAX_DEPTH).envelope.total > 0
        assert tools.prefetch(sid, ["billing/invoice.py"], budget=MAX_BUDGET).envelope.returned > 0
        tools.close_session(tools.open_session(budget=MAX_BUDGET).data["session"])
        for call in (lambda: tools.tree(sid, depth=MAX_DEPTH + 1), lambda: tools.tree(sid, "", 10**15),
                     lambda: tools.prefetch(sid, ["billing/invoice.py"], budget=10**30),
                     lambda: tools.open_session(budget=MAX_BUDGET + 1)):
            with pytest.raises(InvalidArgument, match=r"(depth|budget) must be between 1 and \d+, got \d+"):
                call()
    finally:
        tools.close()

    # the CLI refuses them as it parses, so a local run and a --server run say the same
    for argv in (["tree", "--depth", str(MAX_DEPTH + 1)], ["search", "total", "--budget", str(MAX_BUDGET + 1)],
                 ["serve", "--budget", str(MAX_BUDGET + 1)], ["mcp", "--budget", str(MAX_BUDGET + 1)]):
        with pytest.raises(SystemExit) as ei:
            main([*argv, "--store", str(store)])
        assert ei.value.code == 2 and "or less, not" in capsys.readouterr().err

    # ARGS publishes bounds every request field of that name holds; depth's and budget's are the wire's
    requests = [m for m in pb.DESCRIPTOR.message_types_by_name.values() if m.name.endswith("Request")]
    fields = [(m.name, f) for m in requests for f in m.fields if f.name in ARGS and ARGS[f.name].maximum is not None]
    assert {(m, f.name) for m, f in fields} >= {("TreeRequest", "depth"), ("OpenSessionRequest", "budget"),
                                                  ("PrefetchRequest", "budget")}
    for m, f in fields:
        most = ARGS[f.name].maximum
        assert (most <= WIRE_MAX[f.type]) if f.name == "page_size" else (most == WIRE_MAX[f.type]), (m, f.name)
    assert (ARGS["depth"].maximum, ARGS["budget"].maximum) == (MAX_DEPTH, MAX_BUDGET)


def test_search_kinds_are_the_ones_that_match(indexed, capsys):
    _repo, store = indexed
    tools = Tools.open([str(store)])
    try:
        sid = tools.open_session(author="kinds").data["session"]
        with pytest.raises(InvalidArgument) as ei:
            tools.search(sid, "billing", kinds=["repo"])
        assert "'repo'" in ei.value.message and all(repr(k) in ei.value.message for k in KINDS)
        got = tools.search(sid, "billing", kinds=["dir"], page_size=5)
        assert [(it.kind, it.path) for it in got.items][:1] == [("dir", "billing")]
    finally:
        tools.close()

    with pytest.raises(SystemExit) as ex:
        main(["search", "billing", "--kind", "repo", "--store", str(store)])
    assert ex.value.code == 2 and "invalid choice: 'repo'" in capsys.readouterr().err

    assert ARGS["kinds"].choices == KINDS
    doc = Tools.search.__doc__ or ""
    listed = set(re.findall(r"[a-z]+", re.search(r"kinds \(([^)]*)\)", doc).group(1))) & set(S.NODE_KINDS)
    assert listed == set(KINDS), listed        # the MCP description names the same kinds


class _Stdio:
    """`stratum mcp` spoken to line by line, as a client that writes its own JSON would."""

    def __init__(self, store: Path, err: Path):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "stratum.cli", "mcp", "--store", str(store), "--reload-interval", "0"],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err.open("w"))

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float = 60) -> dict | None:
        assert self.proc.stdout is not None
        ready = readable(self.proc.stdout, timeout)
        return json.loads(self.proc.stdout.readline()) if ready else None

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)


def test_mcp_answers_what_it_cannot_read_and_refuses_past_the_bounds(indexed, tmp_path):
    _repo, store = indexed
    err = tmp_path / "mcp.err"
    mcp = _Stdio(store, err)
    try:
        mcp.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}))
        assert mcp.reply()["id"] == 1
        mcp.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        # a lone surrogate escape: valid JSON syntax the SDK's reader refuses; answered, with its id
        mcp.send(r'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get",'
                 r'"arguments":{"target":"\ud800x","level":"summary"}}}')
        got = mcp.reply(20)
        assert got is not None, "no answer to a request holding \\ud800"
        assert got["id"] == 3 and got["error"]["code"] == -32700 and "surrogate" in got["error"]["message"]
        # a truncated line: no id can be read, so the answer has id null
        mcp.send('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get"')
        got = mcp.reply(20)
        assert got is not None and got["id"] is None and got["error"]["code"] == -32700
        # a notification is not answered (JSON-RPC), only logged; the connection serves on
        mcp.send(r'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"\ud800"}}')
        mcp.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        tools = {t["name"]: t for t in mcp.reply()["result"]["tools"]}
        assert tools["tree"]["inputSchema"]["properties"]["depth"]["maximum"] == MAX_DEPTH
        kinds = tools["search"]["inputSchema"]["properties"]["kinds"]["items"]["enum"]
        assert kinds == list(KINDS) and "repo" not in kinds
        mcp.send(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                             "params": {"name": "tree", "arguments": {"depth": MAX_DEPTH + 1}}}))
        got = mcp.reply()
        assert got["id"] == 5 and got["result"]["isError"]
        assert "invalid_argument: depth must be between 1 and" in got["result"]["content"][0]["text"]
        mcp.send(json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                             "params": {"name": "prefetch", "arguments": {"focus": ["README.md"], "budget": 10**30}}}))
        got = mcp.reply()
        assert got["id"] == 6 and got["result"]["isError"], got
        assert "invalid_argument: budget must be between 1 and" in got["result"]["content"][0]["text"]
    finally:
        mcp.close()
    logged = [ln for ln in err.read_text().splitlines() if "could not read" in ln]
    assert len(logged) == 3 and all("WARNING" in ln for ln in logged), err.read_text()


def test_a_line_over_the_request_limit_is_answered_unread_and_the_next_is_served(indexed, tmp_path):
    """A probe: one `tools/call` line of 40 MB took `stratum mcp` to 1.5 GB before it was refused
    (gRPC refuses a request over 1 MiB before reading it). A line over MAX_REQUEST_BYTES is dropped
    in pieces and answered with its id, whether the id leads the line or ends it."""
    from serving.server import MAX_REQUEST_BYTES

    _repo, store = indexed
    mcp = _Stdio(store, tmp_path / "mcp.err")
    big = "q " * (4 * MAX_REQUEST_BYTES)
    try:
        mcp.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}))
        assert mcp.reply()["id"] == 1
        mcp.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        lead = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                           "params": {"name": "search", "arguments": {"query": big}}})
        trail = json.dumps({"method": "tools/call", "params": {"name": "get", "arguments": {"target": big}},
                            "jsonrpc": "2.0", "id": "last"})
        for line, rid in ((lead, 7), (trail, "last")):
            mcp.send(line)
            got = mcp.reply(30)
            assert got is not None and got["id"] == rid and got["error"]["code"] == -32600, got
            assert got["error"]["message"].startswith(
                f"Invalid Request: the request is {len(line.encode())} bytes, over the {MAX_REQUEST_BYTES}-byte limit")
        at_limit = json.dumps({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                               "params": {"name": "search", "arguments": {"query": "total"}}})
        mcp.send(at_limit + " " * (MAX_REQUEST_BYTES - len(at_limit)))      # exactly the limit: served
        got = mcp.reply()
        assert got["id"] == 8 and not got["result"]["isError"], got
    finally:
        mcp.close()


def test_an_over_long_line_is_read_in_pieces():
    """What the stdio reader holds of a 40 MB line: the limit and a piece, never the line."""
    import os
    import threading
    import tracemalloc

    import anyio

    from serving.mcp_server import _BoundedLines, _TooLong

    big = b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search","arguments":{"query":"' \
        + b"q" * (40 << 20) + b'"}}}'
    sent = big + b'\n{"next":1}\n'
    r, w = os.pipe()

    def write() -> None:
        with open(w, "wb") as f:
            f.write(sent)

    async def read_two() -> list:
        lines = _BoundedLines(open(r, "rb", buffering=64 << 10), 1 << 20)
        return [await lines.__anext__(), await lines.__anext__()]

    writer = threading.Thread(target=write)
    tracemalloc.start()
    writer.start()
    try:
        got = anyio.run(read_two)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        writer.join()
    assert got == [_TooLong(9, len(big), 1 << 20), '{"next":1}\n']
    assert peak < 4 << 20, peak          # the line is 40 MB


def test_an_over_long_value_is_refused_alike_over_mcp_and_grpc(indexed, tmp_path):
    """A probe: `lines` of 2,000 characters was "the limit is 32" over MCP and "the limit is 1024"
    over gRPC (its door had a limit of its own), `language` 128 against 1024, a 1,025-character
    page token invalid_page_token ("under 1024 characters", though 1,024 passes) against
    invalid_argument, a list of 65 "entries" against "values". One bound per argument
    (toolspec.ARGS), one refusal: the same code and words on both."""
    from serving.client import Client
    from serving.server import serve
    from stratum.errors import StratumError

    _repo, store = indexed
    target = "billing/invoice.py"
    cases = [("get", {"target": target, "lines": "1" * 2000}), ("get", {"target": target, "lines": "1-2" + " " * 30}),
             ("search", {"query": "total", "language": "l" * 129}), ("tree", {"page_token": "x" * 1025}),
             ("search", {"query": "total", "kinds": ["file"] * 65}), ("walk", {"target": target, "edges": ["imports"] * 65}),
             ("prefetch", {"focus": ["f" * 1025]}), ("remember", {"kind": "rca", "text": "t", "about": [target], "tags": ["t" * 129]}),
             ("search", {"query": "q" * 32001}), ("tree", {"path": "p" * 1025})]
    mcp = _Stdio(store, tmp_path / "mcp.err")
    over_mcp = []
    try:
        mcp.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}))
        mcp.reply()
        mcp.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        for i, (name, args) in enumerate(cases, 1):
            mcp.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                 "params": {"name": name, "arguments": args}}))
            got = mcp.reply()["result"]
            assert got["isError"], (name, args)
            over_mcp.append(got["content"][0]["text"].split(": ", 1)[1])     # after "Error executing tool X"
    finally:
        mcp.close()
    tools = Tools.open([str(store)])
    server, port = serve(tools, port=0, reload_interval=None)
    try:
        with Client(f"127.0.0.1:{port}", timeout=30) as c:
            sid = c.open_session().data["session"]
            for (name, args), said in zip(cases, over_mcp):
                with pytest.raises(StratumError) as err:
                    getattr(c, name)(sid, **args)
                assert f"{err.value.code}: {err.value.message}" == said, (name, said)
    finally:
        server.stop(None)
        tools.close()
    assert over_mcp[0].startswith("invalid_argument: lines is 2000 characters; the limit is 32 ")
    assert over_mcp[2].startswith("invalid_argument: language is 129 characters; the limit is 128 ")
    assert over_mcp[3].startswith("invalid_argument: page_token is 1025 characters; the limit is 1024 ")
    assert over_mcp[4] == "invalid_argument: kinds has 65 entries; the limit is 64"
