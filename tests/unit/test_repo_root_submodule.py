"""An uninitialised submodule's empty folder is no folder of the superproject's code: `stratum index
sub` indexed the superproject (the gitlink made the folder look tracked; a review found it)."""

from __future__ import annotations

import subprocess

import pytest

from pipeline import gitio
from stratum.errors import NotARepository


def _git(cwd, *args):
    subprocess.run(["git", "-c", "protocol.file.allow=always", "-c", "user.name=t", "-c", "user.email=t@t",
                    *args], cwd=cwd, check=True, capture_output=True)


def test_an_uninitialised_submodule_folder_is_not_the_superproject(tmp_path):
    (tmp_path / "inner").mkdir()
    _git(tmp_path / "inner", "init", "-q")
    _git(tmp_path / "inner", "commit", "-q", "--allow-empty", "-m", "i")
    (tmp_path / "outer" / "pkg").mkdir(parents=True)
    _git(tmp_path / "outer", "init", "-q")
    (tmp_path / "outer" / "pkg" / "a.py").write_text("x = 1\n")
    _git(tmp_path / "outer", "add", "pkg")
    _git(tmp_path / "outer", "submodule", "add", "-q", str(tmp_path / "inner"), "sub")
    _git(tmp_path / "outer", "commit", "-q", "-m", "init")
    _git(tmp_path, "clone", "-q", str(tmp_path / "outer"), "clone")     # its submodule not initialised
    clone = tmp_path / "clone"
    assert not any((clone / "sub").iterdir())
    with pytest.raises(NotARepository, match="tracks no file in it"):
        gitio.repo_root(clone / "sub")
    assert gitio.repo_root(clone / "pkg") == clone.resolve()       # a folder it holds is the repository
