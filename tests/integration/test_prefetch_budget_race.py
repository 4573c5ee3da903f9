"""A prefetch keeps its budget while other sessions write notes about the files it plans (a fleet
probe: the plan charged each item's notes as they were, the items carried the notes written in
between: budget 200 served 347 tokens). The real Tools over a real repository, a writer thread."""

from __future__ import annotations

import itertools
import threading

import pytest

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow


def test_prefetch_stays_within_its_budget_while_notes_are_written(tmp_path):
    r = Repo(tmp_path / "repo")
    files = {"shop/__init__.py": "", "shop/ctx.py": "from shop.util import helper\n\n\ndef ctx():\n    return helper()\n",
             "shop/util.py": "def helper():\n    return 1\n",
             "shop/api.py": "from shop.ctx import ctx\n\n\ndef api():\n    return ctx()\n",
             "tests/test_ctx.py": "from shop.ctx import ctx\n\n\ndef test_ctx():\n    assert ctx() == 1\n"}
    r.commit("init", files)
    index_repository(r.path, tmp_path / "store", IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False), ray=False))
    t = Tools.open([str(tmp_path / "store")])
    stop = threading.Event()

    def writer():
        s = t.open_session(author="writer").data["session"]
        for i in itertools.count():
            if stop.is_set():
                return
            target = ("shop/ctx.py", "shop/util.py", "shop/api.py", "tests/test_ctx.py")[i % 4]
            t.remember(s, ("failure", "rca", "insight")[i % 3], f"note {i}: tried changing {target} step {i}", [target])

    w = threading.Thread(target=writer, daemon=True)
    w.start()
    over = []
    try:
        for i in range(120):
            budget = 60 + (i * 37) % 400
            s = t.open_session(author=f"reader{i}").data["session"]
            served = sum(it.tokens for it in t.prefetch(s, ["shop/ctx.py"], budget=budget).items)
            if served > budget:
                over.append((budget, served))
            t.close_session(s)
    finally:
        stop.set()
        w.join(timeout=30)
        t.close()
    assert not over, over
