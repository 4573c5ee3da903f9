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
