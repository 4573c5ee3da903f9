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


def _indexed(tmp_path) -> str:
    """A store of a one-file repository (shop/pricing.py::discount), indexed."""
    r = Repo(tmp_path / "r")
    r.commit("i", {"shop/pricing.py": "def discount(total):\n    return total\n"})
    store = str(tmp_path / "s")
    assert main(["index", str(r.path), "--store", store, "--no-ray", "--no-embed"]) == 0
    return store


def test_retract_every_note_of_one_author_and_list_by_author(tmp_path, capsys):
    store = _indexed(tmp_path)
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
    assert out.startswith("retracted 25 note(s) by mallory (claimed) as os:"), out
    rc, out, err = run(capsys, "notes", "list", "--status", "active", "--json", "--store", store)
    assert [n["author"] for n in json.loads(out)["notes"]] == ["alice"]
    rc, out, err = run(capsys, "notes", "retract", "--all-by", "mallory", "--store", store)
    assert rc == 0 and out.startswith("retracted 0 note(s) by mallory (claimed)"), out
    assert run(capsys, "notes", "retract", "--store", store)[0] == 2                # neither an id nor --author


def test_retract_all_by_a_name_two_identities_hold_takes_the_one_asked(tmp_path, capsys):
    """A claimed "agent-a" (an open server's session) and the token-proven agent-a are two identities:
    `--all-by agent-a` retracted both (a probe, session 27). Both kinds present: refused until
    --claimed or --proven says which; each then retracts only its own."""
    store = _indexed(tmp_path)
    t = Tools.open([store])
    try:
        sid = t.open_session(author="agent-a").data["session"]
        for i in range(3):
            t.remember(sid, "insight", f"flood {i} from a claimed agent-a", ["shop/pricing.py::discount"])
        with acting_as(Identity(name="agent-a", authenticated=True, method="token")):
            sid = t.open_session().data["session"]
            t.remember(sid, "rca", "the real agent-a: discount rounds late", ["shop/pricing.py::discount"])
    finally:
        t.close()

    rc, out, err = run(capsys, "notes", "retract", "--all-by", "agent-a", "--store", store)
    assert rc == 2 and "'agent-a' is two identities here: 3 note(s) by callers that only claimed" in err, err
    assert "say which with --claimed or --proven" in err
    rc, out, err = run(capsys, "notes", "retract", "--all-by", "agent-a", "--claimed", "--store", store)
    assert rc == 0 and out.startswith("retracted 3 note(s) by agent-a (claimed) as os:"), (out, err)
    rc, out, err = run(capsys, "notes", "list", "--status", "active", "--json", "--store", store)
    assert [(n["author"], n["kind"]) for n in json.loads(out)["notes"]] == [("agent-a", "rca")]
    with acting_as(Identity(name="agent-a", authenticated=False, method="claimed")):    # not the proven one
        rc, out, err = run(capsys, "notes", "retract", "--all-by", "agent-a", "--proven", "--store", store)
    assert rc != 0 and "may not retract the notes of 'agent-a' (proven)" in err, (rc, out, err)
    rc, out, err = run(capsys, "notes", "retract", "--proven", "--store", store)
    assert rc == 2 and "give --all-by" in err, err
    # the OS user is proven too (as its notes' provenance says): its own notes are retracted as such
    from stratum.identity import current

    me = current().name
    t = Tools.open([store])
    try:
        t.remember(t.open_session().data["session"], "insight", "mine", ["shop/pricing.py::discount"])
    finally:
        t.close()
    rc, out, err = run(capsys, "notes", "retract", "--all-by", me, "--store", store)
    assert rc == 0 and out.startswith(f"retracted 1 note(s) by {me} (proven) as {me}"), (out, err)
