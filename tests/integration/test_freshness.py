"""Freshness on every answer (issue 14 item 2), on real git repositories indexed by the real pipeline:
each tool's envelope names the commit it reflects and says so when the repository moved past it or
has uncommitted changes in what it returned; the same fields over gRPC and MCP."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from pipeline.gitio import GitFreshness, freshness
from stratum.tools import Tools
from stratum.config import default_store_path
from tests.gitrepo import git, sample_python_repo
from tests.pages import search_all

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
CART = "shop/cart.py"


@pytest.fixture()
def indexed(tmp_path):
    """(repo, store) of a fresh copy of the sample repository, indexed (each test may change it)."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig

    repo = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    index_repository(repo.path, store, IndexConfig(num_cpus=2))
    return repo, store


@pytest.fixture()
def tools(indexed):
    t = Tools.open([str(indexed[1])], freshness=freshness)
    t.memory.freshness.probe_seconds = 0      # re-probe on every call: the test moves HEAD between calls
    yield t
    t.close()


def _answers(t: Tools) -> dict:
    """One answer per tool, each returning something in shop/cart.py (status: the whole view)."""
    s = t.open_session(author="agent").data["session"]
    return {
        "tree": t.tree(s, "shop", depth=1),
        "search": t.search(s, "cart total", path_prefix=CART),
        "get": t.get(s, f"{CART}::Cart.total", "api"),
        "walk": t.walk(s, CART, ["contains"]),
        "prefetch": t.prefetch(s, [CART]),
        "status": t.status(s),
        "remember": t.remember(s, kind="insight", text="total sums unit prices", about=[f"{CART}::Cart.total"]),
    }


def _head(repo) -> str:
    return git(repo.path, "rev-parse", "HEAD").strip()


def test_an_up_to_date_repository_gives_no_warning_and_the_commit_is_head(indexed, tools):
    repo, _ = indexed
    head = _head(repo)
    for name, r in _answers(tools).items():
        e = r.envelope
        assert e.commit == head and e.commits == {"shop": head}, name
        assert not e.stale and not [w for w in e.warnings if "stale" in w or "uncommitted" in w], (name, e.warnings)
        if name != "status":
            assert any(it.path == CART for it in r.items), name
            assert all(it.repo == "" for it in r.items), name      # one store: no repo on items


def test_after_a_commit_every_answer_says_it_is_stale_and_names_the_changed_file(indexed, tools):
    repo, _ = indexed
    indexed_at = _head(repo)
    new = repo.commit("cart: a discount hook", {CART: (repo.path / CART).read_text() + "\n\ndef hook():\n    pass\n"})
    for name, r in _answers(tools).items():
        e = r.envelope
        assert e.stale and e.commit == indexed_at != new, name
        w = e.warnings[0]
        assert w.startswith(f"stale: the index is at {indexed_at[:7]} and HEAD is {new[:7]} (1 commit ahead)"), (name, w)
        assert CART in w, (name, w)
        if name != "status":
            assert "these returned files changed since: shop/cart.py" in w, (name, w)


def test_a_commit_elsewhere_is_stale_but_names_no_returned_file(indexed, tools):
    repo, _ = indexed
    repo.commit("readme", {"README.md": "# shop\n\nmore\n"})
    s = tools.open_session().data["session"]
    e = tools.get(s, f"{CART}::Cart.total").envelope
    assert e.stale and e.warnings[0].endswith("(1 commit ahead); none of the returned files changed since")


def test_after_an_uncommitted_edit_every_answer_names_the_edited_returned_file(indexed, tools):
    repo, _ = indexed
    head = _head(repo)
    _answers(tools)                          # the views are taken (and cached) before the edit
    (repo.path / CART).write_text((repo.path / CART).read_text() + "\n# work in progress\n")
    for name, r in _answers(tools).items():
        e = r.envelope
        assert e.stale and e.commit == head, name
        if name == "status":
            assert "uncommitted changes: 1 file: shop/cart.py" in e.warnings, e.warnings
        else:
            assert "uncommitted changes in shop/cart.py (returned here)" in e.warnings, (name, e.warnings)
    # an edit elsewhere does not mark answers that return none of it
    git(repo.path, "checkout", "-q", "--", CART)
    (repo.path / "README.md").write_text("# edited\n")
    s = tools.open_session().data["session"]
    e = tools.get(s, f"{CART}::Cart.total").envelope
    assert not e.stale and e.warnings == []


