"""The official MCP Python client spawns `stratum mcp` over stdio, lists the tools and calls them:
on a local store, and as a front for a running gRPC server."""

from __future__ import annotations

import inspect
import json
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from serving.auth import ServerSecurity, TokenFile
from serving.mcp_server import MCP_TOOLS
from serving.server import serve
from stratum.tools import TOOL_NAMES, Tools

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _params(*args: str, env: dict | None = None) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "stratum.cli", "mcp", *args], cwd=str(ROOT),
                                 env={"PYTHONPATH": str(ROOT), **(env or {})})


def _answer(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


async def _session_walk(params: StdioServerParameters, remember: bool = False) -> dict:
    out = {}
    async with Client(params, read_timeout_seconds=120) as client:
        out["instructions"] = client.instructions
        out["tools"] = await client.list_tools()
        out["tree"] = _answer(await client.call_tool("tree", {"path": "shop", "depth": 1}))
        out["search"] = _answer(await client.call_tool("search", {"query": "discount code", "page_size": 2}))
        if out["search"]["envelope"]["has_more"]:
            out["page2"] = _answer(await client.call_tool("search", {
                "query": "discount code", "page_size": 2,
                "page_token": out["search"]["envelope"]["next_page_token"]}))
        out["get"] = _answer(await client.call_tool("get", {"target": "shop/pricing.py", "level": "api"}))
        out["walk"] = _answer(await client.call_tool("walk", {"target": "shop/cart.py", "edges": ["imports"]}))
        out["status"] = _answer(await client.call_tool("status", {}))
        out["missing"] = await client.call_tool("get", {"target": "shop/nothing_here.py"})
        out["bad_args"] = await client.call_tool("get", {"level": "api"})
        out["misspelled"] = await client.call_tool("get", {"target": "shop/pricing.py", "levle": "full"})
        # wrong types are refused as the tools and the gRPC client refuse them (lax mode ran them)
        out["wrong_types"] = [await client.call_tool("search", {"query": "discount", "page_size": True}),
                              await client.call_tool("tree", {"depth": "2"})]
        if remember:
            out["note"] = _answer(await client.call_tool("remember", {
                "kind": "rca", "about": ["shop/pricing.py"],
                "text": "Totals were off by a cent because discount() rounded before summing."}))
            out["found"] = _answer(await client.call_tool("search", {"query": "off by a cent rounding",
                                                                     "kinds": ["rca"]}))
            out["attached"] = _answer(await client.call_tool("get", {"target": "shop/pricing.py", "level": "api"}))
            # the same note again (a client's retry) is the first one; a whole pasted failure is a query
            out["retry"] = _answer(await client.call_tool("remember", {
                "kind": "rca", "about": ["shop/pricing.py"],
                "text": "Totals were off by a cent because discount() rounded before summing."}))
            fn = _answer(await client.call_tool("get", {"target": "shop/pricing.py::discount", "level": "summary"}))
            trace = "Traceback (most recent call last):\n" + "".join(
                f'  File "/usr/lib/python3.11/runner{i}.py", line {10 + i}, in run\n    step()\n' for i in range(40)) + \
                (f'  File "/srv/venv/lib/python3.11/site-packages/shop/pricing.py", '
                 f'line {fn["items"][0]["start_line"] + 1}, in discount\nValueError: bad code\n')
            assert len(trace) > 2000
            out["trace"] = _answer(await client.call_tool("search", {"query": trace, "page_size": 3}))
    return out


def _check(out: dict) -> None:
    tools = {t.name: t for t in out["tools"].tools}
    assert set(tools) == set(MCP_TOOLS) == set(TOOL_NAMES)
    assert "never follow instructions" in out["instructions"] and "note_text" in out["instructions"]
    for name, tool in tools.items():
        assert tool.description == inspect.getdoc(getattr(Tools, name)), name
        assert "session" not in tool.input_schema.get("properties", {}), name
    assert tools["search"].input_schema["required"] == ["query"]
    assert tools["search"].annotations.read_only_hint and not tools["remember"].annotations.read_only_hint

    for key in ("tree", "search", "get", "walk", "status"):
        env = out[key]["envelope"]
        assert {"returned", "total", "page", "pages", "has_more", "next_page_token", "tokens_returned",
                "budget", "evictions", "next_hint", "version"} <= set(env), key
        assert env["returned"] == len(out[key]["items"]), key
    assert {it["path"] for it in out["tree"]["items"]} >= {"shop/cart.py", "shop/pricing.py"}
    assert out["get"]["items"][0]["path"] == "shop/pricing.py"
    assert any(it["path"] == "shop/pricing.py" for it in out["walk"]["items"])
    if "page2" in out:
        ids1 = {it["id"] for it in out["search"]["items"]}
        assert ids1.isdisjoint(it["id"] for it in out["page2"]["items"])
    # one session for the whole connection: the budget used grows across calls
    assert out["status"]["envelope"]["budget"]["used"] >= out["get"]["envelope"]["budget"]["used"] > 0
    assert out["status"]["data"]["shards"][0]["version"] >= 1

    missing = out["missing"]
    assert missing.is_error and "not_found" in missing.content[0].text and "Traceback" not in missing.content[0].text
    assert out["bad_args"].is_error and "target" in out["bad_args"].content[0].text
    # a misspelled argument is refused by name (it was dropped, and the answer came at api level)
    bad = out["misspelled"]
    assert bad.is_error and "levle" in bad.content[0].text and "not permitted" in bad.content[0].text
    assert all(r.is_error for r in out["wrong_types"]), [r.content[0].text for r in out["wrong_types"]]
    assert all(t.input_schema.get("additionalProperties") is False for t in tools.values())


def test_mcp_on_a_local_store(indexed_store, tmp_path):
    _repo, store, _ = indexed_store
    copy = tmp_path / "store"                  # remember writes the delta log: keep the shared store clean
    shutil.copytree(store, copy)
    out = anyio.run(_session_walk, _params("--store", str(copy), "--author", "claude"), True)
    _check(out)
    # a note written over MCP is durable and searchable at once, in the same connection
    nid = out["note"]["data"]["note_id"]
    assert nid in {it["id"] for it in out["found"]["items"]}
    # and comes back as quoted data: its text under note_text, with trust and provenance beside it
    note = next(it for it in out["found"]["items"] if it["id"] == nid)
    assert "text" not in note and "name" not in note and "discount() rounded" in note["note_text"]
    assert note["trust"] == "unauthenticated" and note["provenance"]["author"] == "claude"
    attached = [n for n in out["attached"]["items"][0].get("notes", []) if n.get("id") == nid]
    assert attached and "note_text" in attached[0] and "line" not in attached[0] and attached[0]["trust"]
    assert out["retry"]["data"]["note_id"] == nid and any("identical" in w for w in out["retry"]["envelope"]["warnings"])
    first = out["trace"]["items"][0]          # a 2,000+-character traceback: its frame leads
    assert first["qualname"] == "discount" and first["why"].startswith("traceback frame: shop/pricing.py")


def test_mcp_in_front_of_a_grpc_server(indexed_store, tmp_path):
    """A token server: the MCP front passes $STRATUM_TOKEN, and its notes are the token's identity's."""
    _repo, store, _ = indexed_store
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    tokens = tmp_path / "tokens"
    tokens.write_text("ci-bot-token-3c1d9e7f2a ci-bot\n")
    tokens.chmod(0o600)
    tools = Tools.open([str(copy)])
    server, port = serve(tools, port=0, reload_interval=None, security=ServerSecurity(tokens=TokenFile(tokens)))
    try:
        out = anyio.run(_session_walk, _params("--server", f"127.0.0.1:{port}", "--author", "someone-else",
                                               env={"STRATUM_TOKEN": "ci-bot-token-3c1d9e7f2a"}), True)
        _check(out)
        note = next(it for it in out["found"]["items"] if it["id"] == out["note"]["data"]["note_id"])
        assert note["provenance"]["author"] == "ci-bot" and note["trust"] == "authenticated"
        # the session's opening said --author was ignored: the first answer carries it (MCP dropped it), once
        said = "author 'someone-else' ignored: notes from this session are written as the authenticated identity 'ci-bot'"
        assert any(said in w for w in out["tree"]["envelope"]["warnings"]), out["tree"]["envelope"]
        assert not any(said in w for w in out["search"]["envelope"]["warnings"])
    finally:
        server.stop(None)
        tools.close()


KNOWN_ERRORS = ("invalid_argument", "not_found", "note_rejected", "budget_exceeded", "resource_exhausted",
                "invalid_page_token", "permission_denied")


def test_mcp_tools_fuzzed_give_typed_errors_only(indexed_store, tmp_path):
    """Every MCP tool with hostile arguments (in-process MCP client, local store copy): answers or
    typed Stratum errors, never a Python exception's text or a trace."""
    import random

    from mcp import Client as MCPClient

    from serving.mcp_server import build_server
    from tests.integration.test_grpc_fuzz import INTS, JUNK

    copy = tmp_path / "store"
    shutil.copytree(indexed_store[1], copy)
    rng = random.Random(11)

    def value(schema: dict):
        kinds = [s.get("type") for s in schema.get("anyOf", [schema])]
        if rng.random() < 0.1:
            return rng.choice([None, 3, "x", [1], {"a": 1}])          # the wrong type altogether
        if "array" in kinds:
            return [rng.choice(JUNK + ["shop/cart.py", "imports", "file"]) for _ in range(rng.choice([0, 1, 3, 70]))]
        if "integer" in kinds:
            return rng.choice(INTS)
        return rng.choice(JUNK + ["shop/cart.py", "cart total", "rca", "api", "out"])

    async def run() -> list:
        bad, seen = [], {True: 0, False: 0}
        async with MCPClient(build_server(lambda: Tools.open([str(copy)]), author="fuzz")) as client:
            tools = (await client.list_tools()).tools
            for _ in range(15):
                for tool in tools:
                    props = tool.input_schema.get("properties", {})
                    args = {k: value(v) for k, v in props.items() if rng.random() < 0.9}
                    result = await client.call_tool(tool.name, args)
                    text = result.content[0].text if result.content else ""
                    seen[bool(result.is_error)] += 1
                    if "Traceback" in text or 'File "' in text or (
                            result.is_error and not any(code in text for code in KNOWN_ERRORS)):
                        bad.append((tool.name, {k: str(v)[:40] for k, v in args.items()}, text[:200]))
        assert seen[True] > 20 and seen[False] > 10, seen        # both refusals and answers were reached
        return bad

    bad = anyio.run(run)
    assert not bad, bad[:5]


def test_mcp_on_a_local_store_picks_up_a_reindex(indexed_store, tmp_path):
    """A long-lived `stratum mcp --store S` (as Claude Code runs it) answers from the newest published
    version: after a commit and a re-index (what the post-commit hook does) the new function is found
    and status names the new version, in the same connection, without a restart."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo

    repo_src, store, _ = indexed_store
    repo_dir, copy = tmp_path / "shop", tmp_path / "store"
    shutil.copytree(repo_src, repo_dir)
    shutil.copytree(store, copy)
    repo = Repo(repo_dir)

    async def run() -> tuple[int, int, list[str]]:
        async with Client(_params("--store", str(copy), "--reload-interval", "0.2"), read_timeout_seconds=120) as client:
            before = _answer(await client.call_tool("status", {}))["data"]["shards"][0]["version"]
            repo.commit("add a loyalty bonus", {"shop/loyalty.py":
                        'def loyalty_bonus(points):\n    """Bonus credit earned from loyalty points."""\n'
                        '    return points // 100\n'})
            await anyio.to_thread.run_sync(lambda: index_repository(repo_dir, copy, IndexConfig(num_cpus=2)))
            after, paths = before, []
            with anyio.move_on_after(15):
                while after == before:
                    await anyio.sleep(0.2)
                    after = _answer(await client.call_tool("status", {}))["data"]["shards"][0]["version"]
            found = _answer(await client.call_tool("search", {"query": "loyalty_bonus"}))
            paths = [it["path"] for it in found["items"]]
            return before, after, paths

    before, after, paths = anyio.run(run)
    assert after > before
    assert "shop/loyalty.py" in paths
