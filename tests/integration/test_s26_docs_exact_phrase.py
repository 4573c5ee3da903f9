"""A runbook or Makefile whose words hold the query's, in order, is not buried by history.

A probe: in a repository whose past commits talk about the orders API, `search "Restart the orders
API"` served the runbook headed so 12th, below the code files and past changes those commits lifted,
and `search lint_go` put the Makefile that defines it 9th, below past changes and files lifted only by
them. Real repository with history (the index job mines its changes), the real Tools."""

from __future__ import annotations

from pipeline.job import index_repository
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False)
API = "from orders.store import save\n\n\ndef place(order):\n    '''Place an order.'''\n    return save(order)\n"
SERVER = "import signal\n\n\ndef serve(port):\n    '''Serve HTTP on PORT.'''\n    return port\n"
PAST = ["orders API: restart workers on reload", "Fix the orders API restart loop",
        "Restart orders API server gracefully", "orders api: log restart reason",
        "lint go code in the orders API", "go lint fixes for orders server"]


def _tools(tmp_path) -> Tools:
    r = Repo(tmp_path / "repo")
    r.commit("init", {
        "orders/__init__.py": "", "orders/api.py": API, "orders/server.py": SERVER,
        "orders/store.py": "def save(order):\n    return order\n",
        "docs/runbook.md": "# Restart the orders API\n\nDrain the queue first, then run\n"
                           "`systemctl restart orders-api`.\n",
        "Makefile": "lint_go:\n\tgolangci-lint run ./...\n\ntest:\n\tgo test ./...\n",
    })
    for i, msg in enumerate(PAST):      # history about the orders API: mined change nodes lift its files
        path, src = ("orders/api.py", API) if i % 2 == 0 else ("orders/server.py", SERVER)
        r.commit(msg, {path: f"{src}\n\n# rev {i}\n"})
    index_repository(r.path, tmp_path / "store", CFG)
    return Tools.open([str(tmp_path / "store")])


def test_the_document_holding_the_query_leads_and_code_queries_keep_their_code(tmp_path):
    t = _tools(tmp_path)
    try:
        s = t.open_session().data["session"]
        items = t.search(s, "Restart the orders API").items
        assert any(i.kind == "change" for i in t.search(s, "orders API restart").items)     # history is there
        assert items[0].path == "docs/runbook.md" and items[0].why.startswith("exact phrase"), \
            [(i.kind, i.path, i.why) for i in items]
        make = t.search(s, "lint_go").items
        assert make[0].path == "Makefile" and "exact phrase" in make[0].why, [(i.kind, i.path, i.why) for i in make]
        # the same words out of order are no phrase: the runbook keeps its place among what history lifts
        loose = t.search(s, "orders API restart").items
        assert not any("exact phrase" in i.why for i in loose), [(i.kind, i.path, i.why) for i in loose]
        # a query about code still finds its code first
        code = t.search(s, "place an order").items
        assert (code[0].path, code[0].name) == ("orders/api.py", "place"), [(i.kind, i.path, i.why) for i in code]
    finally:
        t.close()
