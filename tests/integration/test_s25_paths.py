"""Paths across stores and across a monorepo's packages, on real repositories indexed by the real
index job, through the real Tools and the CLI over them.

Before (probe, session 24): with `--store shop --store big`, `tree .` and `search --path .` run in
big/docs listed shop's docs/ too ("." from a subfolder was read as the path docs, in every store);
in a monorepo with packages/web/src/api.ts and a packages/admin/src holding no api.ts, `get
packages/admin/src/api.ts` served web's file by its tail, and `remember --about` it said only
"unknown target", with no word why."""

from __future__ import annotations

import json
import re

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig
from stratum.errors import NotFound, NoteRejected
from stratum.tools import Tools
from tests.clirun import indexed_repo, run
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
MONO = {"packages/web/src/api.ts": "export function fetchCart(): number { return 1; }\n",
        "packages/web/src/cart.ts": "export class Cart {\n  total(): number { return 0; }\n}\n",
        "packages/admin/src/refund.ts": "export function refund(a: number): number { return -a; }\n",
        "src/pkg/x.py": "def x():\n    return 1\n"}
WHY = "the folder packages/admin/src holds no 'api.ts'; packages/web/src/api.ts only ends like it (in another folder)"
CROSSED = "no file 'packages/admin/src/api.ts': " + WHY                 # get's refusal
UNKNOWN = "unknown target: 'packages/admin/src/api.ts': " + WHY         # remember's


def _json(capsys, *argv: str) -> dict:
    rc, out, err = run(capsys, *argv, "--json")
    assert rc == 0, (argv, err)
    return json.loads(out)


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """Two repositories, each indexed into its own .stratum, both with a docs/ folder and a
    docs/README.md: (shop's root, big's root, the --store arguments naming both)."""
    base = tmp_path_factory.mktemp("two")
    shop, s1 = indexed_repo(base / "shop", {"docs/README.md": "# Shop\nHow to check out a cart.\n",
                                            "docs/guide.md": "# Shop guide\nCheck out the cart.\n",
                                            "shop/cart.py": "def total():\n    return 1\n"})
    big, s2 = indexed_repo(base / "big", {"docs/README.md": "# Big\nHow to check out the big app.\n",
                                          "docs/intro.md": "# Big intro\nCheck out the big app.\n",
                                          "big/app.py": "def run():\n    return 2\n"})
    return shop.path, big.path, ("--store", s1, "--store", s2)


def test_a_path_from_here_is_the_store_s_whose_repository_holds_it(two, capsys, monkeypatch):
    shop, big, stores = two
    monkeypatch.chdir(big / "docs")
    listed = _json(capsys, "tree", ".", *stores)["items"]
    assert {(i["repo"], i["path"]) for i in listed} == {("big", "docs"), ("big", "docs/README.md"),
                                                        ("big", "docs/intro.md")}, listed
    hits = _json(capsys, "search", "check out", "--path", ".", *stores)["items"]
    assert hits and {i["repo"] for i in hits} == {"big"}, hits
    got = _json(capsys, "get", "README.md", *stores)["items"]           # both hold docs/README.md
    assert [(i["repo"], i["path"]) for i in got] == [("big", "docs/README.md")], got
    got = _json(capsys, "get", "../big/app.py::run", *stores)["items"]
    assert [(i["repo"], i["qualname"]) for i in got] == [("big", "run")], got
    # an absolute path is the store's whose repository holds it, whatever the working directory
    got = _json(capsys, "get", str(shop / "docs" / "guide.md"), *stores)["items"]
    assert [(i["repo"], i["path"]) for i in got] == [("shop", "docs/guide.md")], got
    # a repository path as given still reads in every store: shop's guide.md from big/docs
    got = _json(capsys, "get", "docs/guide.md", *stores)["items"]
    assert [(i["repo"], i["path"]) for i in got] == [("shop", "docs/guide.md")], got
    said = _json(capsys, "remember", "insight", "the readme is generated", "--about", "./README.md", *stores)
    about = _json(capsys, "walk", "big:docs/README.md", "--edge", "notes", "--direction", "in", *stores)["items"]
    assert said["data"]["note_id"] in [i["id"] for i in about], (said, about)
    monkeypatch.chdir(shop)                  # at a repository's top "." is that repository
    listed = _json(capsys, "tree", ".", "--depth", "1", *stores)["items"]
    assert listed and {i["repo"] for i in listed} == {"shop"}, listed


