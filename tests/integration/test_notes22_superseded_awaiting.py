"""Under quarantine a superseded note awaits nothing: `stratum notes list --status quarantined` lists
what awaits a review, the note that replaced it, not the superseded one (it was listed beside it,
as awaiting confirmation). It is still listed as what it is (`--status superseded`)."""

from __future__ import annotations

import json

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from tests.clirun import run
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))


def _listed(capsys, st: str, status: str) -> list[str]:
    rc, out, err = run(capsys, "notes", "list", "--status", status, "--json", "--store", st)
    assert rc == 0, err
    return [n["id"] for n in json.loads(out)["notes"]]


def test_a_superseded_note_of_a_new_author_is_not_listed_as_awaiting_confirmation(tmp_path, capsys):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"a.py": "def f():\n    pass\n"})
    st = str(tmp_path / "store")
    index_repository(r.path, st, CFG)
    assert run(capsys, "notes", "policy", "--quarantine", "on", "--store", st)[0] == 0

    def remember(text: str, *more: str) -> str:
        rc, out, err = run(capsys, "remember", "insight", text, "--about", "a.py::f", "--author", "zed",
                           "--json", "--store", st, *more)
        assert rc == 0, err
        return json.loads(out)["data"]["note_id"]

    first = remember("f is called twice per request")
    second = remember("f is called twice per request, once from the retry loop", "--supersedes", first)
    assert _listed(capsys, st, "quarantined") == [second]           # it listed [first, second]
    assert _listed(capsys, st, "superseded") == [first]
