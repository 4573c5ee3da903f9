"""A target naming a file renamed or deleted since (a fleet's notes written about a path it had read
before `git mv`) says where the file went, by the index's own history: get and remember said only
"no node" / "unknown target", as for a typo (a probe: 30 writes lost). A real repository, the real
index job, Tools (the one code path of the CLI, gRPC and MCP) and the CLI."""

from __future__ import annotations

import pytest

from stratum.config import EmbedConfig, IndexConfig
from stratum.errors import NoteRejected, NotFound
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False))
AGENT = "class UserAgent:\n    def parse(self, s):\n        return s.split('/')\n"


@pytest.fixture(scope="module")
def moved(tmp_path_factory):
    """A repository where user_agent.py was renamed, chain_a.py renamed twice and gone.py deleted."""
    from pipeline.job import index_repository

    base = tmp_path_factory.mktemp("moved")
    r = Repo(base / "r")
    r.commit("init", {"src/w/user_agent.py": AGENT, "src/w/chain_a.py": "def step():\n    return 1\n",
                      "src/w/gone.py": "def old():\n    return 0\n", "src/w/keep.py": "def keep():\n    return 2\n"})
    r.mv("src/w/user_agent.py", "src/w/useragent.py")
    r.mv("src/w/chain_a.py", "src/w/chain_b.py")
    renamed = r.commit("rename user agent, chain a -> b")
    r.mv("src/w/chain_b.py", "src/w/chain_c.py")
    later = r.commit("chain b -> c; drop gone", delete=["src/w/gone.py"])
    index_repository(r.path, base / "store", CFG)
    t = Tools.open([str(base / "store")])
    yield t, t.open_session(author="agent").data["session"], renamed[:12], later[:12], base
    t.close()


def test_get_of_a_renamed_file_names_where_it_went(moved):
    t, s, renamed, later, _ = moved
    with pytest.raises(NotFound) as e:
        t.get(s, "src/w/user_agent.py")
    assert str(e.value) == (f"'src/w/user_agent.py' is not in the index: it was renamed to 'src/w/useragent.py' in "
                            f"{renamed} (2024-01-02); did you mean src/w/useragent.py?")
    with pytest.raises(NotFound) as e:            # its symbol: the same symbol where the file is now
        t.get(s, "src/w/user_agent.py::UserAgent.parse")
    assert str(e.value).endswith("; did you mean src/w/useragent.py::UserAgent.parse?")
    with pytest.raises(NotFound) as e:            # a symbol the file no longer has: the file
        t.get(s, "src/w/user_agent.py::UserAgent.gone")
    assert str(e.value).endswith("; did you mean src/w/useragent.py (no node 'UserAgent.gone' there)?")
    with pytest.raises(NotFound) as e:            # renamed twice: the path it has now
        t.get(s, "./src/w/chain_a.py")
    assert str(e.value) == (f"'src/w/chain_a.py' is not in the index: it was renamed to 'src/w/chain_b.py' in "
                            f"{renamed} (2024-01-02), and is now 'src/w/chain_c.py'; did you mean src/w/chain_c.py?")
    with pytest.raises(NotFound) as e:
        t.get(s, "src/w/chain_b.py::step")
    assert str(e.value) == (f"'src/w/chain_b.py' is not in the index: it was renamed to 'src/w/chain_c.py' in "
                            f"{later} (2024-01-03); did you mean src/w/chain_c.py::step?")
    assert t.get(s, "src/w/useragent.py::UserAgent.parse").items[0].id      # a hit is a hit


def test_get_of_a_deleted_file_says_deleted_and_a_typo_stays_a_typo(moved):
    t, s, _, later, _ = moved
    with pytest.raises(NotFound) as e:
        t.get(s, "src/w/gone.py")
    assert str(e.value) == f"'src/w/gone.py' is not in the index: it was deleted in {later} (2024-01-03)"
    with pytest.raises(NotFound) as e:
        t.get(s, "src/w/gone.py::old")
    assert "deleted in" in str(e.value)
    with pytest.raises(NotFound) as e:            # never existed: the message it always had
        t.get(s, "src/w/nope.py")
    assert str(e.value).startswith("no node 'src/w/nope.py': use a node id")
    with pytest.raises(NotFound) as e:
        t.get(s, "src/w/keep.py::nosuch")
    assert str(e.value).startswith("no node 'src/w/keep.py::nosuch'") and "renamed" not in str(e.value)