@pytest.fixture(scope="module")
def mono(tmp_path_factory):
    """A monorepo whose packages/admin/src holds no api.ts, indexed: (repository, store)."""
    base = tmp_path_factory.mktemp("mono")
    r = Repo(base / "repo")
    r.commit("init", MONO)
    index_repository(r.path, base / "store", CFG)
    return r, str(base / "store")


def test_a_path_into_a_folder_without_the_file_is_not_another_folder_s_file(mono, capsys):
    _, store = mono
    t = Tools.open([store])
    try:
        sid = t.open_session(author="agent").data["session"]
        for call in (lambda: t.get(sid, "packages/admin/src/api.ts"), lambda: t.walk(sid, "packages/admin/src/api.ts")):
            with pytest.raises(NotFound, match=re.escape(CROSSED)):
                call()
        with pytest.raises(NotFound, match="no file 'packages/admin/src/api.ts:1': the folder packages/admin/src"):
            t.get(sid, "packages/admin/src/api.ts:1")
        with pytest.raises(NotFound, match="the folder packages/admin/src holds no 'api.ts'"):
            t.get(sid, "admin/src/api.ts")                  # by its tail, admin/src is packages/admin/src
        # what a traceback or a package prints keeps its tail: folders this repository does not have
        for printed, path in (("/home/ci/build/src/pkg/x.py", "src/pkg/x.py"),
                              ("web/src/api.ts", "packages/web/src/api.ts"),
                              ("/home/ci/build/packages/web/src/api.ts", "packages/web/src/api.ts"),
                              ("/srv/app/src/cart.ts", "packages/web/src/cart.ts")):
            assert [i.path for i in t.get(sid, printed).items] == [path], printed
        with pytest.raises(NoteRejected, match=re.escape(UNKNOWN)):
            t.remember(sid, "insight", "admin's api retries", ["packages/admin/src/api.ts"])
        said = t.remember(sid, "insight", "web's api never retries", ["web/src/api.ts"])
        assert said.data["note_id"]
    finally:
        t.close()
    for argv, said in ((("get", "packages/admin/src/api.ts"), CROSSED),
                       (("remember", "insight", "x", "--about", "packages/admin/src/api.ts"), UNKNOWN)):
        rc, out, err = run(capsys, *argv, "--store", store)
        assert rc == 2 and said in err and not out, (argv, out, err)


def test_a_file_new_in_the_checkout_at_that_path_is_said_to_be_new(mono):
    """Not a crossing: the checkout has the file, new since the index; get and remember say so."""
    r, store = mono
    new = r.path / "packages" / "admin" / "src" / "api.ts"
    new.write_text("export function adminApi(): number { return 3; }\n")
    t = Tools.open([store], overlay_builder=builder())
    try:
        sid = t.open_session(author="agent").data["session"]
        new_file = "'packages/admin/src/api.ts' is in the repository but not in the index: new"
        with pytest.raises(NotFound, match=new_file):
            t.get(sid, "packages/admin/src/api.ts")
        with pytest.raises(NoteRejected, match=new_file):
            t.remember(sid, "insight", "admin's api is new", ["packages/admin/src/api.ts"])
    finally:
        t.close()
        new.unlink()


def test_in_a_branch_session_the_branch_s_folders_count(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", MONO)
    index_repository(r.path, tmp_path / "store", CFG)
    git(r.path, "checkout", "-q", "-b", "feat")
    r.commit("ops", {"packages/ops/src/deploy.ts": "export const deploy = 1;\n"})
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([str(tmp_path / "store")], overlay_builder=builder())
    try:
        sid = t.open_session(author="agent", branch="feat").data["session"]
        with pytest.raises(NotFound, match=re.escape(CROSSED)):
            t.get(sid, "packages/admin/src/api.ts")
        with pytest.raises(NotFound, match="the folder packages/ops/src holds no 'api.ts'"):
            t.get(sid, "packages/ops/src/api.ts")           # a folder the branch added
        with pytest.raises(NoteRejected, match="the folder packages/ops/src holds no 'api.ts'"):
            t.remember(sid, "insight", "ops api", ["packages/ops/src/api.ts"])
        assert [i.path for i in t.get(sid, "web/src/api.ts").items] == ["packages/web/src/api.ts"]
        base = t.open_session(author="agent").data["session"]     # off the branch there is no packages/ops
        assert [i.path for i in t.get(base, "packages/ops/src/api.ts").items] == ["packages/web/src/api.ts"]
    finally:
        t.close()
