"""Tests that import a name from a package reach the module its ``__init__`` re-exports it from.

Found by a probe locating real werkzeug/flask fixes: a test doing ``from flask import Blueprint``
or ``import flask; flask.Flask(...)`` was linked to ``flask/__init__.py`` only, never to
``blueprints.py`` or ``app.py``. A real git repository, indexed by the real pipeline, read back
through the store and the walk tool.
"""

from __future__ import annotations

import json

import pytest

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.store import Store
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow

FILES = {
    "pyproject.toml": "[project]\nname = 'web'\n",
    "src/web/__init__.py": ("from .app import App as App\nfrom .blueprints import Blueprint as Blueprint\n"
                            "from .helpers import url_for as url_for\nfrom .wrappers import Response as Response\n"
                            "from .loop import Thing as Thing\n"),
    "src/web/app.py": "class App:\n    def route(self):\n        return 1\n",
    "src/web/blueprints.py": "class Blueprint:\n    def register(self):\n        return 2\n",
    "src/web/helpers.py": "def url_for(name):\n    return '/' + name\n",
    "src/web/wrappers/__init__.py": "from .response import Response as Response\n",
    "src/web/wrappers/response.py": "class Response:\n    status = 200\n",
    # `Thing` goes round: loop re-exports it from ring, ring from loop
    "src/web/loop/__init__.py": "from ..ring import Thing as Thing\n",
    "src/web/ring/__init__.py": "from ..loop import Thing as Thing\n",
    "tests/test_views.py": "from web import Blueprint, Response\n\n\ndef test_register():\n    assert Blueprint().register() == 2\n",
    "tests/test_routing.py": ("import web\n\n\ndef test_route():\n    # not web.url_for: only the code's uses count\n"
                              "    assert web.App().route() == 1\n"),
    "tests/test_thing.py": "from web import Thing\n",
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    root = tmp_path_factory.mktemp("reexport")
    r = Repo(root / "repo")
    r.commit("web: a package that re-exports", FILES)
    store = root / "store"
    index_repository(r.path, store, IndexConfig(ray=False, embed=EmbedConfig(enabled=False)))
    return store


def _edges(store, kind: str) -> dict[tuple[str, str], dict]:
    snap = Store(store).snapshot()
    paths = {n["id"]: n["path"] for n in snap.read("nodes", columns=["id", "path"], where="kind = 'file'").to_pylist()}
    rows = snap.read("edges", columns=["src", "dst", "meta"], where=f"kind = '{kind}'").to_pylist()
    return {(paths[e["src"]], paths[e["dst"]]): json.loads(e["meta"] or "{}") for e in rows}


def _from(edges, src: str) -> set[str]:
    return {d for s, d in edges if s == src}


def test_a_from_import_of_a_reexported_name_links_the_defining_module(indexed):
    tests, imports = _edges(indexed, "tests"), _edges(indexed, "imports")
    # the __init__ edge stays; Response goes two levels down (web -> web.wrappers -> response.py)
    assert _from(tests, "tests/test_views.py") == {
        "src/web/__init__.py", "src/web/blueprints.py", "src/web/wrappers/response.py"}
    assert _from(imports, "tests/test_views.py") == _from(tests, "tests/test_views.py")
    assert imports[("tests/test_views.py", "src/web/blueprints.py")]["via"] == "src/web/__init__.py"
    assert tests[("tests/test_views.py", "src/web/blueprints.py")] == {"by": "import"}


def test_a_bare_package_import_links_only_the_names_it_uses(indexed):
    tests = _edges(indexed, "tests")
    assert _from(tests, "tests/test_routing.py") == {"src/web/__init__.py", "src/web/app.py"}


def test_a_reexport_cycle_ends_on_the_package(indexed):
    assert _from(_edges(indexed, "tests"), "tests/test_thing.py") == {"src/web/__init__.py"}


def test_walk_finds_the_test_of_a_reexported_module(indexed):
    t = Tools.open([str(indexed)])
    sid = t.open_session().data["session"]
    tested_by = {i.path for i in t.walk(sid, "src/web/blueprints.py", edges=["tests"], direction="in").items}
    assert tested_by == {"tests/test_views.py"}
    assert {i.path for i in t.walk(sid, "tests/test_routing.py", edges=["tests"]).items} == {
        "src/web/__init__.py", "src/web/app.py"}


def test_a_branch_test_reaches_the_module_a_base_init_reexports(tmp_path):
    """A branch (or worktree) overlay resolves only its changed files: its new test's ``from web
    import Blueprint`` must still go through the base's ``web/__init__.py`` to blueprints.py."""
    from pipeline.overlay import builder
    from tests.gitrepo import git

    r = Repo(tmp_path / "repo")
    r.commit("web", {k: v for k, v in FILES.items() if not k.startswith("tests/")})
    index_repository(r.path, tmp_path / "store", IndexConfig(ray=False, embed=EmbedConfig(enabled=False)))
    git(r.path, "checkout", "-q", "-b", "feat")
    r.commit("a test of blueprints", {"tests/test_bp.py": "from web import Blueprint\n\n\ndef test_bp():\n"
                                                          "    assert Blueprint().register() == 2\n"})
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([str(tmp_path / "store")], overlay_builder=builder())
    try:
        sid = t.open_session(branch="feat").data["session"]
        got = t.walk(sid, "src/web/blueprints.py", edges=["tests"], direction="in")
        assert "tests/test_bp.py" in {i.path for i in got.items}
    finally:
        t.close()
