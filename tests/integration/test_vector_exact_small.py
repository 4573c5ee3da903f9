"""The same commit indexed incrementally and with a full index answers `search` alike: real git, real
tree-sitter, the real (static) model, real Lance, the real warm tier.

Why a test: an incremental index updates the shard's HNSW graph (removals and insertions), a full
index builds a fresh one, and two graphs over the same vectors return different neighbours. A shard
of ``vectorindex.EXACT_ROWS`` vectors or fewer is scanned exactly, so its vector list, and the
page a user reads, is a function of the data alone."""

from __future__ import annotations

import random
import shutil

from pipeline.job import index_repository
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False)
WORDS = ("cart total price discount coupon invoice order refund ledger account balance payment card token "
         "session cookie header request response router blueprint template render cache queue worker retry "
         "backoff timeout socket stream buffer parse encode decode json yaml config option flag plugin hook "
         "signal event handler logger metric trace span user group role permission policy audit file path "
         "archive upload download image thumbnail resize crop color palette font glyph layout grid column "
         "row table index query filter sort merge split join lock mutex thread pool schedule cron job task "
         "report export import sync mirror backup restore snapshot version migrate schema field record").split()
QUERIES = ["add", "cart total", "request context push", "rounding discount cents", "session cookie",
           "retry with backoff", "render the invoice template", "lock the ledger account", "export report rows",
           "parse json config", "resize image thumbnail", "user role permission check", "queue worker task",
           "socket stream timeout", "snapshot restore backup", "merge sorted columns"]


def _module(rng: random.Random, m: int, funcs: int = 70) -> str:
    out = [f'"""Module {m}: {" ".join(rng.sample(WORDS, 6))}."""\n']
    for i in range(funcs):
        a, b = rng.sample(WORDS, 2)
        doc = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 12)))
        out.append(f"\ndef {a}_{b}_{m}_{i}({rng.choice(WORDS)}, {rng.choice(WORDS)}_x=None):\n"
                   f'    """{doc.capitalize()}."""\n    return {rng.choice(WORDS)}\n')
    return "\n".join(out)


def test_an_incremental_and_a_full_index_of_one_commit_give_the_same_search_pages(tmp_path):
    rng = random.Random(18)
    r = Repo(tmp_path / "shop")
    r.commit("shop: many small helpers", {f"shop/m{m:02d}.py": _module(rng, m) for m in range(36)})
    inc, full = tmp_path / "inc", tmp_path / "full"
    index_repository(r.path, inc, CFG)
    for n in range(3):              # a few small commits, each indexed incrementally (the graph updated)
        r.commit(f"touch {n}", {f"shop/m{n:02d}.py": _module(rng, 100 + n),
                                f"shop/extra{n}.py": _module(rng, 200 + n, funcs=5)})
        rep = index_repository(r.path, inc, CFG)
        assert rep.incremental
    shutil.copytree(inc, full)
    assert not index_repository(r.path, full, IndexConfig(num_cpus=1, ray=False, full=True)).incremental

    a, b = Tools.open([str(inc)]), Tools.open([str(full)])
    try:
        shard = a.shards.shards[0]
        assert 2000 < len(shard.warm.searcher.vectors) <= 5000     # HNSW-sized before, scanned now
        sa, sb = a.open_session().data["session"], b.open_session().data["session"]
        for q in QUERIES:
            pa = [(i.path, i.name, round(i.score, 6)) for i in a.search(sa, q, page_size=10).items]
            pb = [(i.path, i.name, round(i.score, 6)) for i in b.search(sb, q, page_size=10).items]
            assert pa == pb, q
    finally:
        a.close()
        b.close()
