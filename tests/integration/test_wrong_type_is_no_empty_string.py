"""A value that is not text where text goes is refused, naming the argument and the type sent, never
read as "" (a probe: ``limits.check_len`` read ``value or ""``, so remember's about [null], [0],
[false], [[]] or [{}] wrote a note about the whole repository, and path_prefix 0, language false,
lines 0 or page_token 0 were taken as not given while lines 93 was refused).

The real `stratum mcp --store` over stdio and the real gRPC client and server, on copies of a store
the real pipeline indexed. A JSON null for an optional scalar argument is still that argument left
out (the schema's default); inside a list it is refused."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from serving.client import Client as GrpcClient
from serving.server import serve
from stratum.errors import InvalidArgument
from stratum.tools import Tools

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
NOTE = "wrong-type entries 7f3a9c: never written"

REFUSED = [
    ("remember", {"kind": "failure", "text": NOTE, "about": [None]}, "about[0] must be text, got null"),
    ("remember", {"kind": "failure", "text": NOTE, "about": [0]}, "about[0] must be text, got 0 (int)"),
    ("remember", {"kind": "failure", "text": NOTE, "about": [False]}, "about[0] must be text, got False (bool)"),
    ("remember", {"kind": "failure", "text": NOTE, "about": [[]]}, "about[0] must be text, got [] (list)"),
    ("remember", {"kind": "failure", "text": NOTE, "about": ["shop/cart.py", {}]}, "about[1] must be text, got {} (dict)"),
    ("remember", {"kind": "insight", "text": NOTE, "about": ["shop/cart.py"], "tags": [None]},
     "tags[0] must be text, got null"),
    ("remember", {"kind": "insight", "text": NOTE, "about": ["shop/cart.py"], "supersedes": [None]},
     "supersedes[0] must be text, got null"),
    ("search", {"query": "cart", "kinds": [None]}, "kinds[0] must be text, got null"),      # it quoted ''
    ("walk", {"target": "shop/cart.py", "edges": [None]}, "edges[0] must be text, got null"),
    ("prefetch", {"focus": [None]}, "focus[0] must be text, got null"),
    ("search", {"query": "cart", "path_prefix": 0}, "path_prefix must be text, got 0 (int)"),
    ("search", {"query": "cart", "language": False}, "language must be text, got False (bool)"),
    ("search", {"query": "cart", "page_token": 0}, "page_token must be text, got 0 (int)"),
    ("get", {"target": "shop/cart.py", "lines": 0}, "lines must be text, got 0 (int)"),
    ("tree", {"path": False}, "path must be text, got False (bool)"),
]


@pytest.fixture()
def store(indexed_store, tmp_path) -> Path:
    copy = tmp_path / "store"                   # a note that slipped through would be written here
    shutil.copytree(indexed_store[1], copy)
    return copy


def test_mcp_refuses_a_non_text_value_and_a_non_text_list_entry(store):
    params = StdioServerParameters(command=sys.executable, args=["-m", "stratum.cli", "mcp", "--store", str(store)],
                                   cwd=str(ROOT), env={"PYTHONPATH": str(ROOT)})

    async def run() -> tuple[list, dict, dict]:
        async with Client(params, read_timeout_seconds=120) as client:
            got = [await client.call_tool(name, args) for name, args, _ in REFUSED]
            left_out = await client.call_tool("search", {"query": "cart", "language": None, "path_prefix": None})
            notes = await client.call_tool("search", {"query": NOTE, "kinds": ["failure", "insight"]})
            return got, json.loads(left_out.content[0].text), json.loads(notes.content[0].text)

    got, left_out, notes = anyio.run(run)
    for (name, args, said), result in zip(REFUSED, got):
        assert result.is_error, (name, args, result.content[0].text)
        err = result.structured_content["error"]
        assert err["code"] == "invalid_argument" and err["message"] == said, (name, args, err)
    assert left_out["items"], left_out                  # null for an optional scalar: not given
    assert not [it for it in notes["items"] if NOTE in it.get("note_text", "")], notes


def test_the_grpc_client_refuses_them_in_the_same_words(store):
    tools = Tools.open([str(store)])
    server, port = serve(tools, port=0, reload_interval=None)
    try:
        with GrpcClient(f"127.0.0.1:{port}", timeout=30) as client:
            sid = client.open_session().data["session"]
            for name, args, said in REFUSED:
                with pytest.raises(InvalidArgument) as refused:
                    getattr(client, name)(sid, **args)
                assert refused.value.message == said, (name, args)
    finally:
        server.stop(None)
        tools.close()
