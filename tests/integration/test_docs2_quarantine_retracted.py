"""Quarantine and retracted notes: a retracted note awaits no confirmation, and confirming one is
refused, by the CLI and by the tools (gRPC's Confirm) alike, writing nothing.

A docs-verbatim probe: with quarantine on, a retracted note was listed under `stratum notes list
--status quarantined` as awaiting confirmation, and `stratum notes confirm ID` of it exited 0 saying
"others see it, and zed's notes, now", making its author trusted."""

from __future__ import annotations

import json

import pytest

from stratum.deltalog import DeltaLog
from stratum.errors import NoteRejected
from stratum.identity import Identity, acting_as
from tests.clirun import indexed_repo, run

pytestmark = pytest.mark.slow
BOB = Identity("bob", authenticated=True, method="token")


@pytest.fixture()
def store(tmp_path, capsys):
    """A store under quarantine holding zed's retracted note: (store path, the note's id)."""
    _, st = indexed_repo(tmp_path / "q", {"a.py": "def f():\n    pass\n"})
    assert run(capsys, "notes", "policy", "--quarantine", "on", "--store", st)[0] == 0
    rc, out, err = run(capsys, "remember", "insight", "zed's note", "--about", "a.py", "--author", "zed",
                       "--json", "--store", st)
    assert rc == 0, err
    nid = json.loads(out)["data"]["note_id"]
    assert run(capsys, "notes", "retract", nid, "--reason", "withdrawn", "--store", st)[0] == 0
    return st, nid


def _records(st: str) -> int:
    return len(DeltaLog(f"{st}/deltalog").scan().records)


def test_a_retracted_note_is_not_listed_as_awaiting_nor_confirmed_by_the_cli(store, capsys):
    st, nid = store
    rc, out, _ = run(capsys, "notes", "list", "--status", "quarantined", "--json", "--store", st)
    assert rc == 0 and json.loads(out)["notes"] == []                # it was listed as awaiting
    rc, out, _ = run(capsys, "notes", "list", "--status", "retracted", "--json", "--store", st)
    assert [n["id"] for n in json.loads(out)["notes"]] == [nid]     # still listed as what it is

    before = _records(st)
    rc, out, err = run(capsys, "notes", "confirm", nid, "--store", st)
    assert rc == 2 and out == "" and f"note {nid} is retracted: no one is shown it" in err, (rc, out, err)
    assert _records(st) == before                                   # nothing written

    # zed is still new to the store: a note zed writes next awaits confirmation, and confirming it works
    rc, out, _ = run(capsys, "remember", "insight", "zed's second note", "--about", "a.py", "--author", "zed",
                     "--json", "--store", st)
    second = json.loads(out)["data"]["note_id"]
    rc, out, _ = run(capsys, "notes", "list", "--status", "quarantined", "--json", "--store", st)
    assert [n["id"] for n in json.loads(out)["notes"]] == [second]
    rc, out, err = run(capsys, "notes", "confirm", second, "--store", st)
    assert rc == 0 and "others see it, and zed's notes, now" in out, err


def test_the_tools_confirm_of_a_retracted_note_is_refused_as_the_cli_refuses_it(store):
    from stratum.tools import Tools

    st, nid = store
    tools = Tools.open([st], embedder=None)
    try:
        with acting_as(BOB):                # a proven identity: past the anonymous-confirm refusal
            s = tools.open_session().data["session"]
            before = _records(st)
            with pytest.raises(NoteRejected, match=f"note {nid} is retracted: no one is shown it"):
                tools.confirm(s, nid)
        assert _records(st) == before
    finally:
        tools.close()
