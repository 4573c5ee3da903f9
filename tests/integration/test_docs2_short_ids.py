"""A note's short id follows one rule everywhere: "n" and 7 to 19 hex digits, the 8 characters a
search's why prints ("insight note n5126351"), taken by get, walk, remember's supersedes, `stratum
notes show|retract|confirm`; a shorter one is no id anywhere.

A docs-verbatim probe: `remember --supersedes n5126351` failed "no such note" while get and `notes
show` took it, and `notes show` took "n" and 6 hex digits that get called no node."""

from __future__ import annotations

import json

import pytest

from stratum.errors import NotFound
from tests.clirun import indexed_repo, run

pytestmark = pytest.mark.slow


@pytest.fixture()
def noted(tmp_path, capsys):
    """A store with one insight about wombat.py: (store path, the note's id)."""
    _, st = indexed_repo(tmp_path / "w", {"wombat.py": "def burrow():\n    return 1\n"})
    rc, out, err = run(capsys, "remember", "insight", "wombats burrow under the cache", "--about", "wombat.py",
                       "--json", "--store", st)
    assert rc == 0, err
    return st, json.loads(out)["data"]["note_id"]


def test_the_short_id_a_why_prints_supersedes_the_note(noted, capsys):
    st, nid = noted
    rc, out, _ = run(capsys, "search", "wombat burrow", "--json", "--store", st)
    short = nid[:8]
    assert any(short in (it.get("why") or "") and nid not in it["why"] for it in json.loads(out)["items"])

    rc, out, err = run(capsys, "remember", "insight", "wombats burrow under the cache and the queue",
                       "--about", "wombat.py", "--supersedes", short, "--json", "--store", st)
    assert rc == 0, err                              # was: cannot supersede 'n5126351': no such note
    newer = json.loads(out)["data"]["note_id"]
    rc, out, _ = run(capsys, "notes", "show", short, "--json", "--store", st)
    shown = json.loads(out)
    assert shown["id"] == nid and shown["status"] == "superseded" and shown["superseded_by"] == [newer]
    rc, out, _ = run(capsys, "notes", "show", newer, "--json", "--store", st)
    assert json.loads(out)["supersedes"] == [nid]    # stored by its full id


def test_the_tools_take_a_short_id_in_supersedes(noted):
    from stratum.tools import Tools

    st, nid = noted
    tools = Tools.open([st], embedder=None)
    try:
        s = tools.open_session().data["session"]
        r = tools.remember(s, "insight", "wombats burrow under the queue too", ["wombat.py"], supersedes=[nid[:8]])
        newer = r.data["note_id"]
        assert tools.get(s, nid[:8], level="full").items[0].meta["status"] == "superseded"
        assert tools.get(s, newer, level="full").items[0].id == newer
    finally:
        tools.close()


def test_one_length_of_short_id_everywhere(noted, capsys):
    st, nid = noted
    for short in (nid[:8], nid[:12]):                # the shortest printed, and longer
        assert run(capsys, "get", short, "--json", "--store", st)[0] == 0
        assert run(capsys, "walk", short, "--json", "--store", st)[0] == 0
        rc, out, _ = run(capsys, "notes", "show", short, "--json", "--store", st)
        assert rc == 0 and json.loads(out)["id"] == nid
    too_short = nid[:7]                              # "n" and 6 hex digits: notes show took it, get did not
    for argv in (("get", too_short), ("walk", too_short), ("notes", "show", too_short),
                 ("notes", "retract", too_short)):
        rc, out, err = run(capsys, *argv, "--store", st)
        assert rc == 2 and ("no note" in err or "no node" in err), (argv, rc, err)
    from stratum.tools import Tools

    tools = Tools.open([st], embedder=None)
    try:
        s = tools.open_session().data["session"]
        with pytest.raises(NotFound):
            tools.retract(s, too_short)
        assert tools.retract(s, nid[:8]).data["note_id"] == nid
    finally:
        tools.close()