def test_a_file_committed_just_before_the_first_answer_is_not_said_uncommitted(indexed):
    """CI found it: a commit written within the file-clock slack of the view being taken read as an
    edit after the view, and without a second look by git (the re-probe interval had not passed) the
    answer said "uncommitted changes" of a clean file. Its mtime here is pinned inside that window."""
    import os
    import time

    repo, store = indexed
    repo.commit("cart: committed", {CART: (repo.path / CART).read_text() + "\n# committed\n"})
    t = Tools.open([str(store)], freshness=freshness)        # the default re-probe interval
    try:
        s = t.open_session().data["session"]
        now = time.time_ns()
        os.utime(repo.path / CART, ns=(now, now))             # just before the view this answer takes
        e = t.get(s, f"{CART}::Cart.total").envelope
        assert e.stale and "these returned files changed since: shop/cart.py" in e.warnings[0], e.warnings
        assert not [w for w in e.warnings if "uncommitted" in w], e.warnings
        e = t.get(s, f"{CART}::Cart.total").envelope          # vouched clean: no second look needed
        assert not [w for w in e.warnings if "uncommitted" in w], e.warnings
    finally:
        t.close()


def test_a_branch_switch_to_an_older_commit_is_stale(indexed, tools):
    repo, _ = indexed
    moved = git(repo.path, "diff", "--name-only", "HEAD~1", "HEAD").split()
    git(repo.path, "checkout", "-q", "-b", "feature", "HEAD~1")
    s = tools.open_session().data["session"]
    e = tools.get(s, moved[0]).envelope
    assert e.stale and "(HEAD does not descend from the indexed commit)" in e.warnings[0], e.warnings
    assert f"these returned files changed since: {moved[0]}" in e.warnings[0]


def test_the_git_view_is_taken_once_per_repository_state(indexed):
    """Cheap: many answers in one state cost one git view (the probe is a few stats)."""
    class Counting(GitFreshness):
        views = 0

        def view(self, repo_path, indexed_commit):
            Counting.views += 1
            return super().view(repo_path, indexed_commit)

    repo, store = indexed
    t = Tools.open([str(store)], freshness=Counting())
    t.memory.freshness.probe_seconds = 0      # probe every call: the state key alone decides
    s = t.open_session().data["session"]
    for _ in range(20):
        assert not t.get(s, f"{CART}::Cart.total").envelope.stale
    assert Counting.views == 1
    repo.commit("readme", {"README.md": "# moved\n"})
    for _ in range(5):
        assert t.get(s, f"{CART}::Cart.total").envelope.stale
    assert Counting.views == 2
    t.close()


def test_without_a_repository_answers_carry_the_commit_and_no_warning(indexed):
    _, store = indexed
    t = Tools.open([str(store)])              # no freshness callback: nothing to compare with
    s = t.open_session().data["session"]
    e = t.get(s, CART).envelope
    assert len(e.commit) == 40 and not e.stale and e.warnings == []
    t.close()


