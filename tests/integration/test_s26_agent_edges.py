"""Seven answers an agent met over MCP that were wrong or unclear (session 26, probe p2, defects 2-8):
every note id is refused alike where code is needed (prefetch, remember's about, get's lines), a
symbol new in a file the checkout changed says so, a mined fix's header names its commit's author,
a path read by its tail works as ``path::symbol`` too, and ``path:-3`` gets the line-number error.
Real git repositories, the real index job, the real Tools, the CLI and an in-process MCP server."""

from __future__ import annotations

import json

import anyio
import pytest

from pipeline.gitio import freshness
from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.errors import InvalidArgument, NoteRejected, NotFound
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
PRICING = 'def discount(total, rate):\n    """Discount."""\n    return round(total * (1 - rate), 2)\n'
EDITED = ('def discount(total, rate):\n    """Discount."""\n    return round(total * (1 - rate), 2) if rate < 1 else 0.0\n'
          '\n\ndef clamp(rate):\n    return min(max(rate, 0), 1)\n')


@pytest.fixture(scope="module")
def noted(tmp_path_factory):
    """A repository with a mined fix, a merged rca note, a merged repo-wide insight and an unmerged
    failure note: (store, {name: id})."""
    r = Repo(tmp_path_factory.mktemp("s26q2") / "repo")
    r.commit("init", {"shop/pricing.py": PRICING})
    r.commit("fix rounding crash in discount", {"shop/pricing.py": PRICING + "\n"})
    index_repository(r.path, None, CFG)
    store = str(default_store_path(r.path))
    t = Tools.open([store])
    s = t.open_session(author="writer").data["session"]
    ids = {"repo_note": t.remember(s, "insight", "repo-wide insight", []).data["note_id"],
           "rca": t.remember(s, "rca", "rounding is in discount", ["shop/pricing.py::discount"]).data["note_id"]}
    t.close()
    index_repository(r.path, None, CFG)         # merges both
    t = Tools.open([store])
    s = t.open_session(author="writer").data["session"]
    ids["unmerged"] = t.remember(s, "failure", "unmerged one", ["shop/pricing.py::discount"]).data["note_id"]
    ids["fix"] = t.search(s, "fix rounding crash in discount", kinds=["fix"]).items[0].id
    t.close()
    return store, ids


@pytest.fixture
def tools(noted):
    t = Tools.open([noted[0]])
    yield t, t.open_session(author="agent").data["session"], noted[1]
    t.close()


def test_prefetch_refuses_every_note_id_alike(tools):
    t, s, ids = tools
    said = {}
    for name in ("unmerged", "rca", "repo_note", "fix"):
        with pytest.raises(InvalidArgument) as e:       # the merged ones: a file prefetched, or "no such file"
            t.prefetch(s, [ids[name]], budget=300)
        said[name] = e.value.message
    assert said["unmerged"].startswith(f"{ids['unmerged']} is a failure note, not code: focus on the files")
    assert said["rca"].startswith(f"{ids['rca']} is an rca note, not code: focus on the files")
    assert said["repo_note"].startswith(f"{ids['repo_note']} is an insight note, not code: focus on the files")
    assert said["fix"].startswith(f"{ids['fix']} is a mined fix (from commit ")


def test_remember_about_a_note_or_a_mined_fix_says_what_it_is(tools):
    t, s, ids = tools
    with pytest.raises(NoteRejected) as e:
        t.remember(s, "insight", "x", [ids["rca"]])
    assert e.value.message.startswith(f"{ids['rca']} is an rca note, not code: name the code")
    with pytest.raises(NoteRejected) as e:
        t.remember(s, "insight", "y", [ids["fix"]])
    assert e.value.message.startswith(f"{ids['fix']} is a mined fix (from commit ") and "not a node id" not in e.value.message
    with pytest.raises(NoteRejected) as e:          # a short id, as a why prints it
        t.remember(s, "insight", "z", [ids["unmerged"][:9]])
    assert "is a failure note, not code" in e.value.message


def test_get_lines_of_a_note_names_the_note(tools):
    t, s, ids = tools
    with pytest.raises(InvalidArgument) as e:
        t.get(s, ids["rca"], lines="1-2")
    assert e.value.message == (f"lines read source: {ids['rca']} is an rca note, not code: give a file or a symbol")


def test_a_negative_line_gets_the_line_number_error(tools):
    t, s, _ = tools
    with pytest.raises(InvalidArgument) as e:
        t.get(s, "shop/pricing.py:-3")
    assert e.value.message == "'shop/pricing.py:-3': line numbers start at 1"
    with pytest.raises(InvalidArgument) as e:
        t.get(s, "shop/pricing.py:0")
    assert e.value.message == "'shop/pricing.py:0': line numbers start at 1"


