"""Two stores served together that both hold README.md and app/__init__.py (real git repositories,
indexed by the real job, served by the real Tools and once by a real gRPC server on loopback): a
plain target both hold was the first store's node, with no sign the other existed (a probe). It is
refused, naming each store's `repo:target`, and each of those names works; get, walk, pin, prefetch,
remember's about, path:LINE, a printed path and a branch session all follow the one rule."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.errors import InvalidArgument, NotFound
from stratum.tools import Tools
from tests.gitrepo import Repo, git

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False)


def _app(name: str) -> str:
    return f'"""The {name} app."""\n\n\ndef start():\n    """Start {name}."""\n    return "{name}"\n'


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """[alpha store, beta store]: each repository holds README.md and app/__init__.py, and a file
    only it has; each has a branch `feature` (alpha's deletes README.md, beta's changes start)."""
    base = tmp_path_factory.mktemp("two")
    out = []
    for name in ("alpha", "beta"):
        r = Repo(base / name)
        r.commit("init", {"README.md": f"# {name}\n", "app/__init__.py": _app(name), f"{name}_only.py": "X = 1\n"})
        index_repository(r.path, base / f"{name}_store", CFG)
        git(r.path, "checkout", "-q", "-b", "feature")
        if name == "alpha":
            r.commit("drop the readme", delete=["README.md"])
        else:
            r.commit("start on feature", {"app/__init__.py": _app(name).replace("Start beta.", "Start beta, on feature.")})
        git(r.path, "checkout", "-q", "main")
        out.append(str(base / f"{name}_store"))
    return out


@pytest.fixture()
def tools(stores):
    t = Tools.open(stores, overlay_builder=builder(CFG))
    yield t
    t.close()


def _refused(call, asked: str) -> list[str]:
    """The `repo:target` spellings a refusal of ASKED names (both stores', in store order)."""
    with pytest.raises(InvalidArgument) as ei:
        call()
    said = str(ei.value)
    assert said.startswith(f"'{asked}' is in 2 of the stores served here (alpha, beta)"), said
    spelled = said.rpartition("e.g. ")[2].split(", ")
    assert [s.partition(":")[0] for s in spelled] == ["alpha", "beta"], said
    return spelled


def test_a_target_both_stores_hold_is_refused_with_each_stores_name_which_then_works(tools):
    s = tools.open_session(author="agent").data["session"]
    for asked in ("README.md", "app/__init__.py::start", "app/__init__.py:5", "."):
        for spelled, repo in zip(_refused(lambda: tools.get(s, asked, "summary"), asked), ("alpha", "beta")):
            it = tools.get(s, spelled, "summary").items[0]
            assert it.repo == repo, (spelled, it.repo)
            if asked != ".":
                assert it.path == asked.partition("::")[0].partition(":")[0]
    beta_start = tools.get(s, "beta:app/__init__.py::start", "api").items[0]
    assert "Start beta." in beta_start.text and beta_start.qualname == "start"
    assert tools.get(s, "beta:app/__init__.py:5", "summary").items[0].qualname == "start"

    # one store's path and a node id are one node: not refused
    assert tools.get(s, "alpha_only.py", "summary").items[0].repo == "alpha"
    assert tools.get(s, beta_start.id, "summary").items[0].repo == "beta"
    # a path as a traceback prints it: both stores' files end so
    _refused(lambda: tools.get(s, "/home/ci/build/app/__init__.py", "summary"), "/home/ci/build/app/__init__.py")

    # every tool that takes a target follows the rule
    _refused(lambda: tools.walk(s, "app/__init__.py", ["contains"]), "app/__init__.py")
    _refused(lambda: tools.pin(s, "README.md"), "README.md")
    _refused(lambda: tools.prefetch(s, ["app/__init__.py"]), "app/__init__.py")
    _refused(lambda: tools.remember(s, "insight", "start returns the name", about=["app/__init__.py::start"]),
             "app/__init__.py::start")
    _refused(lambda: tools.remember(s, "insight", "the whole project", about=["."]), ".")
    assert [(it.repo, it.path) for it in tools.walk(s, "beta:app/__init__.py", ["contains"]).items] == \
        [("beta", "app/__init__.py")]
    tools.pin(s, "beta:README.md")
    assert {it.repo for it in tools.prefetch(s, ["alpha:app/__init__.py"]).items} == {"alpha"}   # not empty: the name works
    nid = tools.remember(s, "insight", "start returns the name", about=["beta:app/__init__.py::start"]).data["note_id"]
    assert nid in [n["id"] for n in tools.get(s, "beta:app/__init__.py::start").items[0].notes]
    assert nid not in [n["id"] for n in tools.get(s, "alpha:app/__init__.py::start").items[0].notes]
    # a note whose other target is one store's only: that store's (a note belongs to one store)
    both = tools.remember(s, "insight", "start and X", about=["app/__init__.py::start", "alpha_only.py"])
    assert both.items[0].repo == "alpha"
    # tree takes the spelling too: that store's hierarchy only
    assert {it.repo for it in tools.tree(s, "beta:app", depth=1).items} == {"beta"}


def test_a_branch_session_follows_the_rule_and_reads_the_named_stores_branch(tools):
    s = tools.open_session(author="agent", branch="feature").data["session"]
    _refused(lambda: tools.get(s, "app/__init__.py::start", "api"), "app/__init__.py::start")
    # the named store's code as the branch has it (repo: went past the branch to the indexed version)
    assert "Start beta, on feature." in tools.get(s, "beta:app/__init__.py::start", "api").items[0].text
    assert "Start alpha." in tools.get(s, "alpha:app/__init__.py::start", "api").items[0].text
    # alpha's branch deleted README.md: on this branch only beta holds one
    assert tools.get(s, "README.md", "summary").items[0].repo == "beta"
    with pytest.raises(NotFound, match="not on 'feature'"):
        tools.get(s, "alpha:README.md", "summary")


def test_resume_session_checks_its_budget_as_open_session_does(tools):
    for bad in (2**70, 0, True):
        with pytest.raises(InvalidArgument) as opened:
            tools.open_session(budget=bad)
        with pytest.raises(InvalidArgument) as resumed:
            tools.resume_session("cli", budget=bad)
        assert str(resumed.value) == str(opened.value), bad
    assert tools.resume_session("cli", budget=2**63 - 1) == "cli"


def test_over_grpc_the_refusal_names_both_stores_and_each_name_works(tools):
    from serving.client import Client
    from serving.server import serve

    server, port = serve(tools, port=0, reload_interval=None)
    try:
        with Client(f"127.0.0.1:{port}", timeout=60) as c:
            s = c.open_session(author="agent").data["session"]
            spelled = _refused(lambda: c.get(s, "README.md", "summary"), "README.md")
            assert spelled == ["alpha:README.md", "beta:README.md"]
            assert [c.get(s, sp, "summary").items[0].repo for sp in spelled] == ["alpha", "beta"]
            _refused(lambda: c.walk(s, "app/__init__.py"), "app/__init__.py")
    finally:
        server.stop(None)
