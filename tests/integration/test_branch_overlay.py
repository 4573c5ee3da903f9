"""Sessions on a branch or commit: base + overlay answered as one, the shared base never modified."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import build, builder
from stratum.config import IndexConfig
from stratum.errors import InvalidArgument, NotFound
from stratum.store import Store
from stratum.tools import Tools
from tests.gitrepo import Repo, git


@pytest.fixture(scope="module")
def branched(tmp_path_factory):
    """(repo, store): main indexed; branch feat adds a function and a file, deletes pkg/gone.py."""
    root = tmp_path_factory.mktemp("branch")
    r = Repo(root / "repo")
    r.commit("init", {"pkg/a.py": "def alpha():\n    return 1\n",
                      "pkg/b.py": "from pkg.a import alpha\n\n\ndef beta():\n    return alpha()\n",
                      "pkg/gone.py": "def doomed_helper():\n    pass\n"})
    index_repository(r.path, root / "store", IndexConfig(num_cpus=1, ray=False))
    git(r.path, "checkout", "-q", "-b", "feat")
    r.commit("feat", {"pkg/a.py": "def alpha():\n    return 1\n\n\ndef zebra_frobnicate():\n    return 2\n",
                      "pkg/new.py": "from pkg.a import zebra_frobnicate\nfrom pkg.b import beta\n"},
             delete=["pkg/gone.py"])
    git(r.path, "checkout", "-q", "main")
    return r, root / "store"


def _store_state(store):
    st = Store(store)
    m = st.manifest()
    return m.version, m.datasets, st.published_versions()


def _names(resp):
    return {(i.path, i.qualname) for i in resp.items}


def test_branch_session_sees_branch_base_session_unaffected(branched):
    repo, store = branched
    before = _store_state(store)
    t = Tools.open([str(store)], overlay_builder=builder())
    base = t.open_session().data["session"]
    opened = t.open_session(branch="feat")
    sid = opened.data["session"]
    feat_sha = git(repo.path, "rev-parse", "feat").strip()
    assert opened.envelope.commit == feat_sha
    assert any(w.startswith("branch overlay: 3 changed files") for w in opened.envelope.warnings)

    r = t.search(sid, "zebra_frobnicate")
    assert ("pkg/a.py", "zebra_frobnicate") in _names(r)
    assert r.envelope.commit == feat_sha
    assert all(i.path != "pkg/gone.py" for i in t.search(sid, "doomed_helper").items)
    with pytest.raises(NotFound):
        t.get(sid, "pkg/gone.py")
    with pytest.raises(NotFound):
        t.get(sid, "pkg/gone.py::doomed_helper")
    tree = _names(t.tree(sid, "", depth=4))
    assert ("pkg/new.py", "") in tree and ("pkg/a.py", "zebra_frobnicate") in tree
    assert all(p != "pkg/gone.py" for p, _ in tree)
    assert "zebra_frobnicate" in t.get(sid, "pkg/a.py", level="full").items[0].text
    ov = t.status(sid).data["overlay"]
    assert ov["for"] == "feat" and list(ov["stores"].values())[0]["deleted"] == ["pkg/gone.py"]
    assert "overlay" not in t.status(base).data
    walked = {(i.path, i.edge) for i in t.walk(sid, "pkg/new.py").items}
    assert {("pkg/a.py", "imports"), ("pkg/b.py", "imports")} <= walked      # an overlay and a base file
    importers = {i.path for i in t.walk(sid, "pkg/a.py", edges=["imports"], direction="in").items}
    assert importers == {"pkg/b.py", "pkg/new.py"}
    assert {i.path for i in t.walk(sid, "pkg/b.py", edges=["imports"], direction="in").items} == {"pkg/new.py"}
    assert {i.path for i in t.walk(sid, "pkg/b.py", edges=["imports"]).items} == {"pkg/a.py"}

    # the default-branch session: as indexed, no overlay word
    r = t.search(base, "zebra_frobnicate")
    assert ("pkg/a.py", "zebra_frobnicate") not in _names(r)
    assert not any(w.startswith("branch overlay") for w in r.envelope.warnings)
    assert t.get(base, "pkg/gone.py").items[0].path == "pkg/gone.py"
    with pytest.raises(NotFound):
        t.get(base, "pkg/new.py")
    assert {i.path for i in t.walk(base, "pkg/a.py", edges=["imports"], direction="in").items} == {"pkg/b.py"}
    assert _store_state(store) == before


def test_pin_and_prefetch_follow_the_branch(branched):
    """pin/unpin/prefetch resolve through the session's view like get: a file the branch added can
    be pinned, and a changed file is prefetched as the branch has it. (Prefetching a file only the
    branch has is not supported yet: the controller's graph view reads the base.)"""
    _repo, store = branched
    t = Tools.open([str(store)], overlay_builder=builder())
    sid = t.open_session(branch="feat").data["session"]
    t.pin(sid, "pkg/new.py")
    assert "pkg/new.py was not pinned" not in t.unpin(sid, "pkg/new.py").envelope.warnings
    assert "pkg/new.py was not pinned" in t.unpin(sid, "pkg/new.py").envelope.warnings     # said, not silent
    got = t.prefetch(sid, ["pkg/a.py"], budget=4000)
    a = [i for i in got.items if i.path == "pkg/a.py" and not i.qualname]
    assert a and "zebra_frobnicate" in a[0].text
    assert all(i.path != "pkg/gone.py" for i in got.items)
    base = t.open_session().data["session"]
    with pytest.raises(NotFound):
        t.pin(base, "pkg/new.py")


def test_commit_overlay_cached_and_bad_revisions(branched):
    repo, store = branched
    sha = git(repo.path, "rev-parse", "feat").strip()
    first = build(store, sha)
    again = build(store, "feat")
    assert again["cached"] and again["dir"] == first["dir"]
    assert again["deleted"] == ["pkg/gone.py"] and again["changed"] == ["pkg/a.py", "pkg/new.py"]
    t = Tools.open([str(store)], overlay_builder=builder())
    with pytest.raises(InvalidArgument):
        t.open_session(branch="no-such-branch")
    with pytest.raises(InvalidArgument):
        t.open_session(branch="feat", commit=sha)
    with pytest.raises(InvalidArgument):
        Tools.open([str(store)]).open_session(branch="feat")
    sid = t.open_session(commit=sha).data["session"]
    assert ("pkg/a.py", "zebra_frobnicate") in _names(t.search(sid, "zebra_frobnicate"))


@pytest.mark.slow
def test_branch_session_over_grpc_cli_and_mcp(branched):
    import json
    import subprocess
    import sys

    import anyio
    from mcp import Client as MCPClient

    from pipeline.gitio import freshness
    from serving.client import Client
    from serving.mcp_server import build_server
    from serving.server import serve

    repo, store = branched
    before = _store_state(store)
    feat_sha = git(repo.path, "rev-parse", "feat").strip()
    tools = Tools.open([str(store)], freshness=freshness, overlay_builder=builder())
    server, port = serve(tools, port=0, reload_interval=None)
    try:
        with Client(f"127.0.0.1:{port}", timeout=30) as c:
            sid = c.open_session(branch="feat").data["session"]
            r = c.search(sid, "zebra_frobnicate")
            assert ("pkg/a.py", "zebra_frobnicate") in _names(r) and r.envelope.commit == feat_sha
            assert any(w.startswith("branch overlay") for w in r.envelope.warnings)
            assert all(p != "pkg/gone.py" for p, _ in _names(c.tree(sid, "", depth=4)))
            with pytest.raises(NotFound):
                c.get(sid, "pkg/gone.py")
            main = c.open_session().data["session"]
            assert ("pkg/a.py", "zebra_frobnicate") not in _names(c.search(main, "zebra_frobnicate"))
            assert c.get(main, "pkg/gone.py").items[0].path == "pkg/gone.py"
            with pytest.raises(InvalidArgument):
                c.open_session(branch="no-such-branch")
    finally:
        server.stop(None)
        tools.close()

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "stratum.cli", *args, "--store", str(store), "--json"],
                              capture_output=True, text=True, timeout=120)
    p = cli("search", "zebra_frobnicate", "--branch", "feat")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert any(i["qualname"] == "zebra_frobnicate" for i in d["items"]) and d["envelope"]["commit"] == feat_sha
    p = cli("get", "pkg/gone.py", "--commit", feat_sha)
    assert p.returncode != 0 and "not on" in (p.stdout + p.stderr)
    p = cli("tree", "--branch", "feat", "--depth", "4")
    assert "pkg/gone.py" not in p.stdout and "pkg/new.py" in p.stdout
    assert json.loads(cli("get", "pkg/gone.py").stdout)["items"][0]["path"] == "pkg/gone.py"

    async def over_mcp() -> tuple[dict, object]:
        srv = build_server(lambda: Tools.open([str(store)], overlay_builder=builder()), branch="feat")
        async with MCPClient(srv) as client:
            found = await client.call_tool("search", {"query": "zebra_frobnicate"})
            gone = await client.call_tool("get", {"target": "pkg/gone.py"})
            return json.loads(found.content[0].text), gone
    found, gone = anyio.run(over_mcp)
    assert any(i["qualname"] == "zebra_frobnicate" for i in found["items"])
    # the branch's word once, as gRPC and the CLI say it (the opening's copy doubled it: review r1)
    overlay = [w for w in found["envelope"]["warnings"] if w.startswith("branch overlay")]
    assert len(overlay) == 1, found["envelope"]["warnings"]
    assert gone.is_error and "not on" in gone.content[0].text
    assert _store_state(store) == before


