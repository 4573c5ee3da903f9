"""A flood of notes from one identity is cleaned up in one command: `stratum notes retract --all-by
NAME` (10,000 notes took one `notes retract` of 1.5 s each, about four hours, a probe), and `notes
list --author NAME` shows what one identity wrote. Another author's notes need a maintainer."""

from __future__ import annotations

import json

from stratum.cli import main
from stratum.identity import Identity, acting_as
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo


def test_retract_every_note_of_one_author_and_list_by_author(tmp_path, capsys):
    r = Repo(tmp_path / "r")
    r.commit("i", {"shop/pricing.py": "def discount(total):\n    return total\n"})
    store = str(tmp_path / "s")
    assert main(["index", str(r.path), "--store", store, "--no-ray", "--no-embed"]) == 0
    t = Tools.open([store])
    try:
        for author, n in (("mallory", 25), ("alice", 1)):
            sid = t.open_session(author=author).data["session"]
            for i in range(n):
                t.remember(sid, "insight", f"discount note {author} {i}", ["shop/pricing.py::discount"])
    finally:
        t.close()

    rc, out, err = run(capsys, "notes", "list", "--author", "mallory", "--json", "--store", store)
    assert rc == 0, err
    assert {n["author"] for n in json.loads(out)["notes"]} == {"mallory"} and len(json.loads(out)["notes"]) == 25

    with acting_as(Identity(name="bob", authenticated=True, method="token")):      # not a maintainer
        rc, out, err = run(capsys, "notes", "retract", "--all-by", "mallory", "--store", store)
    assert rc != 0 and "only their author or a maintainer may" in err, (rc, out, err)

    rc, out, err = run(capsys, "notes", "retract", "--all-by", "mallory", "--reason", "flood", "--store", store)
    assert rc == 0, err
    assert out.startswith("retracted 25 note(s) by mallory as os:"), out
    rc, out, err = run(capsys, "notes", "list", "--status", "active", "--json", "--store", store)
    assert [n["author"] for n in json.loads(out)["notes"]] == ["alice"]
    rc, out, err = run(capsys, "notes", "retract", "--all-by", "mallory", "--store", store)
    assert rc == 0 and out.startswith("retracted 0 note(s) by mallory"), out
    assert run(capsys, "notes", "retract", "--store", store)[0] == 2                # neither an id nor --author
