"""A bad or missing argument is refused in the same words on every surface: the tools in process,
the gRPC client against a real server, and a real `stratum mcp` process over stdio.

A probe: MCP said pydantic's words ("target: Field required", "depth: Input should be a valid
integer", "level: Input should be 'summary', 'api' or 'full'") where gRPC said the tools' ("target is
empty: give a node id, ...", "depth must be a whole number, got '2' (str)", "level must be one of
[...]"); the gRPC client said "target is required (got None)" for an explicit None, where the server
answers a request without the field "target is empty"; locally `tree(depth=None)` was refused where
the client sent the default; remember's text 3 was "text must be text" locally and "text must be a
string, not int '3'" from the client."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import grpc
import pytest
from mcp import Client as MCPClient
from mcp.client.stdio import StdioServerParameters

from serving import convert
from serving._gen import stratum_pb2_grpc as pb_grpc
from serving.client import Client, error_from_rpc
from serving.server import serve
from stratum.errors import StratumError
from stratum.tools import Tools
from tests.clirun import indexed_repo

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]

# (tool, arguments): each kind of bad argument, and a null where the tool has a default (answered)
BAD = [
    ("get", {"target": 3}), ("get", {"target": ["cart.py"]}),                       # a string's wrong type
    ("get", {"target": "cart.py", "level": "verbose"}), ("get", {"target": "cart.py", "level": 3}),   # closed set
    ("walk", {"target": "cart.py", "direction": "up"}), ("walk", {"target": "cart.py", "edges": ["callz"]}),
    ("tree", {"depth": "2"}), ("tree", {"depth": 1.5}), ("tree", {"depth": 0}),      # a number's type, range
    ("search", {"query": "total", "page_size": True}), ("prefetch", {"focus": ["cart.py"], "budget": "5"}),
    ("search", {"query": "total", "kinds": "file"}), ("search", {"query": "total", "kinds": [3]}),    # a list
    ("walk", {"target": "cart.py", "edges": "imports"}),
    ("remember", {"kind": "rca", "text": 3, "about": ["cart.py"]}),                 # a note's text
    ("remember", {"kind": "rca", "text": "the total skips tax", "about": "cart.py"}),
    ("get", {"target": None}), ("search", {"query": None}),                          # null for a required one
    ("remember", {"kind": "rca", "text": "the total skips tax", "about": None}),
    ("tree", {"depth": None}), ("get", {"target": "cart.py", "level": None}),        # null: the default
    ("search", {"query": "total", "kinds": None}),
]
# a required argument left out: MCP against a gRPC request without the field
MISSING = [("get", {}), ("search", {}), ("remember", {"kind": "rca", "about": ["cart.py"]}),
           ("remember", {"kind": "rca", "text": "the total skips tax"}), ("pin", {})]


def _said(call) -> dict | None:
    """The error object a call ends in (code, message, retryable), or None when it answers."""
    try:
        call()
    except StratumError as err:
        return err.to_dict()
    return None


async def _over_mcp(store: str, calls: list) -> list[tuple[dict | None, str]]:
    """(structured error or None, text) of each call to a real `stratum mcp` process."""
    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), env={"PYTHONPATH": str(ROOT)},
                                   args=["-m", "stratum.cli", "mcp", "--store", store, "--reload-interval", "0"])
    out = []
    async with MCPClient(params, read_timeout_seconds=120) as client:
        for name, args in calls:
            r = await client.call_tool(name, args)
            out.append(((r.structured_content or {}).get("error") if r.is_error else None, r.content[0].text))
    return out


def test_every_surface_refuses_a_bad_argument_in_the_same_words(tmp_path):
    _repo, store = indexed_repo(tmp_path / "shop", {"cart.py": "def cart_total(items):\n    return sum(items)\n"})
    mcp = anyio.run(_over_mcp, store, BAD + MISSING)
    tools = Tools.open([store])
    server, port = serve(tools, port=0, reload_interval=None)
    try:
        with Client(f"127.0.0.1:{port}") as client, grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            local, remote = tools.open_session().data["session"], client.open_session().data["session"]
            stub = pb_grpc.StratumStub(channel)
            for (name, args), (mcp_error, text) in zip(BAD, mcp):
                here = _said(lambda: getattr(tools, name)(local, **args))
                there = _said(lambda: getattr(client, name)(remote, **args))
                assert here == there == mcp_error, (name, args, here, there, mcp_error)
                if mcp_error is not None:
                    assert text == f"Error executing tool {name}: {mcp_error['code']}: {mcp_error['message']}"
            for (name, args), (mcp_error, text) in zip(MISSING, mcp[len(BAD):]):
                rpc = "".join(w.title() for w in name.split("_"))
                request = convert.request_type(name)(session=remote, **args)
                try:
                    getattr(stub, rpc)(request, timeout=30)
                    wire = None
                except grpc.RpcError as err:
                    wire = error_from_rpc(err, rpc).to_dict()
                assert wire is not None and wire == mcp_error, (name, args, wire, mcp_error)
                assert text == f"Error executing tool {name}: {wire['code']}: {wire['message']}"
    finally:
        server.stop(None)
        tools.close()
    texts = " ".join(t for _e, t in mcp)
    assert not any(w in texts for w in ("Input should", "Field required", "validation error", "got None"))
    assert sum(e is None for e, _t in mcp) == 3          # the nulls for arguments with a default answer
