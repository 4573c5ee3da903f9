"""The MCP input schemas publish each argument's closed set and bounds, a value outside them is
refused as ``invalid_argument`` naming the allowed values, and every entry point pages alike.

A probe: the schemas said ``"level": {"type": "string"}`` and ``"page_size": {"type": "integer"}``,
so an agent guessed (``level: "verbose"``), and a refused argument came back in pydantic's words
without the code every other error carries. And `stratum walk` paged 50 items where the tool (gRPC,
MCP) pages 20. Here, on a real repository indexed by the real pipeline: the official MCP client
over stdio (``stratum mcp``) reads the enums and bounds (``stratum.toolspec.ARGS``), gets
``invalid_argument`` for a bad level or page size, the tools' own checks agree with what the
schema says, and the CLI's, MCP's and the tool's first page of a walk are the same items.
"""

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

from stratum.cli import main
from stratum.errors import InvalidArgument, NoteRejected
from stratum.limits import MAX_PAGE_SIZE, MAX_QUERY_CHARS
from stratum.tools import TOOL_NAMES, TOOLS, Tools
from stratum.toolspec import ARGS
from tests.gitrepo import Repo
from tests.pages import cut_at_the_cliff

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
N_FUNCS = 60        # more than every tool's default page (tree 50, search 10, walk 20)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig

    base = tmp_path_factory.mktemp("mcpschema")
    r = Repo(base / "repo")
    body = "".join(f'def compute_value_{i}(x):\n    """Compute value number {i} of x."""\n    return x + {i}\n\n\n'
                   for i in range(N_FUNCS))
    r.commit("add big", {"big.py": body, "use.py": "import big\n\n\ndef run():\n    return big.compute_value_1(2)\n"})
    store = base / "store"
    index_repository(r.path, store, IndexConfig(num_cpus=1, ray=False))
    return r, store


def _schema_of(prop: dict) -> dict:
    """The constrained part of a property: an array's items, an optional's non-null branch."""
    if prop.get("type") == "array":
        return prop["items"]
    return next((b for b in prop.get("anyOf", []) if b.get("type") != "null"), prop)


def test_schemas_show_enums_and_bounds_and_refuse_with_a_code(indexed, tmp_path):
    _repo, store = indexed
    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), env={"PYTHONPATH": str(ROOT)},
                                   args=["-m", "stratum.cli", "mcp", "--store", str(store), "--reload-interval", "0"])

    async def run() -> tuple[dict, dict, dict]:
        async with Client(params, read_timeout_seconds=120) as client:
            tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            bad = {"level": await client.call_tool("get", {"target": "big.py", "level": "verbose"}),
                   "page_size": await client.call_tool("walk", {"target": "big.py", "page_size": MAX_PAGE_SIZE + 1}),
                   "edges": await client.call_tool("walk", {"target": "big.py", "edges": ["imports", "callz"]}),
                   "missing": await client.call_tool("get", {"level": "api"})}
            good = {lv: await client.call_tool("get", {"target": "big.py", "level": lv})
                    for lv in ARGS["level"].choices}
            good["walk"] = await client.call_tool("walk", {"target": "big.py"})
            return tools, bad, good

    tools, bad, good = anyio.run(run)
    # every closed set and bound the tools check is in the schema an agent lists
    shown = 0
    for name in TOOL_NAMES:
        for arg, prop in tools[name].get("properties", {}).items():
            if arg not in ARGS:
                continue
            spec, sch = ARGS[arg], _schema_of(prop)
            if spec.choices:
                assert sch["enum"] == list(spec.choices), (name, arg, prop)
            else:
                assert (sch.get("minimum"), sch.get("maximum")) == (spec.minimum, spec.maximum), (name, arg, prop)
                assert sch.get("maxLength") == spec.max_chars, (name, arg, prop)    # shown; the tool refuses
            assert prop.get("maxItems") == (spec.max_items if spec.items else None), (name, arg, prop)
            shown += 1
    assert shown == sum(p in ARGS for t in TOOL_NAMES for p in inspect.signature(getattr(Tools, t)).parameters) >= 10
    assert tools["get"]["properties"]["level"]["enum"] == ["summary", "api", "full"]
    assert tools["walk"]["properties"]["page_size"]["maximum"] == MAX_PAGE_SIZE

    texts = {k: r.content[0].text for k, r in bad.items()}
    assert all(r.is_error for r in bad.values()), texts
    # the tools' error shape and code, naming the argument, what it may be and what was given
    assert texts["level"].startswith("Error executing tool get: invalid_argument: level must be one of "), texts["level"]
    assert all(f"'{lv}'" in texts["level"] for lv in ("summary", "api", "full")) and "verbose" in texts["level"]
    assert "invalid_argument: page_size must be between 1 and" in texts["page_size"] and str(MAX_PAGE_SIZE) in texts["page_size"]
    assert "invalid_argument: unknown edge kind(s) ['callz']" in texts["edges"] and "'notes'" in texts["edges"]
    assert "invalid_argument: target is empty" in texts["missing"]
    assert not any("validation error" in t or "errors.pydantic.dev" in t for t in texts.values()), texts
    for k, r in good.items():
        assert not r.is_error, (k, r.content[0].text)
    assert len(json.loads(good["walk"].content[0].text)["items"]) == _tool_default("walk")


