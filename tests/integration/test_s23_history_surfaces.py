"""What a data team and an agent read of the history agrees, and odd input is told so (a data probe):

- `walk X --edge cochange` carried its co-change meta as strings (support "3", confidence
  "0.75", last_time "2024-01-04 12:00:00+00:00") where `stratum cochange --json` gives numbers and
  an ISO time; the same edge now reads alike in process, over gRPC (meta_json) and over MCP;
- `stratum cochange /etc/passwd` (or ``../x.py``) said "has no commits in the mined history yet:
  commit it, then index";
- ``top_pairs(min_support="x")`` / ``coupling_over_time(max_files_per_commit="x")`` were Polars'
  ComputeError, 1.5 and -5 were taken silently (-5: an empty frame);
- `stratum history --parquet` wrote large_string / large_list and dropped the not-null flags, so
  its files' schema differed from ``stratum.schema.DATASETS``.

A real git repository, the real index job, the real tools, CLI, gRPC server on loopback and MCP."""

from __future__ import annotations

import json

import anyio
import pyarrow.parquet as pq
import pytest
from mcp import Client as MCPClient

from pipeline.job import index_repository
from serving.client import Client
from serving.mcp_server import build_server
from serving.server import serve
from stratum import analysis as A
from stratum import schema as S
from stratum.config import EmbedConfig, IndexConfig
from stratum.errors import InvalidArgument
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """shop/cart.py and shop/pricing.py change together three times (cart once alone)."""
    base = tmp_path_factory.mktemp("s23surf")
    r = Repo(base / "repo")
    r.commit("start", {"shop/__init__.py": "", "shop/cart.py": "A = 1\n", "shop/pricing.py": "P = 1\n"})
    r.commit("grow", {"shop/cart.py": "A = 2\n", "shop/pricing.py": "P = 2\n"})
    r.commit("cart alone", {"shop/cart.py": "A = 3\n"})
    r.commit("grow again", {"shop/cart.py": "A = 4\n", "shop/pricing.py": "P = 3\n"})
    index_repository(r.path, base / "store", IndexConfig(ray=False, embed=EmbedConfig(enabled=False)))
    return r.path, str(base / "store"), base


def _walk_meta(backend) -> dict:
    s = backend.open_session(author="agent").data["session"]
    (item,) = [i for i in backend.walk(s, "shop/cart.py", ["cochange"]).items if i.path == "shop/pricing.py"]
    return item.meta


def _mcp_walk_meta(open_backend) -> dict:
    async def go():
        async with MCPClient(build_server(open_backend, author="agent", reload_interval=None)) as c:
            got = await c.call_tool("walk", {"target": "shop/cart.py", "edges": ["cochange"]})
            assert not got.is_error, got.content
            return json.loads(got.content[0].text)
    (item,) = [i for i in anyio.run(go)["items"] if i["path"] == "shop/pricing.py"]
    return item["meta"]


def test_walks_cochange_meta_is_typed_as_cochange_gives_it_on_every_surface(indexed, capsys):
    repo, store, _ = indexed
    rc, out, err = run(capsys, "cochange", "shop/cart.py", "--store", store, "--json")
    assert rc == 0, err
    (want,) = [p for p in json.loads(out)["partners"] if p["partner"] == "shop/pricing.py"]
    expected = {"support": want["support"], "confidence": want["confidence"], "lift": want["lift"],
                "last_time": want["last_time"]}
    assert expected["support"] == 3 and expected["last_time"].startswith("2") and "T" in expected["last_time"]

    tools = Tools.open([store])
    server, port = serve(tools, port=0, reload_interval=None)
    client = Client(f"127.0.0.1:{port}", timeout=60)
    try:
        here, there = _walk_meta(tools), _walk_meta(client)
        mcp_here = _mcp_walk_meta(lambda: Tools.open([store]))
        mcp_there = _mcp_walk_meta(lambda: Client(f"127.0.0.1:{port}", timeout=60))
    finally:
        client.close()
        server.stop(None)
        tools.close()
    for got in (here, there, mcp_here, mcp_there):
        assert {k: got.get(k) for k in expected} == expected, got
    assert here == there == mcp_here == mcp_there          # the same fields on every surface
    rc, out, err = run(capsys, "walk", "shop/cart.py", "--edge", "cochange", "--store", store, "--json")
    assert rc == 0, err
    (item,) = [i for i in json.loads(out)["items"] if i["path"] == "shop/pricing.py"]
    assert {k: item["meta"].get(k) for k in expected} == expected, item


def test_a_path_outside_the_repository_is_said_to_be_outside(indexed, capsys, monkeypatch):
    repo, store, base = indexed
    (base / "elsewhere.py").write_text("X = 1\n")
    monkeypatch.chdir(repo)
    for path in ("/etc/passwd", "../elsewhere.py", str(base / "elsewhere.py")):
        with pytest.raises(InvalidArgument, match="is not inside the repository") as ei:
            A.coupled_with(store, path)
        assert "commit it" not in ei.value.message
        rc, _, err = run(capsys, "cochange", path, "--store", store)
        assert rc == 2 and "is not inside the repository" in err and "commit it" not in err, err
    assert A.coupled_with(store, str(repo / "shop/cart.py")).collect().height == 1      # inside: answered


