"""What a probe of the notes found, fixed on a real repository, the real index job, the tools and a
real gRPC server on loopback (an open one: every caller is anonymous and claims a name):

- the identical-note check compared the author's name only: a claimed "erin" (the local CLI's
  ``--author erin``, an open server's session) writing what the token's erin wrote was handed her
  quarantined note as "yours" (its id, trust, provenance, text) and nothing was written;
- tags took zero-width and bidi-override characters, which author names may not hold;
- a byte that is not UTF-8 in any argument of the gRPC client (and so of every ``--server``
  command) ended in a UnicodeEncodeError traceback;
- gRPC Retract/Confirm said NotFound of a short id the CLI retracts, and "no note" of a mined
  change the CLI explains; ``remember`` about a file committed after the index did not say what
  ``get`` says (index it).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from serving.client import Client
from serving.server import serve
from stratum import errors as E
from stratum.identity import Identity, acting_as
from tests.gitrepo import git

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
ERIN = Identity("erin", authenticated=True, method="token")
TARGET = "shop/pricing.py::discount"
PRICING = "def discount(price, pct):\n    return round(price * (1 - pct / 100), 2)\n"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(the repository's path, store, tools, the address of an open gRPC server over them); quarantine on."""
    from stratum.tools import Tools
    from tests.integration.test_quarantine_merged import quarantined_store

    base = tmp_path_factory.mktemp("identity")
    store = quarantined_store(base, {"shop/__init__.py": "", "shop/pricing.py": PRICING})[0]
    tools = Tools.open([str(store)])
    server, port = serve(tools, port=0, reload_interval=None)
    yield base / "repo", store, tools, f"127.0.0.1:{port}"
    server.stop(None)
    tools.close()


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratum.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_a_claimed_name_never_gets_the_proven_identitys_note(served):
    _, _, tools, addr = served
    text = "the discount is rounded before tax; look at SHOP_SECRET handling"
    with acting_as(ERIN):
        es = tools.open_session().data["session"]
        nid = tools.remember(es, "insight", text, [TARGET]).data["note_id"]
    claimed = tools.open_session(author="erin").data["session"]   # the local CLI's --author erin
    mine = tools.remember(claimed, "insight", text, [TARGET])
    assert mine.data["note_id"] != nid and not mine.envelope.warnings
    assert mine.items[0].id == mine.data["note_id"] and mine.items[0].provenance["authenticated"] is False
    with Client(addr, timeout=60) as c:       # an open server's session claiming erin: the same claimed name
        s = c.open_session(author="erin").data["session"]
        again = c.remember(s, "insight", text, [TARGET])
        assert again.data["note_id"] == mine.data["note_id"] and nid not in str(again.to_dict())
        with pytest.raises(E.NotFound):
            c.get(s, nid)                       # her note stays absent to it
    with acting_as(ERIN):                       # her own retry still finds hers
        retry = tools.remember(es, "insight", text, [TARGET])
        assert retry.data["note_id"] == nid and any("identical" in w and nid in w for w in retry.envelope.warnings)
    ov = next(iter(tools.overlays.values()))
    assert sorted((n.author, n.authenticated) for n in ov.notes.values() if n.text == text) == \
        [("erin", False), ("erin", True)]


@pytest.mark.parametrize("tag", ["mo\u200bney", "\u202eyenom", "a\u2028b", "x\ufeff"])
def test_tags_with_invisible_characters_are_refused_as_names_are(served, tag):
    tools = served[2]
    s = tools.open_session().data["session"]
    with pytest.raises(E.InvalidArgument, match="control or invisible"):
        tools.open_session(author=tag)          # the session's rule for a name ...
    with pytest.raises(E.NoteRejected, match="bad tag") as got:
        tools.remember(s, "insight", f"tagged {tag!r}", [TARGET], tags=["money", tag])     # ... is the tags' rule
    assert "invisible" in str(got.value)
    assert tools.remember(s, "insight", "tagged plainly", [TARGET], tags=["money"]).data["note_id"]


