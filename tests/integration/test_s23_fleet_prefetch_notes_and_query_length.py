"""Two fleet-probe findings. Prefetch of a function answers with its file's item, which carries the
active notes about the file's symbols (a probe saw a note about shop/taxes.py::tax_for missing
from prefetch's file items: that note had been retracted by then). A query over the limit is said to
be as long as the caller sent it ("tax " 700 times, 2,800 characters, was "2799 characters")."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from stratum import tracebacks as TB
from stratum.config import IndexConfig, default_store_path
from stratum.errors import InvalidArgument
from stratum.limits import MAX_QUERY_CHARS
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False)
TAXES = "RATE = 0.2\n\n\ndef tax_for(amount):\n    return amount * RATE\n\n\ndef net(amount):\n    return amount - tax_for(amount)\n"
CART = "from shop.taxes import tax_for\n\n\ndef cart_total(items):\n    return sum(items) + tax_for(sum(items))\n"


@pytest.fixture()
def tools(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/taxes.py": TAXES, "shop/cart.py": CART})
    store = str(default_store_path(r.path))
    index_repository(r.path, store, CFG)
    t = Tools.open([store])
    yield t
    t.close()


@pytest.mark.parametrize("after_get", [False, True])
def test_prefetch_of_a_function_carries_the_notes_about_it_on_its_file(tools, after_get):
    s = tools.open_session().data["session"]
    nid = tools.remember(s, "failure", "tax_for rounds per line, not per cart", ["shop/taxes.py::tax_for"]).data["note_id"]
    s = tools.open_session().data["session"]
    if after_get:
        tools.get(s, "shop/taxes.py::tax_for")
    got = tools.prefetch(s, ["shop/taxes.py::tax_for"])
    taxes = [it for it in got.items if it.path == "shop/taxes.py"]
    assert taxes and taxes[0].kind == "file", [(it.kind, it.path) for it in got.items]
    assert nid in [n["id"] for n in taxes[0].notes], taxes[0].notes
    tools.retract(s, nid)
    s = tools.open_session().data["session"]
    again = [it for it in tools.prefetch(s, ["shop/taxes.py::tax_for"]).items if it.path == "shop/taxes.py"]
    assert again and nid not in [n["id"] for n in again[0].notes]       # retracted: shown nowhere


def test_a_query_over_the_limit_is_said_to_be_as_long_as_sent():
    with pytest.raises(InvalidArgument, match=f"query is 2800 characters; the limit is {MAX_QUERY_CHARS}"):
        TB.read(("tax " * 700).strip(), MAX_QUERY_CHARS, sent=2800)
    with pytest.raises(InvalidArgument, match="query is 2805 characters"):     # colour codes count as sent
        TB.read("\x1b[31m" + "tax " * 700, MAX_QUERY_CHARS)


def test_search_says_the_length_the_caller_sent(tools):
    s = tools.open_session().data["session"]
    with pytest.raises(InvalidArgument, match="query is 2800 characters"):
        tools.search(s, "tax " * 700)
