"""Every file the pipeline reads resolves inside the repository (issue 10.1), on real git repos.

The reproduction of the issue with a temporary directory outside the repository in place of /etc:
a tracked path whose parent directory is swapped for a link out of the repository.
"""

from __future__ import annotations

import os

import pytest

from pipeline.files import discover, open_confined, read_manifests, read_source
from stratum.config import ParseConfig
from tests.gitrepo import Repo


@pytest.fixture()
def leaky(tmp_path):
    """A repository whose tracked paths lead out of it in every way a work tree allows."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text("root:x:0:0:SECRET\n")
    (outside / "go.mod").write_text("module evil.example/secret\n")
    r = Repo(tmp_path / "repo")
    r.commit("init", {"a.py": "x = 1\n", "etcleak/passwd": "p\n", "mods/go.mod": "module ok\n",
                      "link_abs.py": "y = 2\n", "link_up.py": "z = 3\n", "inner/ok.py": "w = 4\n",
                      "alias/ok.py": "w = 4\n"})
    root = r.path
    # the reproduction: the tracked directory becomes a link to a directory outside
    (root / "etcleak" / "passwd").unlink()
    (root / "etcleak").rmdir()
    os.symlink(outside, root / "etcleak")
    # a tracked manifest's directory points outside too (manifests are read like any file)
    (root / "mods" / "go.mod").unlink()
    (root / "mods").rmdir()
    os.symlink(outside, root / "mods")
    # file links: absolute, and relative up through ..
    (root / "link_abs.py").unlink()
    os.symlink(outside / "passwd", root / "link_abs.py")
    (root / "link_up.py").unlink()
    os.symlink("../outside/passwd", root / "link_up.py")
    # a directory link that stays inside: not an escape, still never followed
    (root / "alias" / "ok.py").unlink()
    (root / "alias").rmdir()
    os.symlink("inner", root / "alias")
    return root, outside


def test_discovery_skips_every_way_out(leaky):
    root, _ = leaky
    d = discover(root, ParseConfig())
    # the tracked paths through the links, and the links themselves (untracked files to git)
    assert d.skipped["outside_repository"] == 6
    assert set(d.samples["outside_repository"]) <= {"etcleak", "etcleak/passwd", "link_abs.py", "link_up.py",
                                                    "mods", "mods/go.mod"}
    assert "etcleak/passwd" in d.samples["outside_repository"]
    assert d.samples["symlink"] == ["alias", "alias/ok.py"]
    assert sorted(f.path for f in d.files) == ["a.py", "inner/ok.py"]


def test_reads_are_confined_whatever_path_is_asked(leaky):
    root, outside = leaky
    cfg = ParseConfig()
    for path in ("etcleak/passwd", "link_abs.py", "link_up.py", "../outside/passwd", str(outside / "passwd"),
                 "inner/../../outside/passwd"):
        src = read_source(root, path, cfg)
        assert src.data is None and src.skip_reason == "outside_repository", path
    assert read_source(root, "alias/ok.py", cfg).skip_reason == "symlink"
    assert read_source(root, "inner/./ok.py", cfg).data == b"w = 4\n"   # `.` and `x/..` inside are fine
    assert read_source(root, "etcleak/../a.py", cfg).data == b"x = 1\n"
    assert read_manifests(root, ["mods/go.mod"]) == {}


def test_a_directory_swapped_for_a_link_after_discovery_is_refused(leaky):
    """No check-then-use race: the read walks the path without following any link."""
    root, outside = leaky
    cfg = ParseConfig()
    d = discover(root, cfg)
    assert "inner/ok.py" in [f.path for f in d.files]
    os.rename(root / "inner", root / "inner.real")
    os.symlink(outside, root / "inner")
    (outside / "ok.py").write_text("SECRET = 1\n")
    src = read_source(root, "inner/ok.py", cfg)
    assert src.data is None and src.skip_reason == "outside_repository"


def test_a_fifo_never_blocks_a_read(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"a.py": "x = 1\n"})
    os.mkfifo(r.path / "pipe.py")
    fd, reason = open_confined(str(r.path), "pipe.py")
    assert fd is None and reason == "not_a_file"
    assert open_confined(str(r.path), ".")[1] == "outside_repository"