def test_remember_about_a_moved_file_names_where_it_went(moved):
    t, s, renamed, later, _ = moved
    with pytest.raises(NoteRejected) as e:
        t.remember(s, "rca", "x", about=["src/w/user_agent.py"])
    assert str(e.value).endswith(f"it was renamed to 'src/w/useragent.py' in {renamed} (2024-01-02); "
                                 "did you mean src/w/useragent.py?")
    with pytest.raises(NoteRejected) as e:
        t.remember(s, "rca", "x", about=["src/w/user_agent.py::UserAgent.parse"])
    assert str(e.value).endswith("did you mean src/w/useragent.py::UserAgent.parse?")
    with pytest.raises(NoteRejected) as e:
        t.remember(s, "rca", "x", about=["src/w/gone.py"])
    assert str(e.value).endswith(f"'src/w/gone.py' is not in the index: it was deleted in {later} (2024-01-03)")
    with pytest.raises(NoteRejected) as e:
        t.remember(s, "rca", "x", about=["src/w/nope.py"])
    assert str(e.value) == ("unknown target: 'src/w/nope.py': not a node id, path or path::qualname of the "
                            "indexed code")


def test_the_cli_says_it_too(moved, capsys):
    _, _, renamed, _, base = moved
    store = str(base / "store")
    rc, out, err = run(capsys, "get", "src/w/user_agent.py", "--store", store)
    assert rc != 0 and f"renamed to 'src/w/useragent.py' in {renamed}" in err + out
    rc, out, err = run(capsys, "remember", "rca", "x", "--about", "src/w/user_agent.py", "--store", store)
    assert rc != 0 and "did you mean src/w/useragent.py?" in err + out


def test_grpc_and_mcp_say_it_as_the_tools_do(moved):
    """One code path: the gRPC client's error and MCP's error text carry the same words."""
    import anyio
    from mcp import Client as MCPClient

    from serving.client import Client
    from serving.mcp_server import build_server
    from serving.server import serve

    t, s, renamed, later, base = moved
    want = (f"'src/w/user_agent.py' is not in the index: it was renamed to 'src/w/useragent.py' in {renamed} "
            "(2024-01-02); did you mean src/w/useragent.py::UserAgent.parse?")
    server, port = serve(t, port=0, reload_interval=None)
    client = Client(f"127.0.0.1:{port}", timeout=60)
    try:
        cs = client.open_session(author="agent").data["session"]
        with pytest.raises(NotFound) as e:
            client.get(cs, "src/w/user_agent.py::UserAgent.parse")
        assert str(e.value) == want
        with pytest.raises(NoteRejected) as e:
            client.remember(cs, "rca", "x", about=["src/w/gone.py"])
        assert str(e.value).endswith(f"it was deleted in {later} (2024-01-03)")
    finally:
        client.close()
        server.stop(None)

    async def go() -> tuple[str, str]:
        async with MCPClient(build_server(lambda: Tools.open([str(base / "store")]), author="agent",
                                          reload_interval=None)) as c:
            got = await c.call_tool("get", {"target": "src/w/user_agent.py::UserAgent.parse"})
            wrote = await c.call_tool("remember", {"kind": "rca", "text": "x", "about": ["src/w/gone.py"]})
            assert got.is_error and wrote.is_error
            return got.content[0].text, wrote.content[0].text
    got, wrote = anyio.run(go)
    assert want in got and f"it was deleted in {later} (2024-01-03)" in wrote


def test_with_two_stores_the_suggestion_names_the_store_whose_history_moved_it(moved, tmp_path):
    from pipeline.job import index_repository

    _, _, renamed, _, base = moved
    other = Repo(tmp_path / "other")
    other.commit("init", {"lib/x.py": "def x():\n    return 1\n"})
    index_repository(other.path, tmp_path / "store", CFG)
    t = Tools.open([str(tmp_path / "store"), str(base / "store")])
    try:
        s = t.open_session(author="agent").data["session"]
        with pytest.raises(NotFound) as e:
            t.get(s, "src/w/user_agent.py::UserAgent.parse")
        assert str(e.value).endswith(f"in {renamed} (2024-01-02); did you mean r:src/w/useragent.py::UserAgent.parse?")
        assert t.get(s, "r:src/w/useragent.py::UserAgent.parse").items[0].id      # the name offered is found
        with pytest.raises(NotFound) as e:          # asked in the other store: its answer, as before
            t.get(s, "other:src/w/user_agent.py")
        assert str(e.value).startswith("no node 'other:src/w/user_agent.py'")
    finally:
        t.close()
