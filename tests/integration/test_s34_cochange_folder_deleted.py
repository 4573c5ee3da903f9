"""`stratum cochange` on a folder and on a deleted file says which it is (s34 probe finding 3).

`stratum cochange src` said "src has no history in the index (not a current file of the
repository)", as it did for a name never seen; a deleted file said the same, while a renamed one
said "renamed to X in <sha>". A real git repository, the real index job (no Ray), the real CLI.
"""

from __future__ import annotations

import pytest

from stratum import analysis as A
from stratum.errors import NotFound

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """src/ holds three files with history (core.py changed most); empty/ is a folder of a file
    never committed; gone.py is deleted in commit 4."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo

    base = tmp_path_factory.mktemp("s34fold")
    r = Repo(base / "repo")
    r.commit("start", {"src/core.py": "A = 1\n", "src/api.py": "B = 1\n", "src/util.py": "U = 1\n",
                       "gone.py": "G = 1\n"})
    r.commit("grow", {"src/core.py": "A = 2\n", "src/api.py": "B = 2\n"})
    r.commit("core", {"src/core.py": "A = 3\n"})
    dropped = r.commit("drop gone", delete=["gone.py"])
    (r.path / "empty").mkdir()
    (r.path / "empty" / "new.py").write_text("N = 1\n")
    index_repository(r.path, base / "store", IndexConfig(num_cpus=1, ray=False))
    return r.path, base / "store", dropped


def test_a_folder_is_said_to_be_one_and_its_files_named(indexed, capsys, monkeypatch):
    from stratum.cli import main

    repo, store, _ = indexed
    for typed in ("src", "src/"):
        with pytest.raises(NotFound) as ei:
            A.coupled_with(store, typed)
        said = str(ei.value)
        assert said.startswith("src is a folder, and co-change history is per file: 3 of its files have history"), said
        assert "the most changed src/core.py, src/api.py, src/util.py" in said, said
        assert "stratum cochange src/core.py" in said and "not a current file" not in said, said
    monkeypatch.chdir(repo)
    assert main(["cochange", "src", "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert "src is a folder" in err and "src/core.py" in err, err
    with pytest.raises(NotFound, match=r"^empty is a folder, and none of its files has history in the index"):
        A.coupled_with(store, "empty")


def test_a_deleted_file_says_when_it_was_deleted(indexed, capsys, monkeypatch):
    from stratum.cli import main

    repo, store, dropped = indexed
    with pytest.raises(NotFound) as ei:
        A.coupled_with(store, "gone.py")
    assert f"not a current file of the repository: deleted in {dropped[:12]})" in str(ei.value), str(ei.value)
    monkeypatch.chdir(repo.parent)
    assert main(["cochange", "gone.py", "--store", str(store)]) == 2
    assert f"deleted in {dropped[:12]}" in capsys.readouterr().err
    with pytest.raises(NotFound, match=r"^nope.py has no history in the index \(not a current file of the repository\)$"):
        A.coupled_with(store, "nope.py")      # a name never seen: as before