def test_grpc_and_mcp_carry_the_same_freshness_fields(indexed, tools):
    from mcp import Client as McpClient
    from mcp.client.stdio import StdioServerParameters

    from serving.client import Client
    from serving.server import serve

    repo, store = indexed
    repo.commit("cart", {CART: (repo.path / CART).read_text() + "\n# committed\n"})
    (repo.path / "shop/pricing.py").write_text((repo.path / "shop/pricing.py").read_text() + "\n# wip\n")
    s = tools.open_session().data["session"]
    local = tools.walk(s, CART, ["imports"]).envelope
    assert local.stale and len(local.warnings) == 2, local.warnings

    server, port = serve(tools, port=0, reload_interval=None)
    try:
        with Client(f"127.0.0.1:{port}", timeout=30) as c:
            sid = c.open_session(author="grpc").data["session"]
            remote = c.walk(sid, CART, ["imports"]).envelope
    finally:
        server.stop(None)
    assert (remote.commit, remote.commits, remote.stale, remote.warnings) == \
        (local.commit, local.commits, local.stale, local.warnings)

    async def over_mcp() -> dict:
        params = StdioServerParameters(command=sys.executable, args=["-m", "stratum.cli", "mcp", "--store", str(store)],
                                       cwd=str(ROOT), env={"PYTHONPATH": str(ROOT)})
        async with McpClient(params, read_timeout_seconds=120) as client:
            res = await client.call_tool("walk", {"target": CART, "edges": ["imports"]})
            assert not res.is_error, res.content
            return json.loads(res.content[0].text)

    answer = anyio.run(over_mcp)
    assert list(answer)[0] == "envelope"
    env = answer["envelope"]
    assert (env["commit"], env["commits"], env["stale"], env["warnings"]) == \
        (local.commit, local.commits, local.stale, local.warnings)


def test_cli_prints_one_stale_line(indexed, tmp_path):
    import subprocess

    repo, store = indexed
    repo.commit("cart", {CART: (repo.path / CART).read_text() + "\n# committed\n"})
    (repo.path / CART).write_text((repo.path / CART).read_text() + "\n# wip\n")
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "get", f"{CART}::Cart.total", "--store", str(store)],
                       cwd=str(ROOT), env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    stale = [ln for ln in p.stdout.splitlines() if ln.startswith("-- stale:")]
    assert len(stale) == 1, p.stdout
    assert "1 commit ahead" in stale[0] and "shop/cart.py" in stale[0] and "uncommitted changes in shop/cart.py" in stale[0]
    assert "-- warning: stale" not in p.stdout


def test_several_shards_carry_one_commit_each_and_label_their_warnings(indexed, tmp_path):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo

    shop, shop_store = indexed
    lib = Repo(tmp_path / "lib")
    lib_at = lib.commit("lib", {"lib/util.py": 'def clamp(x, lo, hi):\n    """Clamp X."""\n    return max(lo, min(x, hi))\n'})
    index_repository(lib.path, tmp_path / "lib_store", IndexConfig(num_cpus=2))
    t = Tools.open([str(shop_store), str(tmp_path / "lib_store")], freshness=freshness)
    t.memory.freshness.probe_seconds = 0
    s = t.open_session().data["session"]
    e = t.get(s, "lib/util.py::clamp").envelope
    assert e.commits == {"lib": lib_at} and e.commit == lib_at and not e.stale      # the store it draws on
    assert {it.repo for it in search_all(t, s, "clamp cart total")[0]} >= {"lib", "shop"}
    lib.commit("lib: wider", {"lib/util.py": (lib.path / "lib/util.py").read_text() + "\nWIDE = 1\n"})
    e = t.get(s, "lib/util.py::clamp").envelope
    assert e.stale and e.warnings[0].startswith(f"stale: lib: the index is at {lib_at[:7]}"), e.warnings
    assert "these returned files changed since: lib/util.py" in e.warnings[0] and len(e.warnings) == 1
    before = e.version
    t.close()
    # a server's first look at two clean repositories: lib's items are not shop's files (lib/util.py
    # is "missing" from shop's work tree, which read as an uncommitted removal there, and back)
    lib.commit("lib: wider still", {"lib/util.py": (lib.path / "lib/util.py").read_text() + "\nW = 2\n"})
    index_repository(lib.path, tmp_path / "lib_store", IndexConfig(num_cpus=2))
    t = Tools.open([str(shop_store), str(tmp_path / "lib_store")], freshness=GitFreshness())
    s = t.open_session().data["session"]
    for target, repo in (("lib/util.py::clamp", "lib"), ("shop/pricing.py", "shop")):
        r = t.get(s, target)
        assert not r.envelope.stale and r.envelope.warnings == [], (target, r.envelope.warnings)
        assert r.items[0].repo == repo          # two stores: each item says which repository it is from
    # repo:target names one store's node (what an item's repo field says), for get and for notes
    from stratum.errors import InvalidArgument, NotFound

    assert t.get(s, "lib:lib/util.py::clamp").items[0].repo == "lib"
    with pytest.raises(NotFound):
        t.get(s, "shop:lib/util.py")
    nid = t.remember(s, "insight", "clamp is inclusive", about=["lib:lib/util.py::clamp"]).data["note_id"]
    assert nid in [n["id"] for n in t.get(s, "lib:lib/util.py::clamp").items[0].notes]
    with pytest.raises(InvalidArgument, match="one store"):
        t.remember(s, "insight", "both", about=["lib:lib/util.py", "shop:shop/pricing.py"])
    assert r.envelope.version != before      # lib published again: the stores' combined version moved
    t.close()


