"""Calls through a Python module import: ``import pkg.util as pu; pu.go()`` and ``import
pkg.util; pkg.util.go()`` link to that module's ``go`` (``pipeline.calls``, the binding read by
``pipeline.imports``), even where three modules define a ``go`` and the name alone decides nothing.
An alias of a module the repository does not have binds nothing: no edge to the package it fell
back to."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

MAIN = '''"""Runs the jobs."""

import plain as pl
import pkg.other
import pkg.util
import pkg.util as pu
import pkg.missing as pm


def run_dotted():
    return pkg.util.go()


def run_other():
    return pkg.other.go()


def run_alias():
    return pu.go()


def run_plain():
    return pl.go()


def run_class():
    return pu.Timer.make()


def run_missing():
    return pm.go()
'''

FILES = {
    "plain.py": "def go():\n    return 0\n",
    "pkg/__init__.py": "def go():\n    return -1\n",
    "pkg/util.py": ("def go():\n    return 1\n\n\nclass Timer:\n    @staticmethod\n    def make():\n"
                    "        return Timer()\n"),
    "pkg/other.py": "def go():\n    return 2\n\n\nclass Timer:\n    @staticmethod\n    def make():\n"
                    "        return Timer()\n",
    "pkg/main.py": MAIN,
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("dotted"), FILES, "jobs") as got:
        yield got


def _callees(tools, fn: str) -> dict[str, str]:
    t, sid = tools
    return {f"{i.path}::{i.qualname}": i.meta["how"]
            for i in t.walk(sid, f"pkg/main.py::{fn}", edges=["calls"]).items}


@pytest.mark.parametrize("fn, callee", [
    ("run_dotted", "pkg/util.py::go"),              # import pkg.util; pkg.util.go()
    ("run_other", "pkg/other.py::go"),
    ("run_alias", "pkg/util.py::go"),               # import pkg.util as pu; pu.go()
    ("run_plain", "plain.py::go"),                  # import plain as pl; pl.go()
    ("run_class", "pkg/util.py::Timer.make"),       # pu.Timer.make(): a class of the module
])
def test_a_call_through_a_module_import_links_that_modules_definition(tools, fn, callee):
    assert _callees(tools, fn) == {callee: "imported module"}


def test_an_alias_of_a_module_the_repository_lacks_links_nothing(tools):
    # pkg.missing is no file: the import falls back to pkg/__init__.py, which also has a go
    assert _callees(tools, "run_missing") == {}
