"""The same store given twice on the command line is one store: `--store A --store A/` (or ./A, or a
symlink to A). A probe: every command taking several --store opened it twice and refused it ("the
stores A and A/ both hold a repository named 'A'"), `stratum serve` and `stratum mcp` too, and a
command taking one store refused the second spelling as a second store."""

from __future__ import annotations

import json
import os

import pytest

from serving.client import Client
from tests.clirun import indexed_repo, run
from tests.servecli import stratum_serve

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def spellings(tmp_path_factory):
    """One indexed store and four spellings of its path: as it is, with a trailing slash, relative
    with ./ (from the fixture's folder, the tests' working directory) and through a symlink."""
    root = tmp_path_factory.mktemp("same")
    _repo, store = indexed_repo(root / "shop", {"cart.py": "def cart_total(items):\n    return sum(items)\n"})
    link = root / "link"
    link.symlink_to(store, target_is_directory=True)
    return root, [store, store + "/", "./" + os.path.relpath(store, root), str(link)]


def test_query_and_one_store_commands_read_the_same_store_given_twice_once(spellings, capsys, monkeypatch):
    root, paths = spellings
    monkeypatch.chdir(root)
    flags = [arg for p in paths for arg in ("--store", p)]
    rc, out, err = run(capsys, "status", "--json", *flags)
    assert rc == 0, err                     # was 2: "the stores ... both hold a repository named 'shop'"
    assert [s["repo"] for s in json.loads(out)["data"]["shards"]] == ["shop"]
    rc, out, err = run(capsys, "get", "cart.py", "--json", *flags)
    assert rc == 0 and json.loads(out)["items"][0]["path"] == "cart.py", err
    rc, out, err = run(capsys, "notes", "list", "--json", "--store", paths[0], "--store", paths[3])
    assert rc == 0, err                     # was: "argument --store: given twice"


def test_a_server_started_with_the_same_store_twice_serves_it_once(spellings):
    _root, paths = spellings
    with stratum_serve(paths[0], "--store", paths[1], "--store", paths[3]) as (line, address):
        assert "serving shop v1 " in line and line.count("shop") == 1, line
        with Client(address) as c:
            sid = c.open_session().data["session"]
            assert c.get(sid, "cart.py").items[0].path == "cart.py"          # not "held by two stores"


def test_tools_open_reads_the_same_store_given_twice_once(spellings, monkeypatch):
    """The library's own entry point as the CLI: a caller's `Tools.open(["A", "A/"])` was refused."""
    from stratum.tools import Tools

    root, paths = spellings
    monkeypatch.chdir(root)
    t = Tools.open(paths)
    try:
        s = t.open_session(author="lib").data["session"]
        assert [x["repo"] for x in t.status(s).data["shards"]] == ["shop"]
        assert t.get(s, "cart.py", "api").items[0].path == "cart.py"
    finally:
        t.close()