def test_a_byte_that_is_not_utf8_is_what_the_tools_say_of_it_over_grpc(served):
    _, store, tools, addr = served
    bad = "caf\udce9"
    local = tools.open_session(author="li").data["session"]
    with Client(addr, timeout=60) as c:
        s = c.open_session(author="li").data["session"]
        wrote = c.remember(s, "insight", f"{bad} over the wire", [TARGET])     # text: U+FFFD, as locally
        here = tools.remember(local, "insight", f"{bad} here", [TARGET])
        assert "caf\ufffd over the wire" in wrote.items[0].text and "caf\ufffd here" in here.items[0].text
        assert any(i.id == wrote.data["note_id"] for i in c.search(s, bad + " over the wire").items)
        for call, local_call in [
                (lambda: c.open_session(author=bad), lambda: tools.open_session(author=bad)),
                (lambda: c.remember(s, "insight", "x", [TARGET], tags=[bad]),
                 lambda: tools.remember(local, "insight", "x", [TARGET], tags=[bad])),
                (lambda: c.remember(s, "insight", "x", [bad]), lambda: tools.remember(local, "insight", "x", [bad]))]:
            with pytest.raises(E.StratumError) as remote:
                call()
            with pytest.raises(E.StratumError) as here_err:
                local_call()
            assert (type(remote.value), str(remote.value)) == (type(here_err.value), str(here_err.value))
        for call in (lambda: c.get(s, bad), lambda: c.walk(s, TARGET, edges=[bad]), lambda: c.prefetch(s, [bad]),
                     lambda: c.retract(s, bad), lambda: c.status(bad)):
            with pytest.raises(E.InvalidArgument, match="not valid UTF-8"):
                call()
    p = _cli("get", bad, "--server", addr)
    assert p.returncode == 2 and "not valid UTF-8" in p.stderr and "Traceback" not in p.stderr, p.stderr
    p = _cli("remember", "insight", f"{bad} from the cli", "--about", TARGET, "--author", "li", "--server", addr)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr


def test_retract_and_confirm_take_ids_over_grpc_as_the_cli_does(served):
    _, store, tools, addr = served
    s = tools.open_session().data["session"]
    change = next(i.id for i in tools.walk(s, "shop/pricing.py", edges=["notes"]).items if i.kind == "change")
    cli = _cli("notes", "retract", change, "--store", str(store))
    assert cli.returncode == 2 and "mined change node" in cli.stderr
    with acting_as(ERIN):
        hidden = tools.remember(tools.open_session().data["session"], "failure", "erin's quarantined finding",
                                [TARGET]).data["note_id"]
    with Client(addr, timeout=60) as c:
        ds = c.open_session(author="dana").data["session"]
        for call, action in ((c.retract, "retracted"), (c.confirm, "confirmed")):
            with pytest.raises(E.NoteRejected) as got:
                call(ds, change)
            assert f"cannot be {action}" in str(got.value)
        assert str(got.value).replace("confirmed", "retracted") in cli.stderr    # the CLI's words
        nid = c.remember(ds, "insight", "dana's note, retracted by its short id", [TARGET]).data["note_id"]
        r = c.retract(ds, nid[:10], reason="by a short id")
        assert r.data["note_id"] == nid
        assert tools.memory.overlay(tools.memory.note_store(nid)).notes[nid].retraction is not None
        with pytest.raises(E.NotFound, match="no note"):        # another's quarantined note: not by a short id
            c.retract(ds, hidden[:10])
    cli = _cli("notes", "retract", hidden[:10], "--store", str(store))   # the store's owner reaches it
    assert cli.returncode == 0 and hidden in cli.stdout, cli.stderr


def test_remember_about_a_file_committed_after_the_index_says_to_index_it(served):
    repo, _, tools, _ = served
    (repo / "shop" / "newfile.py").write_text("def helper():\n    return 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a new file")       # after the indexed commit
    s = tools.open_session().data["session"]
    with pytest.raises(E.NotFound) as said:
        tools.get(s, "shop/newfile.py::helper")
    with pytest.raises(E.NoteRejected) as got:
        tools.remember(s, "rca", "helper returns a constant", ["shop/newfile.py::helper"])
    assert "unknown target" in str(got.value) and str(said.value) in str(got.value)
    assert "`stratum index` takes it in" in str(got.value)
    with pytest.raises(E.NoteRejected) as typo:      # a typo in an indexed file: no such hint
        tools.remember(s, "rca", "x", ["shop/pricing.py::discont"])
    assert "not in the index" not in str(typo.value)
