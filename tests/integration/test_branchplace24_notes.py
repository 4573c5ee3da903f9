"""A branch session credits a note to the definition the branch placed it on (``BranchCode.locate``),
in a file's answer and in search's lift, as its get of the symbol does; on a real repository, the
real index job, overlay builder and Tools.

The default branch has ``fmt`` and ``fmt#2``; a note is about ``fmt#2`` (the repr one); branch
``feat`` adds a ``fmt`` above both, so the note's code is ``fmt#3`` there. Before: get of the file
said the note was "on fmt#2" (the neighbour, by its stored name), and search lifted ``fmt#2`` with
it ("why: text; rca note ...") while ``fmt#3``, its code, had no note in its why."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import git, noted_repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
FIRST = 'def fmt(x):\n    """First fmt: plain str."""\n    return str(x)\n\n\n'
SECOND = 'def fmt(x):\n    """Second fmt: the repr one."""\n    return repr(x)\n\n\n'
ZEROTH = 'def fmt(x):\n    """Zeroth fmt: identity."""\n    return x\n\n\n'
OTHER = "def other():\n    return fmt(1)\n"
TEXT = "the repr fmt double-quotes strings"


def _m(*defs: str) -> str:
    return '"""Formatting."""\n\n\n' + "".join(defs) + OTHER


def _noted(tmp_path, merged: bool) -> tuple[str, str]:
    """The note about ``fmt#2`` written on the default branch (MERGED: re-indexed since), and branch
    ``feat`` adding a ``fmt`` above both: (store, note id)."""
    r, store, nid = noted_repo(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": _m(FIRST, SECOND)},
                               "pkg/m.py::fmt#2", TEXT, CFG)
    if merged:
        index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feat")
    r.commit("zeroth", {"pkg/m.py": _m(ZEROTH, FIRST, SECOND)})
    git(r.path, "checkout", "-q", "main")
    return store, nid


@pytest.mark.parametrize("merged", [False, True], ids=["unmerged", "merged"])
def test_a_files_answer_names_the_definition_the_branch_placed_the_note_on(tmp_path, merged):
    """get pkg/m.py on the branch: the note's line says "on fmt#3" (before: "on fmt#2", the
    neighbour the branch's new definition renumbered onto the note's old id)."""
    store, nid = _noted(tmp_path, merged)
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        fs = t.open_session(branch="feat").data["session"]
        assert [n["id"] for n in t.get(fs, "pkg/m.py::fmt#3").items[0].notes] == [nid]
        lines = {n["id"]: n["line"] for n in t.get(fs, "pkg/m.py").items[0].notes}
        assert " on fmt#3:" in lines[nid], lines
        main = t.open_session().data["session"]     # the default branch's answer: its own name
        lines = {n["id"]: n["line"] for n in t.get(main, "pkg/m.py").items[0].notes}
        assert " on fmt#2:" in lines[nid], lines
    finally:
        t.close()


@pytest.mark.parametrize("merged", [False, True], ids=["unmerged", "merged"])
def test_search_on_the_branch_lifts_the_definition_the_note_is_placed_on(tmp_path, merged):
    """search on the branch: the note's lift goes to fmt#3 (its why names the note), not to
    fmt#2 (before: "why: text; rca note ..." on First fmt, and fmt#3 said no note)."""
    store, nid = _noted(tmp_path, merged)
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        fs = t.open_session(branch="feat").data["session"]
        items = t.search(fs, "repr fmt double-quotes", page_size=20).items
        why = {i.qualname: i.why for i in items if i.kind == "function"}
        short = nid[:8]
        assert short in why.get("fmt#3", ""), why
        assert short not in why.get("fmt#2", ""), why
        main = t.open_session().data["session"]     # the default branch: fmt#2 is the note's
        items = t.search(main, "repr fmt double-quotes", page_size=20).items
        why = {i.qualname: i.why for i in items if i.kind == "function"}
        assert short in why.get("fmt#2", ""), why
    finally:
        t.close()
