"""An MCP connection whose Stratum session is gone opens a new one and says so (a probe: a connection
idle past the sessions' TTL answered every later call "not_found: unknown session ...: open a new
one", which an MCP agent cannot do: it has no session tool and never sees the id).

The real `stratum mcp --server` over stdio, in front of a real gRPC server over a store the real
pipeline indexed; the server's sessions expire after ``session_ttl`` seconds (``Tools``' own setting)
or are lost when it restarts."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from serving.server import serve
from stratum.tools import Tools

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
GONE = "this connection's session was gone after"


def _front(port: int) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "stratum.cli", "mcp", "--server", f"127.0.0.1:{port}"],
                                 cwd=str(ROOT), env={"PYTHONPATH": str(ROOT)})


def _answer(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


async def _get(client: Client) -> dict:
    return _answer(await client.call_tool("get", {"target": "shop/pricing.py", "level": "api"}))


@pytest.fixture()
def store(indexed_store, tmp_path) -> Path:
    copy = tmp_path / "store"
    shutil.copytree(indexed_store[1], copy)
    return copy


def test_a_session_expired_while_the_connection_idled_is_replaced_and_said(store):
    tools = Tools.open([str(store)], session_ttl=2)
    server, port = serve(tools, port=0, reload_interval=None)

    async def run() -> list[dict]:
        async with Client(_front(port), read_timeout_seconds=120) as client:
            first, again = await _get(client), await _get(client)
            await anyio.sleep(3)                                   # past the TTL: the server drops the session
            return [first, again, await _get(client), _answer(await client.call_tool("status", {}))]

    try:
        first, again, after, status = anyio.run(run)
    finally:
        server.stop(None)
        tools.close()
    assert again["items"][0]["meta"].get("already_in_context")        # one session held it
    said = [w for w in after["envelope"]["warnings"] if w.startswith(GONE)]
    assert len(said) == 1 and " s idle (expired" in said[0] and "not in its context ledger" in said[0], after["envelope"]
    # the new session's ledger starts empty: the file is sent and charged again, not "already in context"
    assert not after["items"][0]["meta"].get("already_in_context")
    assert after["envelope"]["budget"]["used"] == first["envelope"]["budget"]["used"]
    assert not any(w.startswith(GONE) for w in status["envelope"]["warnings"])     # said once


def test_a_session_lost_when_the_grpc_server_restarted_is_replaced(store):
    tools = Tools.open([str(store)])
    server, port = serve(tools, port=0, reload_interval=None)
    restarted: list = []

    async def run() -> tuple[dict, dict]:
        async with Client(_front(port), read_timeout_seconds=120) as client:
            await _get(client)
            server.stop(None).wait()
            again = Tools.open([str(store)])
            restarted.extend([again, serve(again, port=port, reload_interval=None)[0]])   # same address
            return await _get(client), _answer(await client.call_tool("status", {}))

    try:
        after, status = anyio.run(run)
    finally:
        for s in restarted[1:] + [server]:
            s.stop(None)
        for t in restarted[:1] + [tools]:
            t.close()
    assert any(w.startswith(GONE) for w in after["envelope"]["warnings"]), after["envelope"]
    assert not any(w.startswith(GONE) for w in status["envelope"]["warnings"])
