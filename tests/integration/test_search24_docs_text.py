"""A file no grammar parses (a runbook, a shell script) is found by its words.

A probe: `search "Restart the orders API"` missed docs/runbook.md, and `search lint_go` missed
tools/lint.sh: such a file was keyword-searched by its path alone.
"""

from __future__ import annotations

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))


def test_a_runbook_and_a_script_are_found_by_their_words(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {
        "orders/api.py": "def place(order):\n    '''Place an order.'''\n    return order\n",
        "docs/runbook.md": "# Operations\n\nTo restart the orders API, drain the queue first, then run\n"
                           "`systemctl restart orders-api`.\n",
        "tools/lint.sh": "#!/bin/sh\nlint_go() {\n  golangci-lint run ./...\n}\nlint_go\n",
        "docs/cafe.md": b"# Caf\xe9 ops\n\nRotate the pelicanfrog credentials monthly.\n",   # one Latin-1 byte
    })
    index_repository(r.path, tmp_path / "store", CFG)
    t = Tools.open([str(tmp_path / "store")])
    try:
        s = t.open_session().data["session"]
        hits = [it.path for it in t.search(s, "drain the queue before a restart").items]
        assert hits and hits[0] == "docs/runbook.md", hits
        assert "tools/lint.sh" in [it.path for it in t.search(s, "lint_go").items][:3]
        cafe = t.search(s, "pelicanfrog credentials").items
        assert cafe and cafe[0].path == "docs/cafe.md" and "text" in cafe[0].why, [(i.path, i.why) for i in cafe]
    finally:
        t.close()
