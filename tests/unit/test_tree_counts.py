"""The tree's repo and directory summaries count in words a person reads: "1 file", "2 files"."""

from __future__ import annotations

from pipeline.tree import tree_nodes


def test_counts_of_one_are_singular():
    nodes, _ = tree_nodes("shop", ["d/a.py", "e/b.py", "e/c.py", "e/f/g.py"],
                          languages_by_path={"d/a.py": "python"})
    summary = {n["path"]: n["summary"] for n in nodes}
    assert summary[""] == "repo shop (4 files in 3 dirs; python 1)"
    assert summary["d"] == "dir d/ (1 file, 0 dirs; 1 file below)"
    assert summary["e"] == "dir e/ (2 files, 1 dir; 3 files below)"
    nodes, _ = tree_nodes("one", ["d/a.py"])
    assert {n["path"]: n["summary"] for n in nodes}[""] == "repo one (1 file in 1 dir)"
