"""A rename ends the earlier life of its new path for its own ancestors only (s34 probe finding 2).

Branch A renames old.py -> new.py while branch B, not descended from the rename, creates new.py and
edits it with b.py; the merge is clean. B's changes are HEAD's new.py's history whichever branch has
more commits: before, when A was longer the walk met A's rename first and B's rows got no current
path (the pair b.py - new.py vanished), and when B was longer they mapped to new.py. flask at
28262c34 had the same shape (4ed20657 added flask-icon.png beside a branch that renamed
touch-icon.png to it).
"""

from __future__ import annotations

import pytest

from pipeline.cochange import compute
from pipeline.history import mine
from stratum.config import HistoryConfig
from tests.historyrepo import GitRepo

LINES = "".join(f"line {i}\n" for i in range(30))


def _pad(g: GitRepo, n: int) -> None:
    for i in range(n):
        g.append("pad.txt", f"pad {i}")
        g.commit(f"pad {i}")


def _build(tmp_path, longer: str, *, b_edits_old: bool = False) -> GitRepo:
    """The probe's scenario; ``b_edits_old``: B edits old.py instead (the documented parallel edit)."""
    g = GitRepo(tmp_path / f"r{longer}{int(b_edits_old)}")
    g.write("old.py", LINES)
    for f in ("a.py", "b.py", "pad.txt"):
        g.write(f, "1\n")
    g.commit("base")
    g.checkout("-b", "B")
    _pad(g, 4 if longer == "B" else 0)
    target = "old.py" if b_edits_old else "new.py"
    for k in range(2):
        if not b_edits_old:     # B's new.py ends as A's does: the merge is clean
            g.write("new.py", LINES + ("A\n" if k else ""))
        else:                   # B edits old.py's top, A appends: the merge is clean
            g.write("old.py", (g.root / "old.py").read_text().replace(f"line {k}\n", f"B {k}\n"))
        g.append("b.py", f"B {k}")
        g.commit(f"B: {target} with b.py ({k})")
    g.checkout("main")
    _pad(g, 4 if longer == "A" else 0)
    g.mv("old.py", "new.py")
    g.append("new.py", "A")
    g.append("a.py", "A")
    g.commit("A: rename old.py -> new.py")
    g.merge("B", message="merge B")        # git carries B's edits of old.py into new.py
    return g


def _paths_and_pairs(g: GitRepo) -> tuple[list, list]:
    r = mine(g.root)
    subjects = {c["sha"]: c["message"].splitlines()[0] for c in r.commits.to_pylist()}
    rows = sorted((subjects[x["sha"]], x["path"], x["current_path"]) for x in r.file_changes.to_pylist()
                  if x["path"] in ("new.py", "old.py"))
    pairs = compute(r.file_changes, r.commits, HistoryConfig(min_support=1), head_paths=r.head_paths)
    return rows, sorted((x["a"], x["b"], x["support"]) for x in pairs.to_pylist())


@pytest.mark.parametrize("longer", ["A", "B"])
def test_a_parallel_branch_file_at_a_renamed_to_name_keeps_its_history(tmp_path, longer):
    rows, pairs = _paths_and_pairs(_build(tmp_path, longer))
    assert ("B: new.py with b.py (0)", "new.py", "new.py") in rows
    assert ("B: new.py with b.py (1)", "new.py", "new.py") in rows
    assert ("A: rename old.py -> new.py", "new.py", "new.py") in rows
    assert ("base", "old.py", "new.py") in rows
    assert ("b.py", "new.py", 3) in pairs          # base, B's two commits


def test_the_result_does_not_depend_on_which_branch_is_longer(tmp_path):
    assert _paths_and_pairs(_build(tmp_path, "A")) == _paths_and_pairs(_build(tmp_path, "B"))


@pytest.mark.parametrize("longer", ["A", "B"])
def test_an_edit_to_the_old_name_on_a_parallel_branch_follows_the_rename(tmp_path, longer):
    rows, pairs = _paths_and_pairs(_build(tmp_path, longer, b_edits_old=True))
    assert ("B: old.py with b.py (0)", "old.py", "new.py") in rows
    assert ("B: old.py with b.py (1)", "old.py", "new.py") in rows
    assert ("b.py", "new.py", 3) in pairs
