"""A branch session links a changed file's calls through the imports of an unchanged plain module
(not a package ``__init__`` nor a barrel) as a full index of the branch does. A probe: ``user.py``
has ``from jobs import clamp; clamp(2)`` and ``import jobs; jobs.clamp(1)``, ``jobs.py`` imports
``clamp`` from ``other.nums``; on a branch that only added a comment to ``user.py`` neither call
was linked (main and a full index of the branch link both to ``other/nums.py::clamp``): the
overlay gave its changed files the imports of the base's ``__init__`` files only. Likewise a chain
of such modules, a class imported through one (a call of its method, a base), a dotted receiver's
module, a variable typed by a base function's declared return type (``-> Box``, ``Box`` an import
of that function's module), and a JavaScript module exporting again what it imports."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))

PY = {
    "other/__init__.py": "", "util/__init__.py": "", "pkg/__init__.py": "",
    "other/nums.py": "def clamp(x):\n    return -x\n\n\nclass Box:\n    def make(self):\n        return 1\n",
    # every name is defined twice: a call links by its imports, not as the one definition of its name
    "util/nums.py": ("def clamp(x):\n    return x\n\n\ndef deep():\n    return 0\n\n\n"
                     "class Box:\n    def make(self):\n        return 2\n"),
    "other/deep.py": "def deep():\n    return 1\n",
    # a module re-exporting what it imports, one that imports a re-exporting module in turn
    "jobs.py": "from other.nums import clamp, Box\nfrom mid import deep\n\n\ndef dump(x):\n    return clamp(x)\n",
    "mid.py": "from pkg.far import deep\n",
    "pkg/far.py": "from util.nums import deep\n",
    # a package's submodule reached by a dotted receiver, re-exporting an import
    "pkg/tools.py": "from other.nums import clamp as clip\n",
    # a function whose declared return type is a name its module imports
    "maker.py": "from other.nums import Box\n\n\ndef make_box() -> Box:\n    return Box()\n",
    # an unchanged class whose method comes from its own base (the overlay had only changed classes' bases)
    "apply.py": "class Apply:\n    def transform(self):\n        return 1\n",
    "frame.py": "from apply import Apply\n\n\nclass Frame(Apply):\n    pass\n",
    "user.py": ("import jobs\nimport pkg.tools\nfrom frame import Frame\nfrom jobs import clamp, Box, deep\nfrom maker import make_box\n\n\n"
                "def run():\n    return clamp(2)\n\n\ndef run_attr():\n    return jobs.clamp(1)\n\n\n"
                "def run_deep():\n    return deep() + jobs.deep()\n\n\n"
                "def run_class():\n    return Box.make(None)\n\n\n"
                "def run_dotted():\n    return pkg.tools.clip(3)\n\n\nclass Kid(Box):\n    pass\n\n\n"
                "def run_made():\n    b = make_box()\n    return b.make()\n\n\n"
                "def run_frame():\n    f: Frame = Frame()\n    return f.transform()\n"),
}
PY_WANT = {"user.py::run": {"other/nums.py::clamp"}, "user.py::run_attr": {"other/nums.py::clamp"},
           "user.py::run_deep": {"util/nums.py::deep"}, "user.py::run_class": {"other/nums.py::make"},
           "user.py::run_dotted": {"other/nums.py::clamp"}, "user.py::Kid": {"other/nums.py::Box"},
           "user.py::run_made": {"maker.py::make_box", "other/nums.py::make"},
           "user.py::run_frame": {"frame.py::Frame", "apply.py::transform"}}

JS = {
    "src/nums.js": "export function clamp(x) {\n  return -x;\n}\n",
    "src/other.js": "export function clamp(x) {\n  return x;\n}\n",
    # a plain module (no ``export ... from``: no barrel) that imports a name and exports it again
    "src/jobs.js": "import { clamp } from './nums';\n\nexport { clamp };\n",
    "src/user.js": ("import { clamp } from './jobs';\nimport * as jobs from './jobs';\n\n"
                    "export function run() {\n  return clamp(2);\n}\n\n"
                    "export function runAttr() {\n  return jobs.clamp(1);\n}\n"),
}
JS_WANT = {"src/user.js::run": {"src/nums.js::clamp"}, "src/user.js::runAttr": {"src/nums.js::clamp"}}


def _calls(t: Tools, sid: str, target: str) -> set[str]:
    """What TARGET calls (a class: what it inherits from), as an agent's walk lists it."""
    kind = "inherits" if target.rsplit("::", 1)[-1][:1].isupper() else "calls"
    return {f"{i.path}::{i.name}" for i in t.walk(sid, target, edges=[kind], direction="out").items}


@pytest.mark.parametrize("files, changed, want", [(PY, "user.py", PY_WANT), (JS, "src/user.js", JS_WANT)],
                         ids=["python", "javascript"])
def test_a_branchs_calls_through_an_unchanged_modules_imports_link_as_a_full_index_links_them(
        tmp_path, files, changed, want):
    r = Repo(tmp_path / "repo")
    r.commit("init", files)
    index_repository(r.path, tmp_path / "store", CFG)
    git(r.path, "checkout", "-q", "-b", "b")
    comment = "\n# a comment\n" if changed.endswith(".py") else "\n// a comment\n"
    r.commit("only a comment", {changed: files[changed] + comment})
    index_repository(r.path, tmp_path / "full", CFG)        # the branch indexed whole: what users expect
    git(r.path, "checkout", "-q", "main")

    t = Tools.open([str(tmp_path / "store")], overlay_builder=builder(CFG))
    full = Tools.open([str(tmp_path / "full")])
    try:
        sid, fid = t.open_session(branch="b").data["session"], full.open_session().data["session"]
        main = t.open_session().data["session"]
        for target, callees in want.items():
            assert _calls(full, fid, target) == callees, target       # the full index links it
            assert _calls(t, main, target) == callees, target         # and so does main's
            assert _calls(t, sid, target) == callees, target          # the branch session too
    finally:
        t.close()
        full.close()
