"""Two answers a probe of the MCP server found wrong, through the real Tools over a real git
repository indexed by the real pipeline: `walk` with "notes" beside another edge kind kept that
kind's direction only for "notes" alone (imports out became both), and `search` with a
`repo:path` prefix on a single store found nothing, silently."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False), ray=False)


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    root = tmp_path_factory.mktemp("scope")
    r = Repo(root / "shop")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": "def discount(t):\n    return t * 0.9\n",
                      "shop/cart.py": "from shop.pricing import discount\n\n\ndef total(x):\n    return discount(x)\n",
                      "shop/api.py": "from shop.cart import total\n\n\ndef checkout(x):\n    return total(x)\n"})
    index_repository(r.path, root / "store", CFG)
    t = Tools.open([str(root / "store")])
    yield t
    t.close()


def test_walk_with_notes_and_imports_keeps_the_direction_asked_for_imports(tools):
    s = tools.open_session(author="agent").data["session"]
    nid = tools.remember(s, "rca", "cart total applies the discount once", ["shop/cart.py"]).data["note_id"]
    items = tools.walk(s, "shop/cart.py", edges=["imports", "notes"]).items
    out = {(i.path, i.direction) for i in items if i.kind == "file"}
    assert out == {("shop/pricing.py", "out")}, out                      # not shop/api.py, which imports it
    assert nid in {i.id for i in items}                                  # and its notes
    back = {i.path for i in tools.walk(s, "shop/cart.py", edges=["imports", "notes"], direction="in").items}
    assert "shop/api.py" in back and "shop/pricing.py" not in back, back


def test_search_takes_repo_colon_path_on_a_single_store(tools):
    s = tools.open_session(author="agent").data["session"]
    plain = [i.id for i in tools.search(s, "discount", path_prefix="shop/").items]
    assert plain and [i.id for i in tools.search(s, "discount", path_prefix="shop:shop/").items] == plain
    assert [i.id for i in tools.search(s, "discount", path_prefix="shop:").items] == \
        [i.id for i in tools.search(s, "discount").items]


def test_a_merged_agent_note_leads_walk_notes_ahead_of_mined_changes(tmp_path):
    """A fleet probe: merged by a re-index, a failure note fell from position 0 to 124 of 158 in
    `walk --edge notes` (behind the mined change nodes, by row), off the first page."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"app.py": "def run():\n    return 0\n"})
    for i in range(12):                                       # mined "change" nodes about app.py
        r.commit(f"tune run step {i}", {"app.py": f"def run():\n    return {i + 1}\n"})
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="agent").data["session"]
        nid = t.remember(s, "failure", "raising the return value broke the callers", ["app.py"]).data["note_id"]
        before = [i.id for i in t.walk(s, "app.py", edges=["notes"], direction="in").items]
        assert before[0] == nid and len(before) > 5, before
        index_repository(r.path, store, CFG)
        t.reload()
        items = t.walk(s, "app.py", edges=["notes"], direction="in").items
        assert items[0].id == nid and [i.kind for i in items[1:]] == ["change"] * (len(items) - 1), \
            [(i.id, i.kind) for i in items]
    finally:
        t.close()


def test_get_and_walk_take_repo_colon_path_on_a_single_store_as_search_does(tools):
    """The review: search took `shop:` on one store (its own copy of the parsing), get and walk did not."""
    s = tools.open_session(author="agent").data["session"]
    assert tools.get(s, "shop:shop/cart.py").items[0].path == "shop/cart.py"
    assert [i.id for i in tools.walk(s, "shop:shop/cart.py", edges=["imports"]).items] == \
        [i.id for i in tools.walk(s, "shop/cart.py", edges=["imports"]).items]


def test_walk_lists_the_notes_in_the_order_items_carry_them_merged_or_not(tmp_path):
    """A notes probe: three insight notes were carried newest first by get, listed oldest first by
    an unmerged walk, and in note-id (hash) order once a re-index merged them."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"app.py": "def run():\n    return 0\n"})
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="agent").data["session"]
        ids = [t.remember(s, "insight", f"run returns early in case {i}", ["app.py::run"]).data["note_id"]
               for i in range(4)]
        fail = t.remember(s, "failure", "tried returning None from run: callers broke", ["app.py::run"]).data["note_id"]
        want = [fail, *ids[::-1]]                                # failure first, then the newest first

        def both() -> tuple[list[str], list[str]]:
            carried = [n["id"] for n in t.get(s, "app.py::run").items[0].notes]
            walked = [i.id for i in t.walk(s, "app.py::run", edges=["notes"]).items]
            return carried, walked

        assert both() == (want, want)
        index_repository(r.path, store, CFG)
        t.reload()
        assert both() == (want, want)
    finally:
        t.close()
