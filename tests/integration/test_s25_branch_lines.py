"""`get FILE --lines a-b` in a branch session carries the notes about those lines of the branch's
version of the file (and the file's own), as off the branch (``answernotes.in_lines``): it carried
every note of the file. Real git repositories indexed by the real pipeline, the real Tools and CLI."""

from __future__ import annotations

import json

import pytest

from pipeline.overlay import builder
from stratum.cli import main
from stratum.tools import Tools
from stratum.config import default_store_path
from tests.gitrepo import Repo, git

CALC = "def first(x):\n    return x + 1\n\n\ndef second(x):\n    return x * 2\n"     # first 1-2, second 5-6
# the branch adds a function above both (helper 1-2, first 5-6, second 9-10) and edits second: the
# branch's lines 5-6 hold first, while the indexed version's lines 5-6 hold second
FEAT = ("def helper(x):\n    return x - 1\n\n\n" + CALC.replace("x * 2", "x * 3"))
RENAMED = "pkg/maths.py"


@pytest.fixture
def repo(tmp_path, capsys):
    """main (indexed, the default store) with pkg/calc.py, a note about each function and one about
    the file; branch feat adds helper above them (and a note about it, on the branch); branch mv
    (from main) renames the file and adds another function above them."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"pkg/__init__.py": "", "pkg/calc.py": CALC})
    assert main(["index", str(r.path), "--no-embed", "--no-ray"]) == 0
    git(r.path, "checkout", "-q", "-b", "feat")
    r.commit("feat: helper", {"pkg/calc.py": FEAT})
    git(r.path, "checkout", "-q", "-b", "mv", "main")
    r.mv("pkg/calc.py", RENAMED)
    r.commit("mv: rename", {RENAMED: FEAT.replace("x * 3", "x * 2").replace("helper", "other")})
    git(r.path, "checkout", "-q", "main")
    capsys.readouterr()
    t = Tools.open([str(default_store_path(r.path))], overlay_builder=builder())
    try:
        s = t.open_session(author="ada").data["session"]
        ids = {q: t.remember(s, "insight", f"{q} is subtle", [f"pkg/calc.py::{q}" if q != "file" else "pkg/calc.py"])
               .data["note_id"] for q in ("first", "second", "file")}
        feat = t.open_session(author="ada", branch="feat").data["session"]
        ids["helper"] = t.remember(feat, "insight", "helper is subtle", ["pkg/calc.py::helper"]).data["note_id"]
    finally:
        t.close()
    return r, ids


def _notes(t: Tools, sid: str, path: str, lines: str) -> set[str]:
    """The ids of the notes `get PATH --lines LINES` carries."""
    return {n["id"] for n in t.get(sid, path, lines=lines).items[0].notes}


def test_a_branch_sessions_line_range_carries_the_notes_of_the_branchs_lines(repo):
    r, ids = repo
    t = Tools.open([str(default_store_path(r.path))], overlay_builder=builder())
    try:
        base, feat = t.open_session().data["session"], t.open_session(branch="feat").data["session"]
        assert _notes(t, base, "pkg/calc.py", "5-6") == {ids["second"], ids["file"]}        # off the branch
        every = {ids["first"], ids["second"], ids["file"], ids["helper"]}
        assert _notes(t, feat, "pkg/calc.py", "") == every                  # the whole file: all of them
        assert _notes(t, feat, "pkg/calc.py", "5-6") == {ids["first"], ids["file"]}    # the branch's first
        assert _notes(t, feat, "pkg/calc.py", "1-2") == {ids["helper"], ids["file"]}   # code only the branch has
        assert _notes(t, feat, "pkg/calc.py", "9-") == {ids["second"], ids["file"]}    # the branch's second
        assert _notes(t, feat, "pkg/calc.py", "3-4") == {ids["file"]}                  # between definitions
        mv = t.open_session(branch="mv").data["session"]                   # notes follow the branch's rename
        assert _notes(t, mv, RENAMED, "5-6") == {ids["first"], ids["file"]}
        assert _notes(t, mv, RENAMED, "") == every - {ids["helper"]}       # feat's helper is not mv's
    finally:
        t.close()


def test_the_cli_get_lines_on_a_branch_carries_the_notes_of_those_lines(repo, capsys, monkeypatch):
    r, ids = repo
    monkeypatch.chdir(r.path)
    assert main(["get", "pkg/calc.py", "--lines", "5-6", "--branch", "feat", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["items"][0]
    assert got["text"] == "def first(x):\n    return x + 1"
    assert {n["id"] for n in got["notes"]} == {ids["first"], ids["file"]}