def test_a_version_indexed_with_uncommitted_edits_says_so_once_they_are_gone(tmp_path):
    """A dev probe: a hook indexed a work-in-progress edit (the files are read from disk), then
    `git stash` put the work tree back to HEAD; every answer served the stashed code as HEAD's with
    stale false and no word."""
    from pipeline.job import index_repository
    from stratum.config import EmbedConfig, IndexConfig
    from tests.gitrepo import Repo

    r = Repo(tmp_path / "repo")
    r.commit("init", {"pricing.py": "def discount(x):\n    return round(x * 0.9, 2)\n", "util.py": "x = 1\n"})
    (r.path / "pricing.py").write_text('def discount(x):\n    return "WIP-BROKEN"\n')
    store = tmp_path / "store"
    index_repository(r.path, store, IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False), ray=False))
    t = Tools.open([str(store)], freshness=freshness)
    t.memory.freshness.probe_seconds = 0
    try:
        s = t.open_session(author="agent").data["session"]
        dirty = t.get(s, "pricing.py", "full")                  # the edit is there, served as it is on disk
        assert "WIP-BROKEN" in dirty.items[0].text and not dirty.envelope.stale, dirty.envelope.warnings
        git(r.path, "stash", "-q")
        got = t.get(s, "pricing.py", "full")
        assert "WIP-BROKEN" in got.items[0].text and got.envelope.stale, got.envelope.warnings
        assert any("pricing.py" in w and "uncommitted edits" in w for w in got.envelope.warnings), got.envelope.warnings
        other = t.get(s, "util.py", "full")                     # a file indexed as committed: nothing to say
        assert not other.envelope.stale, other.envelope.warnings
    finally:
        t.close()


def test_a_copied_repository_judges_freshness_by_its_own_checkout(tmp_path):
    """A dev probe: `cp -r orig copy` (the store inside), then a commit in orig: the copy's answers
    said "stale: ... HEAD is <orig's>"; a moved one's said nothing while its HEAD moved on. The store
    at <repository>/.stratum answers for the repository holding it (freshness.repo_at)."""
    import shutil

    from pipeline.job import index_repository
    from stratum.config import EmbedConfig, IndexConfig
    from tests.gitrepo import Repo

    r = Repo(tmp_path / "orig")
    r.commit("init", {"a.py": "def f():\n    return 1\n"})
    index_repository(r.path, default_store_path(r.path), IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False), ray=False))
    shutil.copytree(r.path, tmp_path / "copy", symlinks=True)
    r.commit("orig moves on", {"a.py": "def f():\n    return 2\n"})
    t = Tools.open([str(default_store_path(tmp_path / "copy"))], freshness=freshness)
    t.memory.freshness.probe_seconds = 0
    try:
        s = t.open_session(author="agent").data["session"]
        got = t.get(s, "a.py", "full")
        assert not got.envelope.stale, got.envelope.warnings                # the copy did not move
        copy = Repo(tmp_path / "copy")
        copy.commit("the copy moves on", {"a.py": "def f():\n    return 3\n"})
        got = t.get(s, "a.py", "full")
        assert got.envelope.stale and any("a.py" in w for w in got.envelope.warnings), got.envelope.warnings
        assert t.status(s).data["shards"][0]["head"] == _head(copy)
    finally:
        t.close()