def _tool_default(tool: str, arg: str = "page_size"):
    return inspect.signature(getattr(Tools, tool)).parameters[arg].default


def test_the_tools_accept_what_the_schema_allows_and_refuse_the_rest(indexed, tmp_path):
    """ARGS is what the tools check: every allowed value passes the tool's own check, and a value
    just outside is refused by it (gRPC and the CLI rely on those checks, not on the schema)."""
    _repo, src = indexed
    store = tmp_path / "store"
    shutil.copytree(src, store)            # remember writes the delta log
    names = {p for t in TOOLS for p in inspect.signature(getattr(Tools, t.name)).parameters}
    assert set(ARGS) <= names, set(ARGS) - names
    tools = Tools.open([str(store)])
    try:
        sid = tools.open_session(author="schema").data["session"]
        calls = {
            "level": lambda v: tools.get(sid, "big.py", level=v),
            "direction": lambda v: tools.walk(sid, "big.py", direction=v),
            "edges": lambda v: tools.walk(sid, "big.py", edges=[v]),
            "kinds": lambda v: tools.search(sid, "compute value", kinds=[v]),
            "kind": lambda v: tools.remember(sid, v, f"a {v} note: compute_value_3 adds three", about=["big.py"]),
            "page_size": lambda v: [tools.tree(sid, page_size=v), tools.search(sid, "compute", page_size=v),
                                    tools.walk(sid, "big.py", page_size=v)],
            "depth": lambda v: tools.tree(sid, depth=v),
            "budget": lambda v: tools.prefetch(sid, ["big.py"], budget=v),
        }
        # a closed set or a bounded number (a note's text has no bound in ARGS, only its help)
        assert set(calls) == {a for a, spec in ARGS.items() if spec.choices or spec.max_chars is None and spec.bounded}
        for arg, spec in ((a, ARGS[a]) for a in calls):
            allowed = list(spec.choices) or [b for b in (spec.minimum, spec.maximum) if b is not None]
            outside = ["bogus"] if spec.choices else ([spec.minimum - 1] if spec.minimum is not None else []) + (
                [spec.maximum + 1] if spec.maximum is not None else [])
            for v in allowed:
                calls[arg](v)
            for v in outside:
                with pytest.raises((InvalidArgument, NoteRejected)):     # remember refuses a kind as a note
                    calls[arg](v)
    finally:
        tools.close()


