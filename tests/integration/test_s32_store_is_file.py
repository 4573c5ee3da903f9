"""`stratum index --store` naming a file, or a path under one, is a user error said so (exit 2):
it was "File exists (afile)" / "Not a directory (afile/st)", exit 1, as a disk fault reads (an
index-lifecycle probe)."""

from __future__ import annotations

from tests.clirun import run
from tests.gitrepo import Repo


def test_a_store_path_that_is_a_file_is_refused_by_name(tmp_path, capsys):
    r = Repo(tmp_path / "repo")
    r.commit("one", {"a.py": "def f():\n    return 1\n"})
    afile = tmp_path / "afile"
    afile.write_text("x\n")
    rc, out, err = run(capsys, "index", str(r.path), "--store", str(afile), "--no-embed", "--no-ray")
    assert rc == 2 and f"--store {afile} is a file: a store is a folder" in err, err
    rc, out, err = run(capsys, "index", str(r.path), "--store", str(afile / "st"), "--no-embed", "--no-ray")
    assert rc == 2 and f"lies under {afile}, a file" in err, err
    assert afile.read_text() == "x\n"                       # the file is as it was