def test_worktree_session_sees_uncommitted_edits(branched, tmp_path):
    repo, store = branched
    before = _store_state(store)
    wt = tmp_path / "wt"
    git(repo.path, "worktree", "add", "-q", "--detach", str(wt), "main")
    (wt / "pkg" / "b.py").write_text("def beta():\n    return 2\n\n\ndef quokka_unsaved_helper():\n    return 3\n")
    (wt / "pkg" / "gone.py").unlink()
    (wt / "pkg" / "fresh.py").write_text("def wombat_untracked():\n    pass\n")
    t = Tools.open([str(store)], overlay_builder=builder())
    opened = t.open_session(worktree=str(wt))
    sid = opened.data["session"]
    assert any("3 changed files" in w for w in opened.envelope.warnings)
    assert ("pkg/b.py", "quokka_unsaved_helper") in _names(t.search(sid, "quokka_unsaved_helper"))
    assert ("pkg/fresh.py", "wombat_untracked") in _names(t.search(sid, "wombat_untracked"))
    # with freshness on: the view's own files (from its overlay) are not "uncommitted changes" of
    # the indexed checkout, where pkg/fresh.py does not exist (probe P1: they were warned about)
    from pipeline.gitio import GitFreshness

    tf = Tools.open([str(store)], overlay_builder=builder(), freshness=GitFreshness())
    fs = tf.open_session(worktree=str(wt)).data["session"]
    warned = tf.search(fs, "wombat_untracked").envelope.warnings
    assert not any("pkg/fresh.py" in w for w in warned), warned
    tf.close()
    with pytest.raises(NotFound):
        t.get(sid, "pkg/gone.py")
    assert all(p != "pkg/gone.py" for p, _ in _names(t.tree(sid, "", depth=4)))
    # another edit is another overlay; the first stays cached
    first = build(store, worktree=wt)
    assert first["cached"]
    (wt / "pkg" / "b.py").write_text("def beta():\n    return 2\n")
    assert not build(store, worktree=wt)["cached"]
    # a directory of another repository is refused; the base is untouched
    other = Repo(tmp_path / "other")
    other.commit("x", {"x.py": "def x():\n    pass\n"})
    for elsewhere in (other.path, tmp_path / "missing", tmp_path):   # one answer: nothing learnt of the disk
        with pytest.raises(InvalidArgument, match="not a worktree of the indexed repository"):
            t.open_session(worktree=str(elsewhere))
    with pytest.raises(InvalidArgument):
        t.open_session(worktree=str(wt), branch="feat")
    assert _store_state(store) == before


