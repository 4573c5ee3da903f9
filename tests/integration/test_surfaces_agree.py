"""The agent-facing surfaces agree: the tools in process (and the CLI over them), the gRPC client in
front of a real server on loopback, and MCP (the SDK's own client, in process, over the tools and in
front of that server), on two real repositories indexed by the real job.

Probes: a byte that is not UTF-8 in remember's kind was NoteRejected "unknown note kind 'caf?'" in
process and InvalidArgument over gRPC; one in get's lines "must be START-END" against "not valid
UTF-8" (and lines=93 "must be text" against "must be a string, not int"); a short id both stores'
ids start with said "no node"; messages showed such a byte as '?'; a system error through a server
carried its code twice over MCP ("store_damaged: internal error (store_damaged): ..."), and MCP's
error had no field holding the code or whether to retry."""

from __future__ import annotations

import shutil

import anyio
import pytest
from mcp import Client as MCPClient

from pipeline.job import index_repository
from serving.client import Client
from serving.mcp_server import build_server
from serving.server import serve
from stratum import ids
from stratum.cli import main
from stratum.config import IndexConfig
from stratum.errors import InvalidArgument, NoteRejected, StratumError
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False)
BYTE = "caf\udce9"          # what Python hands over for the command-line bytes caf\xe9


def _colliding() -> tuple[str, str, str]:
    """(alpha's file, beta's file, a 7-character prefix both file nodes' ids start with): a short
    id, as a why prints one, that names a node in each store."""
    seen: dict[str, str] = {}
    for i in range(60000):
        seen.setdefault(ids.node_id("alpha", f"mod_{i}.py", "file")[:7], f"mod_{i}.py")
    for j in range(60000):
        p = ids.node_id("beta", f"mod_{j}.py", "file")[:7]
        if p in seen:
            return seen[p], f"mod_{j}.py", p
    raise AssertionError("no colliding prefix found")


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """(alpha store, beta store, alpha's file, beta's file, their ids' shared prefix)."""
    base = tmp_path_factory.mktemp("surfaces")
    a_file, b_file, prefix = _colliding()
    out = []
    for name, f in (("alpha", a_file), ("beta", b_file)):
        r = Repo(base / name)
        r.commit("init", {f: '"""One module."""\n\nX = 1\n', "README.md": f"# {name}\n"})
        index_repository(r.path, base / f"{name}_store", CFG)
        out.append(str(base / f"{name}_store"))
    return out[0], out[1], a_file, b_file, prefix


@pytest.fixture(scope="module")
def served(stores):
    """(Tools over both stores, a gRPC client of a real server over those tools, its address)."""
    tools = Tools.open(list(stores[:2]))
    server, port = serve(tools, port=0, reload_interval=None)
    client = Client(f"127.0.0.1:{port}", timeout=60)
    try:
        yield tools, client, f"127.0.0.1:{port}"
    finally:
        client.close()
        server.stop(None)
        tools.close()


def _refusal(call) -> tuple[type, str]:
    with pytest.raises(StratumError) as ei:
        call()
    return type(ei.value), ei.value.message


def test_a_bad_argument_is_refused_alike_in_process_and_over_grpc(stores, served):
    tools, client, _ = served
    a_file = stores[2]
    local = tools.open_session(author="agent").data["session"]
    remote = client.open_session(author="agent").data["session"]
    cases = [("remember", dict(kind=BYTE, text="a finding", about=[a_file])),     # the probe: two classes
             ("get", dict(target=a_file, lines="9\udce9-3")),                       # two wordings of lines
             ("get", dict(target=a_file, lines=93)),
             ("get", dict(target=a_file, lines="9-3")),
             ("get", dict(target=a_file, level=3)),
             ("search", dict(query="one module", path_prefix=BYTE)),              # searched in process
             ("walk", dict(target=a_file, page_token=BYTE)),
             ("tree", dict(page_size=2**31)),                                      # "is out of range" over gRPC
             ("status", dict(session="s\udce9"))]
    for name, kw in cases:
        args = {"session": local, **kw}
        here = _refusal(lambda: getattr(tools, name)(**args))
        args["session"] = remote if args["session"] == local else args["session"]
        there = _refusal(lambda: getattr(client, name)(**args))
        assert here == there, (name, kw, here, there)

    cls, said = _refusal(lambda: tools.remember(local, BYTE, "a finding", [a_file]))
    assert cls is NoteRejected and said.startswith("note kind 'caf\\xe9' holds a byte that is not valid UTF-8"), said
    cls, said = _refusal(lambda: tools.get(local, a_file, lines="9\udce9-3"))
    assert cls is InvalidArgument and said.startswith("lines '9\\xe9-3' holds a byte that is not valid UTF-8"), said
    # free text keeps its finding on both: the byte reads as U+FFFD
    assert tools.search(local, f"one module {BYTE}").items and client.search(remote, f"one module {BYTE}").items