def test_min_support_and_max_files_per_commit_are_checked(indexed):
    _, store, _ = indexed
    for bad, said in (("x", "must be a whole number, got 'x' (str)"), (1.5, "must be a whole number, got 1.5"),
                      (0, "must be at least 1, got 0"), (True, "got True (bool)")):
        with pytest.raises(InvalidArgument, match="min_support") as ei:
            A.top_pairs(store, min_support=bad)
        assert said in ei.value.message, ei.value.message
    for bad, said in (("x", "must be a whole number, got 'x' (str)"), (-5, "must be at least 1, got -5"),
                      (2.0, "must be a whole number, got 2.0")):
        with pytest.raises(InvalidArgument, match="max_files_per_commit") as ei:
            A.coupling_over_time(store, "shop/cart.py", max_files_per_commit=bad)
        assert said in ei.value.message, ei.value.message
    assert A.top_pairs(store, min_support=3).collect().height == 1
    assert A.coupling_over_time(store, "shop/cart.py", max_files_per_commit=2).collect().height == 1


def test_the_parquet_export_has_the_documented_schema(indexed, capsys, tmp_path):
    _, store, _ = indexed
    out = tmp_path / "export"
    rc, text, err = run(capsys, "history", "--store", store, "--parquet", str(out), "--json")
    assert rc == 0, err
    written = json.loads(text)["parquet"]
    assert sorted(p.rsplit("/", 1)[1] for p in written) == ["cochange.parquet", "commits.parquet", "file_changes.parquet"]
    for name in ("commits", "file_changes", "cochange"):
        got = pq.read_schema(out / f"{name}.parquet").remove_metadata()
        assert got.equals(S.DATASETS[name].remove_metadata()), (name, got)
        assert pq.read_table(out / f"{name}.parquet").num_rows == A.dataset(store, name).collect().height
    assert not list(out.glob(".*.part"))
    (tmp_path / "a_file").write_text("")
    rc, _, err = run(capsys, "history", "--store", store, "--parquet", str(tmp_path / "a_file"))
    assert rc == 2 and "cannot export into" in err, err


def test_a_min_support_under_the_stores_is_refused_not_filtered_unsaid(indexed):
    """The store keeps pairs of support >= 2 (the default): 1 returned those, as if they were all."""
    _, store, _ = indexed
    assert A.settings(store)["min_support"] == 2
    with pytest.raises(InvalidArgument, match=r"keeps only pairs seen in at least 2 commits") as ei:
        A.top_pairs(store, min_support=1)
    assert "HistoryConfig(min_support=1)" in ei.value.message
    assert A.top_pairs(store, min_support=2).collect().height == A.top_pairs(store, n=0).collect().height == 1


def test_cochange_parquet_to_a_path_it_cannot_write_is_a_bad_argument(indexed, capsys, tmp_path):
    """It was ``store_error`` (a damaged index, to an agent) with Polars' raw OS text, exit 1."""
    _, store, _ = indexed
    rc, text, err = run(capsys, "cochange", "shop/cart.py", "--store", store, "--parquet", str(tmp_path), "--json")
    assert rc == 2 and json.loads(text)["error"]["code"] == "invalid_argument", text
    assert "cannot write the partners to" in json.loads(text)["error"]["message"]
    out = tmp_path / "new" / "folder" / "partners.parquet"       # a folder not there yet is made
    rc, _, err = run(capsys, "cochange", "shop/cart.py", "--store", store, "--parquet", str(out))
    assert rc == 0 and pq.read_table(out).num_rows == 1 and list(out.parent.iterdir()) == [out], err   # no temp left
    import os
    import stat
    if os.path.exists("/dev/full") and stat.S_ISCHR(os.stat("/dev/full").st_mode):      # a full disk
        rc, text, _ = run(capsys, "cochange", "shop/cart.py", "--store", store, "--parquet", "/dev/full", "--json")
        assert rc == 2 and json.loads(text)["error"]["code"] == "resource_exhausted", text   # a traceback, exit 1
        assert stat.S_ISCHR(os.stat("/dev/full").st_mode)     # written in place, never replaced


def test_cochange_of_a_partner_named_with_a_backslash_says_it_is_indexed(tmp_path, capsys):
    """History spells a backslash doubled, nodes as the name has it: the partner was "(not indexed)"
    though `walk --edge cochange` lists it. A partner the index skips (a lockfile) is still said
    to be so, and the hint's path with a space is quoted, to paste."""
    r = Repo(tmp_path / "odd")
    for i in range(3):
        r.commit(f"c{i}", {"my file.py": f"x = {i}\n", "back\\slash.py": f"z = {i}\n", "poetry.lock": f"{i}\n"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, IndexConfig(ray=False, embed=EmbedConfig(enabled=False)))
    rc, text, err = run(capsys, "cochange", "my file.py", "--store", store, "--json")
    got = json.loads(text)
    assert rc == 0 and got["not_indexed"] == 1, text
    assert {p["partner"]: p["indexed"] for p in got["partners"]} == {"back\\\\slash.py": True, "poetry.lock": False}
    rc, walked, _ = run(capsys, "walk", "my file.py", "--edge", "cochange", "--store", store)
    assert rc == 0 and "slash.py" in walked
    rc, text, err = run(capsys, "cochange", "my file.py", "--store", store)
    assert rc == 0 and "`stratum walk 'my file.py' --edge cochange`" in text, text
