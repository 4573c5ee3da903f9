"""A maintainer's note comes first among the notes of its kind an item carries, before other
authenticated authors' (session 24, F3).

Probe: a maintainer's failure note about a function, then five failure notes about it by five
other authenticated identities (newer): `get` carried the five others' and left the maintainer's to
``notes_more``; its line did not say it was a maintainer's either. Here through the real stack: a
real git repository indexed by the real job, a gRPC server on loopback whose token file gives carol
the maintainer role (docs/serving.md, "The token file"), and the local CLI, whose OS user is a
maintainer of its store (docs/notes.md, ``maintainer``); before a re-index merges the notes and
after.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from pipeline.job import index_repository
from serving.auth import ServerSecurity, TokenFile
from serving.client import Client
from serving.server import serve
from stratum.cli import main
from stratum.config import EmbedConfig, IndexConfig
from stratum.identity import Identity, acting_as, os_user
from stratum.tools import Tools
from tests.gitrepo import sample_python_repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(embed=EmbedConfig(enabled=False), ray=False)
TARGET = "shop/pricing.py::price_of"
ADD = "shop/cart.py::Cart.add"
OTHERS = [f"dev{k}" for k in range(1, 6)]
TOKENS = {"carol": "carol-token-m24-000001", **{n: f"{n}-token-m24-00000{k}" for k, n in enumerate(OTHERS, 2)}}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """(repository, a store of it indexed by the real job): copied per test, notes never shared."""
    base = tmp_path_factory.mktemp("m24")
    repo = sample_python_repo(base / "shop")
    index_repository(repo.path, base / "store", CFG)
    return repo.path, base / "store"


def _copy(indexed, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(indexed[1], store, ignore=shutil.ignore_patterns("deltalog"))
    return store


def _reindexed(repo, store, tools: Tools, note_id: str) -> None:
    """Merge every note into a new published version, and serve that version (NOTE_ID: a row of it)."""
    index_repository(repo, store, CFG)
    assert tools.reload() and tools.memory.resolve(note_id).row is not None


def test_a_maintainers_note_over_grpc_comes_first_before_and_after_the_merge(indexed, tmp_path):
    repo, store = indexed[0], _copy(indexed, tmp_path)
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{TOKENS['carol']} carol maintainer\n" + "".join(f"{TOKENS[n]} {n}\n" for n in OTHERS))
    os.chmod(tokens, 0o600)
    tools = Tools.open([str(store)])
    server, port = serve(tools, port=0, reload_interval=None, security=ServerSecurity(None, TokenFile(tokens)))
    clients = {n: Client(f"127.0.0.1:{port}", timeout=60, token=t) for n, t in TOKENS.items()}
    try:
        sess = {n: c.open_session().data["session"] for n, c in clients.items()}
        carol = clients["carol"].remember(sess["carol"], "failure", "memoising price_of broke the price reload",
                                          [TARGET]).data["note_id"]
        others = [clients[n].remember(sess[n], "failure", f"{n}: tried a dict cache in price_of, stale prices",
                                      [TARGET]).data["note_id"] for n in OTHERS]
        # kind order stays first: two others' failure notes before the maintainer's insight
        fails = [clients[n].remember(sess[n], "failure", f"{n}: tried summing quantities in add", [ADD]
                                     ).data["note_id"] for n in OTHERS[:2]]
        insight = clients["carol"].remember(sess["carol"], "insight", "add keeps one line per SKU",
                                            [ADD]).data["note_id"]
        for merged in (False, True):
            if merged:
                _reindexed(repo, store, tools, carol)
            got = clients["dev1"].get(sess["dev1"], TARGET).items[0]
            shown = [n["id"] for n in got.notes]
            assert shown == [carol] + others[::-1][:4], (merged, got.notes)
            assert got.meta["notes_total"] == 6 and got.meta["notes_more"] is True
            lines = [n["line"] for n in got.notes]
            assert "(0 h old, by carol, authenticated, maintainer): " in lines[0], lines[0]
            assert all("maintainer" not in ln for ln in lines[1:]), lines
            added = clients["carol"].get(sess["carol"], ADD).items[0]
            assert [n["id"] for n in added.notes] == fails[::-1] + [insight], (merged, added.notes)
    finally:
        for c in clients.values():
            c.close()
        server.stop(None)
        tools.close()


def test_the_os_users_cli_note_comes_first_and_a_claimed_name_is_no_maintainer(indexed, tmp_path, capsys):
    repo, store = indexed[0], _copy(indexed, tmp_path)
    me = os_user().name
    assert main(["remember", "failure", "do not memoise price_of: prices reload hourly", "--about", TARGET,
                 "--store", str(store), "--json"]) == 0
    mine = json.loads(capsys.readouterr().out)["data"]["note_id"]
    assert main(["remember", "failure", "claimed: tried an lru_cache", "--about", TARGET, "--author", "zed",
                 "--store", str(store)]) == 0
    tools = Tools.open([str(store)])
    try:
        for n in OTHERS:
            with acting_as(Identity(n, authenticated=True, method="token")):
                s = tools.open_session().data["session"]
                tools.remember(s, "failure", f"{n}: tried a dict cache in price_of, stale prices", [TARGET])
        for merged in (False, True):
            if merged:
                _reindexed(repo, store, tools, mine)
            capsys.readouterr()
            assert main(["get", TARGET, "--store", str(store)]) == 0
            notes = [ln.strip() for ln in capsys.readouterr().out.splitlines() if ln.strip().startswith("note: ")]
            assert len(notes) == 5, notes
            assert f"by {me}, authenticated, maintainer): \"do not memoise price_of" in notes[0], (merged, notes)
            assert all("maintainer" not in ln and "by zed" not in ln for ln in notes[1:]), (merged, notes)
            with acting_as(Identity("dev1", authenticated=True, method="token")):
                s = tools.open_session().data["session"]
                got = tools.get(s, TARGET).items[0]
            assert got.notes[0]["author"] == me and got.meta["notes_total"] == 7, (merged, got.notes)
            # a note item's own line (search's summary, get's full) says "maintainer" as get's note line does
            assert main(["search", "memoise price_of lru_cache", "--kind", "failure", "--store", str(store)]) == 0
            said = [ln for ln in capsys.readouterr().out.splitlines()
                    if "do not memoise" in ln or "claimed:" in ln]
            assert any(f"(note by {me}, authenticated, maintainer) " in ln and "do not memoise" in ln
                       for ln in said), (merged, said)
            assert not any("maintainer" in ln for ln in said if "claimed:" in ln), (merged, said)
            assert main(["get", mine, "--store", str(store)]) == 0
            first = capsys.readouterr().out.splitlines()[0]
            assert f"note by {me}, authenticated, maintainer" in first, (merged, first)
    finally:
        tools.close()
