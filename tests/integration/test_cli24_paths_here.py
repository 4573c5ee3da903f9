"""The query CLI reads a path from a subfolder as `stratum cochange` does: a path that exists from the
working directory (or begins ./ or ../) is that file. From shop/, `cochange cart.py` found
shop/cart.py while `get cart.py` and `walk ./cart.py` said "no node", `remember --about ./cart.py`
"unknown target", and `tree .` showed the repository's top (probe P1); in packages/admin, `get
src/api.ts` could not tell admin's from web's (probe P2). What worked keeps working: a
repository-relative path, a node id, path::Symbol and path:LINE."""

from __future__ import annotations

import json
import shutil

import pytest

from pipeline.job import index_repository
from stratum.config import IndexConfig
from tests.clirun import run
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow

CART = ('"""The cart."""\nfrom shop.pricing import discount\n\n\nclass Cart:\n    """A shopping cart."""\n\n'
        '    def total(self, rate=0.0):\n        """Total after the discount."""\n        return discount(10, rate)\n')
PRICING = ('"""Prices."""\n\n\ndef discount(amount, rate):\n    """Apply a discount rate, rounded to cents."""\n'
           '    return round(amount * (1 - rate), 2)\n')


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A repository with a package, its tests and two TypeScript packages whose files share names,
    indexed into its own .stratum (the store a command run inside it reads)."""
    r = Repo(tmp_path_factory.mktemp("here") / "shop-repo")
    r.commit("initial", {"shop/__init__.py": "", "shop/cart.py": CART, "shop/pricing.py": PRICING,
                         "tests/test_cart.py": "from shop.cart import Cart\n\n\ndef test_total():\n"
                                               "    assert Cart().total() == 10\n",
                         "packages/web/src/api.ts": "export function fetchCart(): number { return 1; }\n",
                         "packages/admin/src/api.ts": "export function refundCart(): number { return 2; }\n"})
    for i in (1, 2):     # shop/cart.py and shop/pricing.py change together
        r.commit(f"Fix rounding in cart totals ({i})", {"shop/cart.py": CART + f"# {i}\n",
                                                        "shop/pricing.py": PRICING + f"# {i}\n"})
    index_repository(r.path, None, IndexConfig(num_cpus=1, ray=False))
    return r.path


def _json(capsys, *argv: str) -> dict:
    rc, out, err = run(capsys, *argv, "--json")
    assert rc == 0, err
    return json.loads(out)


def test_from_a_subfolder_the_query_commands_read_the_path_cochange_reads(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo / "shop")
    rc, out, err = run(capsys, "cochange", "cart.py")
    assert rc == 0 and out.startswith("shop/cart.py: 1 co-changing files"), (out, err)
    for target in ("cart.py", "./cart.py", "../shop/cart.py", str(repo / "shop" / "cart.py")):
        got = _json(capsys, "get", target)["items"]
        assert [(i["kind"], i["path"]) for i in got] == [("file", "shop/cart.py")], (target, got)
    walked = _json(capsys, "walk", "./cart.py", "--edge", "imports")["items"]
    assert [i["path"] for i in walked] == ["shop/pricing.py"]
    got = _json(capsys, "get", "cart.py::Cart.total")["items"][0]
    assert (got["path"], got["qualname"]) == ("shop/cart.py", "Cart.total")
    got = _json(capsys, "get", "pricing.py:5")["items"][0]          # path:LINE: the function around it
    assert (got["path"], got["qualname"]) == ("shop/pricing.py", "discount")
    rc, out, err = run(capsys, "tree", ".", "--depth", "1")
    assert rc == 0 and out.startswith("dir shop/"), out
    rc, out, err = run(capsys, "tree", "..", "--depth", "1")
    assert rc == 0 and out.startswith("repo "), out
    # search --path: this folder, as a folder (shop, not also a shopping/ beside it)
    hits = _json(capsys, "search", "discount", "--path", ".")["items"]
    assert hits and all(i["path"].startswith("shop/") for i in hits), hits
    hits = _json(capsys, "search", "total", "--path", "../tests")["items"]
    assert hits and all(i["path"].startswith("tests/") for i in hits), hits


def test_what_worked_from_a_subfolder_keeps_working(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    node = _json(capsys, "get", "shop/cart.py::Cart")["items"][0]["id"]
    monkeypatch.chdir(repo / "tests")
    for target in ("shop/cart.py", node, node[:10], "shop-repo:shop/cart.py::Cart"):
        got = _json(capsys, "get", target)["items"][0]
        assert got["path"] == "shop/cart.py", (target, got)
    got = _json(capsys, "get", "test_cart.py::test_total")["items"][0]
    assert (got["path"], got["qualname"]) == ("tests/test_cart.py", "test_total")
    rc, _, err = run(capsys, "get", "nope.py")       # neither here nor at the top: as given
    assert rc == 2 and "no node 'nope.py'" in err, err


def test_in_a_package_a_runner_s_path_is_that_package_s_file(repo, capsys, monkeypatch):
    """jest or pytest run inside a package prints src/api.ts; two packages hold one."""
    monkeypatch.chdir(repo / "packages" / "admin")
    got = _json(capsys, "get", "src/api.ts")["items"]
    assert [i["path"] for i in got] == ["packages/admin/src/api.ts"], got
    assert _json(capsys, "cochange", "src/api.ts")["path"] == "packages/admin/src/api.ts"


def test_remember_about_a_path_from_a_subfolder(repo, tmp_path, capsys, monkeypatch):
    """A note's --about read from the working directory (in a copy: the note stays out of the others)."""
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy, symlinks=True)
    monkeypatch.chdir(copy / "shop")
    said = _json(capsys, "remember", "insight", "totals round once, at the end", "--about", "./cart.py::Cart.total")
    nid = said["data"]["note_id"]
    about = _json(capsys, "walk", "cart.py::Cart.total", "--edge", "notes", "--direction", "in")["items"]
    assert nid in [i["id"] for i in about], about


def test_a_file_of_another_checkout_is_refused_not_read_by_its_tail(repo, tmp_path, capsys, monkeypatch):
    """From shop/, `get ../../other/shop/cart.py` (a sibling checkout's file on disk) served this
    repository's shop/cart.py by its tail, and `remember --about` it wrote onto the wrong code (a
    probe). A path on no disk here (a deployed container's traceback path) keeps its tail match."""
    other = tmp_path / "other"
    (other / "shop").mkdir(parents=True)
    (other / "shop" / "cart.py").write_text(CART)
    monkeypatch.chdir(repo / "shop")
    theirs = str(other / "shop" / "cart.py")
    for argv in (("get", theirs), ("remember", "insight", "x", "--about", theirs)):
        rc, out, err = run(capsys, *argv)
        assert rc == 2 and "is not inside the repository" in err, (argv, rc, out, err)
    got = _json(capsys, "get", "/srv/app/shop/cart.py")              # on no disk here: its tail
    assert got["items"][0]["path"] == "shop/cart.py"
