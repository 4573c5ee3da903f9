"""Python scopes and lambdas a user saw wrong (session 25, g2), through the real index job and the
real Tools:

- a lazy import (``def _load(): global lazyf, impl; from lz.impl import lazyf; import lz.impl as
  impl``) binds the module's names: ``use()``'s ``lazyf()`` linked only as the one ``lazyf`` of
  the repository and ``impl.other()`` not at all (an import in a function's body counted for that
  function alone, ``global`` or not); a package ``__init__`` doing so re-exports the name;
- ``from kb import fast, run``, where ``kb/__init__.py`` imports ``fast`` at its top and ``run``
  inside ``setup()``: ``run()`` linked to ``kb/impl.py::run`` (the file ``fast`` is re-exported
  from: the statement's files served each of its names), so did ``kb.run()`` after ``import kb``;
  Python raises ImportError there;
- a lambda in parentheses (``f = (lambda x: ...)``, as black wraps a long one; in a chain, a tuple,
  a class body) was no node.
"""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git, indexed_tools

pytestmark = pytest.mark.slow

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))

LAZYUSER = (
    "lazyf = None\n"
    "impl = None\n"
    "\n"
    "\n"
    "def _load():\n"
    "    global lazyf, impl\n"
    "    from lz.impl import lazyf\n"
    "    import lz.impl as impl\n"
    "\n"
    "\n"
    "def use():\n"
    "    _load()\n"
    "    return lazyf() + impl.other()\n"
)

LAM = (
    "def helper(x):\n"
    "    return x\n"
    "\n"
    "\n"
    "psingle = (lambda x: helper(x))\n"                             # 5
    "u2, v2 = (lambda: 1), (lambda: helper(2))\n"                   # 6
    "t1 = t2 = (lambda: helper(7))\n"                               # 7
    "wrapped = (\n"                                                 # 8: black's wrapping
    "    lambda a, b: helper(a)\n"
    ")\n"
    "\n"
    "\n"
    "class C:\n"                                                    # 13
    "    u, v = (lambda self: 1), (lambda self: helper(4))\n"
)

FILES = {
    "lz/__init__.py": "",
    "lz/impl.py": "def lazyf():\n    return 3\n\n\ndef other():\n    return 4\n",
    "lazyuser.py": LAZYUSER,
    # a package's lazy loader: `lazyf` it declares global (the package's), `other` is its own
    "gp/__init__.py": "def _load():\n    global lazyf\n    from lz.impl import lazyf, other\n    return other()\n",
    "gpuser.py": "from gp import lazyf, other\n\n\ndef use():\n    return lazyf() + other()\n",
    # kb binds `fast` at its top, `run` inside setup() only (kb/impl.py's run is the repository's
    # one run), and a `spare` of its own (kb/impl.py's is another: there are two)
    "kb/__init__.py": ("from .impl import fast\n\nspare = fast\n\n\n"
                       "def setup():\n    from .impl import run\n    return run()\n"),
    "kb/impl.py": "def run():\n    return 1\n\n\ndef fast():\n    return 2\n\n\ndef spare():\n    return 0\n",
    "lz/spare.py": "def spare():\n    return 0\n",
    "kbuser.py": "from kb import fast, run, spare\n\n\ndef go():\n    return run() + fast() + spare()\n",
    "kbattr.py": "import kb\n\n\ndef go():\n    return kb.run() + kb.fast()\n",
    "lam.py": LAM,
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    with indexed_tools(tmp_path_factory.mktemp("pyscopes"), FILES, "all", CFG) as got:
        yield got


def _walk(tools, target: str, direction: str = "out") -> dict[str, str]:
    t, sid = tools
    return {f"{i.path}::{i.qualname}": i.meta["how"]
            for i in t.walk(sid, target, edges=["calls"], direction=direction).items}


def test_a_name_a_function_declares_global_is_bound_for_the_module_by_its_import(tools):
    assert _walk(tools, "lazyuser.py::use") == {
        "lazyuser.py::_load": "same file",
        "lz/impl.py::lazyf": "imported name",           # was "unique name"
        "lz/impl.py::other": "imported module",         # was not linked
    }


def test_a_package_init_s_global_lazy_import_re_exports_that_name_alone(tools):
    # lazyf is the package's (global); other is _load's own: `from gp import other` fails in Python
    assert _walk(tools, "gpuser.py::use") == {"lz/impl.py::lazyf": "imported name"}
    assert _walk(tools, "gp/__init__.py::_load") == {"lz/impl.py::other": "imported name"}


def test_a_name_only_a_function_of_the_package_imports_links_nowhere(tools):
    # `run` was linked through kb/impl.py, the file `fast` is re-exported from; `spare` (kb's own
    # variable) would be kb/impl.py's as "the one spare among the files kbuser.py imports"
    assert _walk(tools, "kbuser.py::go") == {"kb/impl.py::fast": "imported name"}
    assert _walk(tools, "kbattr.py::go") == {"kb/impl.py::fast": "imported module"}
    assert _walk(tools, "kb/impl.py::run", "in") == {"kb/__init__.py::setup": "imported name"}


def test_each_name_bound_to_a_lambda_in_parentheses_is_a_function(tools):
    t, sid = tools
    want = {"psingle": (5, "psingle = lambda x"), "u2": (6, "u2 = lambda"), "v2": (6, "v2 = lambda"),
            "t1": (7, "t1 = lambda"), "t2": (7, "t2 = lambda"), "wrapped": (8, "wrapped = lambda a, b"),
            "C.u": (14, "u = lambda self"), "C.v": (14, "v = lambda self")}
    for qual, (line, sig) in want.items():
        got = t.get(sid, f"lam.py::{qual}", level="api").items[0]
        assert (got.kind, got.start_line, got.text) == ("method" if "." in qual else "function", line, sig), qual
    assert t.get(sid, "lam.py::wrapped", level="api").items[0].end_line == 10
    outline = t.get(sid, "lam.py", level="api").items[0].text
    assert "\npsingle = lambda x\nu2 = lambda\nv2 = lambda\nt1 = lambda\nt2 = lambda\n" in outline
    # each name owns its own lambda's calls: u2's lambda calls nothing, v2's calls helper
    assert _walk(tools, "lam.py::helper", "in") == {
        f"lam.py::{q}": "same file" for q in ("psingle", "v2", "t1", "t2", "wrapped", "C.v")}
    assert _walk(tools, "lam.py::u2") == _walk(tools, "lam.py::C.u") == {}


def test_a_branch_reads_a_global_lazy_import_of_an_unchanged_package_as_a_full_index_does(tmp_path):
    # the base's gp/__init__.py is not parsed again on the branch: its stored imports say which
    # names its lazy loader binds for the package
    r = Repo(tmp_path / "repo")
    r.commit("init", {k: v for k, v in FILES.items() if k.startswith(("lz/", "gp", "kb"))})
    index_repository(r.path, tmp_path / "store", CFG)
    git(r.path, "checkout", "-q", "-b", "b")
    r.commit("callers change", {"gpuser.py": FILES["gpuser.py"] + "\n# a comment\n",
                                "kbuser.py": FILES["kbuser.py"] + "\n# a comment\n"})
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([str(tmp_path / "store")], overlay_builder=builder(CFG))
    try:
        sid = t.open_session(branch="b").data["session"]
        assert _walk((t, sid), "gpuser.py::use") == {"lz/impl.py::lazyf": "imported name"}
        assert _walk((t, sid), "kbuser.py::go") == {"kb/impl.py::fast": "imported name"}
    finally:
        t.close()
