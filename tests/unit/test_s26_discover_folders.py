"""Discovery resolves each folder once (``files.confinement_reason(folders=)``), not every file's
whole path: the same verdicts, on a real repository with links in and out at several depths (the
expected sets are what resolving every whole path gave)."""

from __future__ import annotations

import os

from pipeline.files import discover
from stratum.config import ParseConfig
from tests.gitrepo import Repo


def test_links_at_every_depth_are_judged_as_before(tmp_path):
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "x.py").write_text("x = 1\n")
    r = Repo(tmp_path / "repo")
    r.commit("init", {"a/b/c/deep.py": "d = 1\n", "a/b/ok.py": "o = 1\n", "top.py": "t = 1\n", "a/sub/y.py": "y\n",
                      "in/sub/y.py": "x = 2\n", "out/sub/x.py": "x = 3\n", "twice/sub/y.py": "x = 4\n",
                      "lnk.py": "l = 1\n", "lout.py": "q = 1\n"})
    root = r.path
    for name, target in (("in", root / "a"), ("out", outside), ("twice", root / "in")):
        for p in sorted((root / name).rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
        (root / name).rmdir()
        os.symlink(target, root / name)         # a folder link inside, one out, a link to a link
    (root / "lnk.py").unlink()
    os.symlink("top.py", root / "lnk.py")
    (root / "lout.py").unlink()
    os.symlink(outside / "sub" / "x.py", root / "lout.py")
    os.symlink(root, tmp_path / "via")          # the repository named through a link of its own
    for where in (root, tmp_path / "via"):
        d = discover(where, ParseConfig())
        assert sorted(f.path for f in d.files) == ["a/b/c/deep.py", "a/b/ok.py", "a/sub/y.py", "top.py"]
        assert d.samples == {"symlink": ["in", "in/sub/y.py", "lnk.py", "twice", "twice/sub/y.py"],
                             "outside_repository": ["lout.py", "out", "out/sub/x.py"]}
