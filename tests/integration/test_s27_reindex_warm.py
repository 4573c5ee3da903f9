"""A re-index tells the warm build which rows it read back unchanged (``stages.reuse``): their
document hashes are the previous folder's, and the warm tier equals the one ``--full`` builds for
the same commit, row for row. Real git repository, real index job, real Lance."""

from __future__ import annotations

import shutil

import numpy as np

from pipeline.job import index_repository
from stratum import schema as S
from stratum.config import IndexConfig
from stratum.keywordindex import KeywordIndex
from stratum.store import Store
from tests.gitrepo import sample_python_repo

CFG = IndexConfig(num_cpus=1)
# pricing.py drops ``discount`` (cart.py calls it) and adds ``discount_of``: the one file changed
PRICING = ('"""Prices and discounts."""\n\nPRICES = {"apple": 0.5, "pear": 0.75}\n\n\n'
           'def price_of(sku: str) -> float:\n    """Unit price of a SKU in euros."""\n    return PRICES[sku]\n\n\n'
           'def discount_of(total: float, code: str) -> float:\n    """What a discount CODE takes off a TOTAL."""\n'
           '    return total * 0.1 if code == "TEN" else 0.0\n')


def _warm(store):
    s = Store(store)
    m = s.manifest()
    return m, s.root / m.indexes["dir"]


def test_a_reindex_keeps_unchanged_rows_hashes_and_its_warm_tier_equals_a_full_builds(tmp_path):
    r = sample_python_repo(tmp_path / "shop")
    inc = tmp_path / "inc"
    index_repository(r.path, inc, CFG)
    r.commit("pricing: discount_of replaces discount", {"shop/pricing.py": PRICING})
    full = tmp_path / "full"
    shutil.copytree(inc, full)
    mined = [n for n in Store(full).snapshot().read("nodes", columns=["kind"]).to_pylist() if n["kind"] in S.MINED_NOTE_KINDS]
    rep = index_repository(r.path, inc, CFG)
    assert rep.incremental and rep.files_parsed == 1
    index_repository(r.path, full, IndexConfig(num_cpus=1, full=True))
    (mi, di), (mf, df) = _warm(inc), _warm(full)
    nodes = Store(inc).snapshot().read("nodes", columns=["path", "kind"]).to_pylist()
    reused = [n for n in nodes if n["path"] != "shop/pricing.py" and n["kind"] not in ("repo", "dir", *S.NOTE_KINDS)]
    assert mi.indexes["incremental"] and mi.indexes["docs_kept"] == len(reused) + len(mined) > 0     # unchanged mined notes kept too
    assert not mf.indexes["incremental"]
    for name in ("rows.id.npy", "rows.doc.npy"):
        assert np.array_equal(np.load(di / name), np.load(df / name)), name
    ka, kb = KeywordIndex.load(di / "keyword"), KeywordIndex.load(df / "keyword")
    for name in KeywordIndex._ARRAYS:
        assert np.array_equal(getattr(ka, name), getattr(kb, name)), name