def test_the_cli_says_a_bad_range_alike_on_a_store_and_with_server(stores, served, capsys, tmp_path, monkeypatch):
    _, _, address = served
    monkeypatch.chdir(tmp_path)     # in no checkout: run from a linked worktree, --server says it answers for main
    a_file = stores[2]
    for lines in ("9-3", "x", "9\udce9-3"):
        said = []
        for where in (["--store", stores[0]], ["--server", address]):
            assert main(["get", a_file, "--lines", lines, *where]) == 2
            said.append(capsys.readouterr().err)
        assert said[0] == said[1] and said[0].startswith("stratum: error: lines "), said
    assert said[0].startswith("stratum: error: lines '9\\xe9-3' holds a byte"), said   # as typed (it was '9?-3')


def test_a_short_id_both_stores_ids_start_with_is_ambiguous_naming_both(stores, served):
    tools, client, _ = served
    _, _, a_file, b_file, prefix = stores
    a_id, b_id = ids.node_id("alpha", a_file, "file"), ids.node_id("beta", b_file, "file")
    for backend in (tools, client):
        s = backend.open_session(author="agent").data["session"]
        with pytest.raises(InvalidArgument) as ei:
            backend.get(s, prefix, "summary")
        said = ei.value.message
        assert said.startswith(f"'{prefix}' is ambiguous: it matches "), said
        assert f"{a_id} (file {a_file}) in alpha" in said and f"{b_id} (file {b_file}) in beta" in said, said
        # each whole id, and the prefix in one named store, is one node
        assert backend.get(s, a_id, "summary").items[0].path == a_file
        assert backend.get(s, f"beta:{prefix}", "summary").items[0].path == b_file


def _mcp_errors(open_backend, calls) -> list:
    async def run() -> list:
        async with MCPClient(build_server(open_backend, author="agent", reload_interval=None)) as c:
            return [await c.call_tool(name, args) for name, args in calls]
    return anyio.run(run)


def test_mcp_errors_carry_the_code_and_message_grpc_and_the_cli_give(stores, served):
    tools, client, address = served
    a_file = stores[2]
    calls = [("get", {"target": "nothing_here.py"}), ("get", {"target": a_file, "lines": "9-3"}),
             ("remember", {"kind": "insight", "text": "a finding", "about": ["nothing_here.py"]})]
    s = client.open_session(author="agent").data["session"]
    expected = []
    for name, args in calls:
        with pytest.raises(StratumError) as ei:
            getattr(client, name)(s, **args)
        expected.append(ei.value.to_dict())
    for open_backend in (lambda: Tools.open(list(stores[:2])), lambda: Client(address, timeout=60)):
        for (name, _), want, got in zip(calls, expected, _mcp_errors(open_backend, calls)):
            assert got.is_error and got.structured_content == {"error": want}, (name, got)
            text = got.content[0].text
            assert text == f"Error executing tool {name}: {want['code']}: {want['message']}", text


def test_a_system_error_through_a_server_keeps_the_tools_message_and_one_code(stores, tmp_path):
    """A store whose data went away under a running server: the tools' StoreDamaged, its message
    as the tools give it (and the server log's ref), the code said once over MCP."""
    store = tmp_path / "store"
    shutil.copytree(stores[1], store)
    tools = Tools.open([str(store)])
    server, port = serve(tools, port=0, reload_interval=None)
    try:
        s = tools.open_session().data["session"]
        shutil.rmtree(store / "data-v1")          # nothing read yet: get's full text reads it now
        with pytest.raises(StratumError) as here:
            tools.get(s, stores[3], "full")
        assert here.value.code == "store_damaged"
        with Client(f"127.0.0.1:{port}", timeout=60) as c:
            with pytest.raises(StratumError) as there:
                c.get(c.open_session().data["session"], stores[3], "full")
        assert type(there.value) is type(here.value)
        assert there.value.message.startswith(here.value.message + " (ref "), there.value.message
        (got,) = _mcp_errors(lambda: Client(f"127.0.0.1:{port}", timeout=60),
                             [("get", {"target": stores[3], "level": "full"})])
        assert got.structured_content["error"]["code"] == "store_damaged"
        assert got.content[0].text.count("store_damaged") == 1, got.content[0].text
    finally:
        server.stop(None)
        tools.close()