def test_a_tail_path_names_its_symbol_in_get_and_remember(tools, noted, capsys, monkeypatch):
    t, s, _ = tools
    it = t.get(s, "x/shop/pricing.py::discount", level="summary").items[0]
    assert (it.kind, it.qualname) == ("function", "discount")
    assert t.walk(s, "x/shop/pricing.py::discount", edges=["notes"]).items     # the notes about it
    t.pin(s, "x/shop/pricing.py::discount")
    nid = t.remember(s, "insight", "tail symbol", ["x/shop/pricing.py::discount"]).data["note_id"]
    note = t.get(s, nid, level="full").items[0]
    assert "shop/pricing.py::discount" in note.text and "x/shop" not in note.text
    with pytest.raises(NotFound) as e:                 # a symbol the file lacks: still "did you mean"
        t.get(s, "x/shop/pricing.py::discont")
    assert "no node 'x/shop/pricing.py::discont'" in e.value.message
    monkeypatch.chdir(noted[0].rsplit("/", 1)[0])
    rc, out, err = run(capsys, "get", "x/shop/pricing.py::discount", "--level", "summary")
    assert rc == 0 and "discount" in out, err


def test_a_mined_fix_header_names_its_commit_author_and_provenance_carries_it(tools):
    t, s, ids = tools
    it = t.get(s, ids["fix"], level="api").items[0]
    header = it.text.splitlines()[1]
    assert header.startswith("by Ada (mined from commit ") and ", committed 2024-01-02 12:02 UTC" in header, header
    assert "unauthenticated" not in it.text and it.trust == "mined"
    assert it.provenance["commit_author"] == "Ada" and it.provenance["source"] == "mined"

    from mcp import Client as MCPClient

    from serving.mcp_server import build_server

    async def over_mcp():
        async with MCPClient(build_server(lambda: Tools.open([str(t.memory.shards.shards[0].store.root)]),
                                          author="mcp-q2", reload_interval=None)) as client:
            got = await client.call_tool("get", {"target": ids["fix"]})
            bad = await client.call_tool("prefetch", {"focus": [ids["repo_note"]]})
            return json.loads(got.content[0].text), bad

    got, bad = anyio.run(over_mcp)
    item = got["items"][0]
    assert item["provenance"]["commit_author"] == "Ada" and "by Ada (mined from commit " in item["note_text"]
    assert bad.is_error and f"{ids['repo_note']} is an insight note, not code" in bad.content[0].text


def test_a_symbol_new_in_an_edited_file_says_so_and_its_note_reads_as_its_neighbours(tmp_path, capsys, monkeypatch):
    r = Repo(tmp_path / "repo")
    c1 = r.commit("init", {"shop/pricing.py": PRICING})
    index_repository(r.path, None, CFG)
    r.write({"shop/pricing.py": EDITED})        # the agent edits discount and adds clamp (uncommitted)
    t = Tools.open([str(default_store_path(r.path))], freshness=freshness, overlay_builder=builder(CFG))
    t.memory.freshness.probe_seconds = 0
    try:
        s = t.open_session(author="agent").data["session"]
        a = t.remember(s, "rca", "rate >= 1 gave negative totals", ["shop/pricing.py::discount"])
        b = t.remember(s, "insight", "clamp keeps rate in [0,1]", ["shop/pricing.py::clamp"])
        line = "uncommitted changes in shop/pricing.py (returned here)"
        assert a.envelope.stale and line in a.envelope.warnings
        assert b.envelope.stale and line in b.envelope.warnings        # it said neither
        want = (f"no node 'shop/pricing.py::clamp' in the index: shop/pricing.py has uncommitted changes since "
                f"the indexed commit {c1[:12]}, and 'clamp' may be new there: `stratum index` takes it in")
        for call in (lambda: t.get(s, "shop/pricing.py::clamp"), lambda: t.pin(s, "shop/pricing.py::clamp"),
                     lambda: t.walk(s, "shop/pricing.py::clamp"), lambda: t.get(s, "x/shop/pricing.py::clamp")):
            with pytest.raises(NotFound) as e:
                call()
            assert e.value.message.replace("x/shop", "shop") == want
        with pytest.raises(NotFound) as e:        # a clean file's missing symbol: the plain refusal
            t.get(s, "shop/nothere.py::clamp")
        assert "may be new" not in e.value.message
    finally:
        t.close()
    monkeypatch.chdir(r.path)
    rc, out, err = run(capsys, "get", "shop/pricing.py::clamp")
    assert rc != 0 and "shop/pricing.py has uncommitted changes since the indexed commit" in err, err