def test_notes_about_changed_code_are_stale_for_the_branch_session_only(branched, tmp_path):
    import shutil

    _, store = branched
    copy = tmp_path / "store"
    shutil.copytree(store, copy, ignore=shutil.ignore_patterns("overlays"))
    t = Tools.open([str(copy)], overlay_builder=builder())
    base = t.open_session().data["session"]
    t.remember(base, "insight", "alpha must stay pure: callers cache its result", ["pkg/a.py::alpha"])
    t.remember(base, "insight", "beta delegates to alpha on purpose", ["pkg/b.py::beta"])
    sid = t.open_session(branch="feat").data["session"]

    def notes(session, target):
        return [(n["line"], n["stale"]) for n in t.get(session, target).items[0].notes]
    assert [s for _, s in notes(sid, "pkg/a.py::alpha")] == [False]         # alpha unchanged on feat
    assert [s for _, s in notes(base, "pkg/a.py::alpha")] == [False]        # the base keeps it fresh
    assert [s for _, s in notes(sid, "pkg/b.py::beta")] == [False]          # pkg/b.py unchanged


def test_branch_session_follows_a_new_base_version(tmp_path):
    """main re-indexed after merging the branch: the session's overlay is rebuilt against the new base."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"m/a.py": "def alpha():\n    return 1\n", "m/b.py": "def beta():\n    pass\n"})
    store = tmp_path / "store"
    index_repository(r.path, store, IndexConfig(num_cpus=1, ray=False))
    git(r.path, "checkout", "-q", "-b", "topic")
    r.commit("topic", {"m/c.py": "def gamma_topic_fn():\n    pass\n"})
    t = Tools.open([str(store)], overlay_builder=builder())
    sid = t.open_session(branch="topic").data["session"]
    assert any("1 changed files" in w for w in t.search(sid, "gamma_topic_fn").envelope.warnings)
    git(r.path, "checkout", "-q", "main")
    git(r.path, "merge", "-q", "--ff-only", "topic")
    index_repository(r.path, store, IndexConfig(num_cpus=1, ray=False))
    t.reload()
    r2 = t.search(sid, "gamma_topic_fn")
    assert ("m/c.py", "gamma_topic_fn") in _names(r2)
    assert any("0 changed files" in w for w in r2.envelope.warnings)
    # overlays of base versions the store no longer keeps go, unless a reader holds them
    from pipeline.overlay import prune
    st = Store(store)
    old = sorted(p.name for p in (store / "overlays").glob("v1-*"))
    assert old and prune(st) == []                       # version 1 is still published
    (store / "manifests" / "000001.json").rename(tmp_path / "v1.json")
    assert prune(st) == [] and sorted(p.name for p in (store / "overlays").glob("v1-*")) == old   # held
    t.close()
    del t
    import gc
    gc.collect()
    assert prune(st) == old


def _branched_store(tmp_path, main: dict[str, str], feat: dict[str, str]):
    """The store of a repository whose main holds MAIN (indexed) and whose branch feat commits FEAT."""
    r = Repo(tmp_path / "repo")
    r.commit("init", main)
    index_repository(r.path, tmp_path / "store", IndexConfig(num_cpus=1, ray=False))
    git(r.path, "checkout", "-q", "-b", "feat")
    r.commit("feat", feat)
    git(r.path, "checkout", "-q", "main")
    return tmp_path / "store"


def test_branch_session_walks_calls_across_branch_and_base(tmp_path):
    """A branch's new caller reaches base code, and a base caller reaches a function the branch
    changed: calls edges between overlay and base are one graph in the session."""
    store = _branched_store(
        tmp_path, {"pkg/a.py": "def alpha():\n    return 1\n",
                   "pkg/b.py": "from pkg.a import alpha\n\n\ndef beta():\n    return alpha()\n"},
        {"pkg/a.py": "def alpha():\n    return 1\n\n\ndef zebra():\n    return alpha()\n",
         "pkg/new.py": "from pkg.a import zebra\nfrom pkg.b import beta\n\n\ndef gamma():\n    return zebra() + beta()\n"})
    t = Tools.open([str(store)], overlay_builder=builder())
    sid = t.open_session(branch="feat").data["session"]

    def walk(target, direction="out"):
        return {(i.path, i.qualname): dict(i.meta) for i in t.walk(sid, target, edges=["calls"], direction=direction).items}

    gamma = walk("pkg/new.py::gamma")
    assert set(gamma) == {("pkg/a.py", "zebra"), ("pkg/b.py", "beta")}       # a branch file and a base file
    # each edge says how it was linked, whichever side holds its ends
    assert gamma[("pkg/a.py", "zebra")]["how"] == "imported name"                # overlay -> overlay
    assert {k: gamma[("pkg/b.py", "beta")][k] for k in ("how", "as", "line")} == \
        {"how": "imported name", "as": "beta", "line": "6"}                      # overlay -> base
    alpha = walk("pkg/a.py::alpha", "in")
    assert set(alpha) == {("pkg/a.py", "zebra"), ("pkg/b.py", "beta")}
    assert alpha[("pkg/b.py", "beta")]["how"] == "imported name"                 # a base caller
    assert alpha[("pkg/a.py", "zebra")]["how"] == "same file"
    assert walk("pkg/b.py::beta", "in")[("pkg/new.py", "gamma")]["as"] == "beta"  # base <- overlay
    callers = walk("pkg/a.py", "in")            # the file: callers of any of its definitions
    assert set(callers) == {("pkg/b.py", "beta"), ("pkg/new.py", "gamma")}
    assert callers[("pkg/new.py", "gamma")]["from"] == "zebra"
    assert callers[("pkg/b.py", "beta")]["from"] == "alpha" and callers[("pkg/b.py", "beta")]["how"] == "imported name"
    base = t.open_session().data["session"]
    assert {i.qualname for i in t.walk(base, "pkg/a.py::alpha", edges=["calls"], direction="in").items} == {"beta"}


def test_a_branch_c_call_through_a_header_reaches_the_base_definition(tmp_path):
    """A changed C file's call through an unchanged header links to the base's definition, as the
    full index links it (the base's prototypes are known by their meta, not by reading bodies)."""
    store = _branched_store(
        tmp_path, {"src/util.h": "int helper(int x);\n",
                   "src/util.c": '#include "util.h"\n\nint helper(int x) {\n    return x + 1;\n}\n',
                   "src/main.c": '#include "util.h"\n\nint main(void) {\n    return 0;\n}\n'},
        {"src/main.c": '#include "util.h"\n\nint main(void) {\n    return helper(1);\n}\n'})
    t = Tools.open([str(store)], overlay_builder=builder())
    sid = t.open_session(branch="feat").data["session"]
    assert [(i.path, i.qualname) for i in t.walk(sid, "src/main.c::main", edges=["calls"]).items] == \
        [("src/util.c", "helper")]


def test_an_older_overlays_cross_edges_load_and_never_show_the_bases_stale_line(tmp_path):
    """An overlay built before cross edges kept their meta ([src, dst, kind]) still loads; a changed
    caller's edge to a base definition then says nothing rather than the base version's line."""
    import json

    _branched_store(tmp_path, {"pkg/a.py": "def alpha():\n    return 1\n",
                               "pkg/b.py": "from pkg.a import alpha\n\n\ndef beta():\n    return alpha()\n"},
                    {"pkg/b.py": "from pkg.a import alpha\n\n\ndef beta():\n    x = 1\n    y = 2\n    return alpha()\n"})

    def walk_beta() -> dict:
        t = Tools.open([str(tmp_path / "store")], overlay_builder=builder())
        sid = t.open_session(branch="feat").data["session"]
        got = {(i.path, i.qualname): dict(i.meta) for i in t.walk(sid, "pkg/b.py::beta", edges=["calls"]).items}
        t.close()
        return got

    assert walk_beta()[("pkg/a.py", "alpha")]["line"] == "7"          # the branch's line, from the cross meta
    for f in (tmp_path / "store" / "overlays").glob("*/cross_edges.json"):
        f.write_text(json.dumps([c[:3] for c in json.loads(f.read_text())]))    # as an older build wrote it
    assert walk_beta()[("pkg/a.py", "alpha")].get("line") is None      # not the base's line 5


def test_a_branch_variable_holds_what_a_base_function_declares_it_returns(tmp_path):
    """A changed caller's ``c = make()`` where ``make`` lives unchanged in the base: the overlay reads
    the base's declared return types, so ``c.send()`` links as the full index links it."""
    store = _branched_store(
        tmp_path, {"pkg/clients.py": "class Client:\n    def send(self):\n        pass\n\n\nclass Other:\n"
                                     "    def send(self):\n        pass\n\n\ndef make() -> Client:\n    return Client()\n",
                   "pkg/use.py": "def run():\n    return 1\n"},
        {"pkg/use.py": "from pkg.clients import make\n\n\ndef run():\n    c = make()\n    return c.send()\n"})
    t = Tools.open([str(store)], overlay_builder=builder())
    sid = t.open_session(branch="feat").data["session"]
    got = {(i.path, i.qualname): i.meta.get("how") for i in t.walk(sid, "pkg/use.py::run", edges=["calls"]).items}
    assert got == {("pkg/clients.py", "make"): "imported name", ("pkg/clients.py", "Client.send"): "variable's class"}
    t.close()