def test_every_string_argument_has_the_one_bound_the_tools_refuse_past(indexed, tmp_path):
    """A string argument of ARGS.max_chars characters (a list: of that many each, max_items of them)
    gets past the length check of every tool that takes it; one character (one item) more is refused
    in the words the gRPC server's door uses too (convert.check_request): the door had limits of its
    own (lines 1024 where get allows 32: a probe)."""
    from serving import convert
    from serving._gen import stratum_pb2 as pb

    _repo, src = indexed
    store = tmp_path / "store"
    shutil.copytree(src, store)
    tools = Tools.open([str(store)])
    try:
        sid = tools.open_session(author="chars").data["session"]
        base = {"tree": {}, "search": {"query": "compute"}, "get": {"target": "big.py"}, "walk": {"target": "big.py"},
                "remember": {"kind": "rca", "text": "a note on compute_value_3", "about": ["big.py"]},
                "pin": {"target": "big.py"}, "unpin": {"target": "big.py"}, "prefetch": {"focus": ["big.py"]},
                "retract": {"note_id": "n0"}, "confirm": {"note_id": "n0"}}
        requests = {m[:-len("Request")].lower(): getattr(pb, m) for m in pb.DESCRIPTOR.message_types_by_name
                    if m.endswith("Request")}
        seen = set()
        for t in TOOLS:
            params = inspect.signature(getattr(Tools, t.name)).parameters
            for arg in (a for a in params if a in ARGS and ARGS[a].max_chars is not None):
                spec, seen = ARGS[arg], seen | {arg}
                one = "x" * spec.max_chars
                if arg == "query":          # its text is shorter (MAX_QUERY_CHARS): the bound is a pasted traceback's
                    one = ("Traceback (most recent call last):\n" + '  File "big.py", line 2, in compute_value_1\n'
                           * spec.max_chars)[:spec.max_chars]
                most = spec.max_items
                ok, over = ([one] * most, [[one + "x"], [one] * (most + 1)]) if spec.items else (one, [one + "x"])

                def call(value, t=t, arg=arg):
                    kwargs = {**base.get(t.name, {}), arg: value}
                    return getattr(tools, t.name)(**kwargs) if t.name == "open_session" else \
                        getattr(tools, t.name)(sid, **kwargs)
                try:
                    call(ok)
                except Exception as err:        # past the length check: refused for what it is, if at all
                    assert "characters; the limit is" not in str(err) and "entries; the limit" not in str(err), (t.name, arg, err)
                for value in over:
                    with pytest.raises(InvalidArgument) as mine:
                        call(value)
                    said = (f"{arg} has {most + 1} entries; the limit is {most}" if spec.items and len(value) == most + 1
                            # a query past every limit is told the prose one, naming the traceback's
                            else f"query is {spec.max_chars + 1} characters; the limit is {MAX_QUERY_CHARS} ("
                            if arg == "query" else f"{arg} is {spec.max_chars + 1} characters; the limit is {spec.max_chars} (")
                    assert mine.value.message.startswith(said), (t.name, arg, mine.value.message)
                    msg = requests[t.name.replace("_", "")](**{arg: value})
                    with pytest.raises(InvalidArgument) as door:
                        convert.check_request(msg)
                    assert door.value.message == mine.value.message, (t.name, arg)
        assert seen == {a for a, spec in ARGS.items() if spec.max_chars is not None}
    finally:
        tools.close()


@pytest.mark.parametrize("argv,tool,kwargs", [
    (("walk", "big.py"), "walk", {"target": "big.py"}),
    (("tree",), "tree", {}),
    (("search", "compute value"), "search", {"query": "compute value"}),
])
def test_cli_first_page_is_the_tools(indexed, capsys, argv, tool, kwargs):
    """`stratum walk` without --page-size answers the tool's first page (it paged 50, the tool 20)."""
    _repo, store = indexed
    capsys.readouterr()
    assert main([*argv, "--json", "--store", str(store)]) == 0
    cli = json.loads(capsys.readouterr().out)
    tools = Tools.open([str(store)])
    try:
        got = getattr(tools, tool)(tools.open_session().data["session"], **kwargs).to_dict()
    finally:
        tools.close()
    # a search page may end before its size where the evidence drops (stratum.pagecut); the page
    # count compared below still depends on the size asked
    assert len(got["items"]) == _tool_default(tool) or cut_at_the_cliff(got["envelope"]["next_hint"])
    assert got["envelope"]["has_more"]
    assert [it["id"] for it in cli["items"]] == [it["id"] for it in got["items"]]
    assert {k: cli["envelope"][k] for k in ("returned", "total", "pages", "has_more")} == \
           {k: got["envelope"][k] for k in ("returned", "total", "pages", "has_more")}


def test_every_argument_of_every_mcp_tool_says_what_it_means(indexed):
    """Each property of each MCP tool's input schema carries a description, from the one text its
    name has in ``toolspec.ARGS`` (a name means the same thing in every tool): the schemas gave
    type, enum and bounds only, so an agent had to guess what page_token, level, about or budget
    were (a probe)."""
    from mcp import Client as MCPClient

    from serving.mcp_server import build_server

    _repo, store = indexed

    async def run() -> dict:
        async with MCPClient(build_server(lambda: Tools.open([str(store)]), author="described",
                                          reload_interval=None)) as client:
            return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    tools = anyio.run(run)
    assert set(tools) == set(TOOL_NAMES)
    said = {(name, arg): prop.get("description") for name, schema in tools.items()
            for arg, prop in schema.get("properties", {}).items()}
    assert len(said) >= 25 and all(isinstance(d, str) and d.strip() for d in said.values()), \
        sorted(k for k, d in said.items() if not d)
    for (name, arg), text in said.items():
        assert text == ARGS[arg].help, (name, arg)          # one text per name, the same in every tool
    assert all(spec.help.strip() for spec in ARGS.values()), [a for a, s in ARGS.items() if not s.help.strip()]
    # what a user would check: page_size is the most a page holds, not the number it always returns
    assert "most" in said["search", "page_size"] and "page" in said["search", "page_size"], said["search", "page_size"]
    assert said["search", "page_size"] == said["tree", "page_size"] == said["walk", "page_size"]
