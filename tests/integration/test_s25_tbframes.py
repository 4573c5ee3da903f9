"""A pasted traceback's frames name files by get's rules (``pathtails.named_files``, one function for both).

A probe (F11) found search reading a frame's path more loosely than ``get`` reads it:
- ``/home/ci/proj/billing/cart.py`` only shares its file's name with shop/cart.py: get says "no node",
  but search put shop/cart.py::Cart.total first as that frame, its notes attached;
- ``/app/packages/admin/src/api.ts`` goes on into packages/admin/src, which holds no api.ts: get
  refuses it, search served packages/web/src/api.ts::fetchUser as the frame;
- a container's ``/app/manage.py ... in run`` was app/manage.py (which has no ``run``) though the
  repository's root manage.py defines it: the frame's function was asked only inside the file taken.
Now a frame's file is one get would read for that path, and its function chooses among the files the
path names (a tie get refuses, or a shorter tail). Real git repository, the real index job, the real
Tools and the CLI reading a paste on standard input.
"""

from __future__ import annotations

import io
import json

import pytest

from stratum.errors import InvalidArgument, NotFound
from stratum.tracebacks import FRAME_WHY
from tests.tbframes import frame_items

pytestmark = pytest.mark.slow

CART = ('"""The cart."""\n\n\nclass Cart:\n    """A shopping cart."""\n\n    def __init__(self):\n'
        '        self.items = []\n\n    def total(self):\n        """The sum."""\n        s = sum(self.items)\n'
        '        return s\n')
TOTAL_LINE = CART.splitlines().index("        s = sum(self.items)") + 1
FILES: dict[str, str | bytes] = {
    "shop/__init__.py": "", "shop/cart.py": CART,
    "manage.py": "def run():\n    return 1\n",
    "app/__init__.py": "", "app/manage.py": "from shop.cart import Cart\n\n\ndef main():\n    return Cart().total()\n",
    "packages/web/src/api.ts": "export function fetchUser(id: number) {\n  return fetch(`/u/${id}`);\n}\n",
    "packages/admin/src/panel.ts": "import { fetchUser } from '../../web/src/api';\n"
                                   "export function panel() {\n  return fetchUser(1);\n}\n",
    "packages/web/src/util.ts": "export function formatDate(d: Date) {\n  return d.toISOString();\n}\n",
    "packages/admin/src/util.ts": "export function formatMoney(n: number) {\n  return n.toFixed(2);\n}\n",
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("tbframes"), FILES, "a shop, a container entry point, a monorepo") as got:
        yield got


def _py(*frames: tuple[str, int, str], error: str = "ValueError: boom") -> str:
    body = "".join(f'  File "{p}", line {n}, in {f}\n    pass\n' for p, n, f in frames)
    return f"Traceback (most recent call last):\n{body}{error}\n"


def test_a_frame_whose_file_only_shares_its_name_with_one_here_leads_nowhere(tools):
    t, s = tools
    paste = _py(("/home/ci/proj/billing/cart.py", TOTAL_LINE, "compute_bill"))
    assert frame_items(t.search(s, paste, page_size=10).items) == []
    with pytest.raises(NotFound, match="no node"):          # as get reads that path
        t.get(s, f"/home/ci/proj/billing/cart.py:{TOTAL_LINE}")
    # the repository's own folder in the path still names it
    ok = _py(("/home/ci/proj/shop/cart.py", TOTAL_LINE, "total"))
    assert frame_items(t.search(s, ok, page_size=3).items)[:1] == [
        ("shop/cart.py::Cart.total", f"traceback frame: shop/cart.py:{TOTAL_LINE} in total")]


def test_a_js_frame_into_another_package_folder_is_not_a_file_of_a_sibling(tools):
    t, s = tools
    items = t.search(s, "TypeError: x is undefined\n    at adminThing (/app/packages/admin/src/api.ts:2:10)\n",
                     page_size=10).items
    assert frame_items(items) == []
    with pytest.raises(NotFound, match="holds no 'api.ts'"):
        t.get(s, "/app/packages/admin/src/api.ts:2")
    items = t.search(s, "TypeError: x is undefined\n    at fetchUser (/app/packages/web/src/api.ts:2:10)\n",
                     page_size=3).items
    assert frame_items(items)[:1] == [("packages/web/src/api.ts::fetchUser",
                                   "traceback frame: packages/web/src/api.ts:2 in fetchUser")]


def test_a_container_frame_is_the_file_that_defines_its_function(tools):
    t, s = tools
    paste = _py(("/app/manage.py", 2, "run"), ("/app/app/manage.py", 5, "main"))
    assert frame_items(t.search(s, paste, page_size=5).items)[:2] == [
        ("app/manage.py::main", "traceback frame: app/manage.py:5 in main"),
        ("manage.py::run", "traceback frame: manage.py:2 in run")]
    # a frame naming no function keeps get's file (app/manage.py: its longest tail)
    bare = t.search(s, "ValueError: boom\n/app/manage.py:2: ValueError", page_size=5).items
    assert [p for p, _ in frame_items(bare)] == ["app/manage.py"]
    assert t.get(s, "/app/manage.py").items[0].path == "app/manage.py"


def test_a_tie_get_refuses_is_told_apart_by_the_frames_function_only(tools):
    t, s = tools
    with pytest.raises(InvalidArgument, match="names 2 files"):
        t.get(s, "/build/src/util.ts:2")
    items = t.search(s, "TypeError: d.toISOString is not a function\n    at formatDate (/build/src/util.ts:2:12)\n",
                     page_size=3).items
    assert frame_items(items)[:1] == [("packages/web/src/util.ts::formatDate",
                                   "traceback frame: packages/web/src/util.ts:2 in formatDate")]
    # an anonymous frame, or one whose function neither defines: not guessed
    for line in ("    at /build/src/util.ts:2:12", "    at render (/build/src/util.ts:2:12)"):
        assert frame_items(t.search(s, f"TypeError: boom\n{line}\n", page_size=10).items) == [], line


def test_the_cli_reading_a_pasted_traceback_on_stdin_follows_the_same_rules(tools, capsys, monkeypatch):
    from tests.clirun import run

    t, _ = tools
    store = str(next(iter(t.memory)).store.root)
    paste = _py(("/home/ci/proj/billing/cart.py", TOTAL_LINE, "compute_bill"), ("/app/manage.py", 2, "run"))
    monkeypatch.setattr("sys.stdin", io.StringIO(paste))
    rc, out, err = run(capsys, "search", "-", "--store", store, "--json")
    assert rc == 0, err
    got = [(i["path"], i["why"].split(";")[0]) for i in json.loads(out)["items"] if i["why"].startswith(FRAME_WHY)]
    assert got == [("manage.py", "traceback frame: manage.py:2 in run")]
