"""A quarantined note is seen by its author: the session's author, whoever the transport says the
caller is (a probe: on an open server, whose caller is "anonymous", and under MCP `--author`, whose
caller is the OS user, `remember` answered "only you see this note" and the next `get` of its id was
NotFound, search and walk left it out, and a resend named an id that was NotFound). A real
repository, the real index job, a real gRPC server on loopback, the real MCP server over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client as MCPClient
from mcp.client.stdio import StdioServerParameters

from serving.client import Client
from serving.server import serve
from stratum import errors as E
from tests.integration.test_quarantine_merged import quarantined_store

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
TEXT = "carl tried the quokka reset and it failed: the cache outlived the reset"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A store of a small real repository, with the quarantine policy on."""
    return quarantined_store(tmp_path_factory.mktemp("qauthor"), {
        "pkg/cache.py": "def reset(c):\n    c.clear()\n\n\ndef get(c, k):\n    return c.get(k)\n",
        "app.py": "from pkg.cache import reset\n\nreset({})\n"})[0]


@pytest.fixture(scope="module")
def open_server(store):
    from stratum.tools import Tools

    tools = Tools.open([str(store)])
    server, port = serve(tools, port=0, reload_interval=None)     # no tokens: every caller is anonymous
    yield f"127.0.0.1:{port}"
    server.stop(None)
    tools.close()


def _sees(c: Client, sid: str, nid: str) -> dict:
    out: dict = {}
    try:
        out["get"] = c.get(sid, nid, level="full").items[0].trust
    except E.NotFound:
        out["get"] = "NotFound"
    out["search"] = [i.trust for i in c.search(sid, "quokka reset cache outlived").items if i.id == nid]
    out["walk"] = [i.trust for i in c.walk(sid, "pkg/cache.py::reset", edges=["notes"], direction="in").items
                   if i.id == nid]
    out["attached"] = [n["trust"] for n in c.get(sid, "pkg/cache.py::reset").items[0].notes if n["id"] == nid]
    out["prefetch"] = [n["trust"] for it in c.prefetch(sid, ["pkg/cache.py"]).items for n in it.notes if n["id"] == nid]
    return out


def test_on_an_open_server_the_author_sees_its_quarantined_note_and_no_one_else(open_server):
    with Client(open_server, timeout=60) as c:
        carl, vera = (c.open_session(author=a).data["session"] for a in ("carl", "vera"))
        r = c.remember(carl, "failure", TEXT, ["pkg/cache.py::reset"])
        nid = r.data["note_id"]
        assert r.items[0].trust == "quarantined" and any("only you see" in w for w in r.items[0].warnings)
        assert _sees(c, carl, nid) == {"get": "quarantined", "search": ["quarantined"], "walk": ["quarantined"],
                                       "attached": ["quarantined"], "prefetch": ["quarantined"]}
        again = c.remember(carl, "failure", TEXT, ["pkg/cache.py::reset"])      # a resend: the same note
        assert again.data["note_id"] == nid and any("identical" in w for w in again.envelope.warnings)
        assert c.get(carl, nid).items[0].id == nid
        assert _sees(c, vera, nid) == {"get": "NotFound", "search": [], "walk": [], "attached": [], "prefetch": []}
        with pytest.raises(E.NotFound, match="no note") as got:     # a retract by vera: as of an unknown id
            c.retract(vera, nid)
        assert "carl" not in str(got.value)


def test_under_mcp_author_the_session_sees_its_quarantined_note(store):
    async def run() -> tuple[dict, dict, dict]:
        params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), env={"PYTHONPATH": str(ROOT)},
                                       args=["-m", "stratum.cli", "mcp", "--store", str(store), "--author", "bobmcp"])
        async with MCPClient(params, read_timeout_seconds=120) as client:
            async def call(name: str, **kw) -> dict:
                res = await client.call_tool(name, kw)
                assert not res.is_error, res.content
                return json.loads(res.content[0].text)

            rem = await call("remember", kind="insight", text="capybara: reset keeps the cache", about=["pkg/cache.py"])
            nid = rem["data"]["note_id"]
            return rem, await call("get", target=nid, level="full"), await call("search", query="capybara reset cache")

    rem, got, found = anyio.run(run)
    nid = rem["data"]["note_id"]
    assert rem["items"][0]["trust"] == "quarantined"                 # the OS user's maintainer role is not bobmcp's
    assert got["items"][0]["id"] == nid and got["items"][0]["trust"] == "quarantined"
    assert nid in [it["id"] for it in found["items"]]
