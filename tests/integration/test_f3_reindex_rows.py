"""A re-index writes the previous version's unchanged rows as they were read (``stages.StoredRow``:
taken from Arrow, not converted back; the mined notes' embedding and keyword hashes kept) and its
datasets equal a ``--full`` index of the same commit, row for row. Real git repositories, real
tree-sitter, the real (static) model, real Lance."""

from __future__ import annotations

import shutil

import numpy as np

from pipeline.job import index_repository
from stratum import schema as S
from stratum.config import IndexConfig
from stratum.keywordindex import KeywordIndex
from stratum.store import Store
from tests.gitrepo import Repo, sample_python_repo
from tests.integration.test_s27_reindex_warm import _warm

CFG = IndexConfig(num_cpus=1)
DATASETS = (("nodes", ["id"]), ("edges", ["src", "dst", "kind"]), ("embeddings", ["text_hash"]),
            ("external_imports", ["src", "target"]), ("cochange", ["a", "b"]), ("commits", ["sha"]),
            ("file_changes", ["sha", "path"]))


def _text(r: Repo, rel: str) -> str:
    return (r.path / rel).read_text()


def _sorted(store, name: str, key: list[str]):
    tab = Store(store).snapshot().read(name)
    return tab.sort_by([(k, "ascending") for k in key])


def _reindex_and_full(tmp_path, r: Repo, commit) -> tuple:
    """(the incremental store, its report, the --full store) after ``commit(r)``."""
    inc, full = tmp_path / "inc", tmp_path / "full"
    index_repository(r.path, inc, CFG)
    before = Store(inc).snapshot().read("nodes", columns=["id", "kind", "path", "full"]).to_pylist()
    commit(r)
    shutil.copytree(inc, full)
    rep = index_repository(r.path, inc, CFG)
    index_repository(r.path, full, IndexConfig(num_cpus=1, full=True))
    for name, key in DATASETS:
        a, b = _sorted(inc, name, key), _sorted(full, name, key)
        assert a.num_rows == b.num_rows and a.equals(b), name       # vectors too, bit for bit
    (mi, di), (mf, df) = _warm(inc), _warm(full)        # and the warm tier's rows and keyword index
    for name in ("rows.id.npy", "rows.doc.npy"):
        assert np.array_equal(np.load(di / name), np.load(df / name)), name
    ka, kb = KeywordIndex.load(di / "keyword"), KeywordIndex.load(df / "keyword")
    for name in KeywordIndex._ARRAYS:
        assert np.array_equal(getattr(ka, name), getattr(kb, name)), name
    return mi, rep, before


def test_a_one_file_reindex_keeps_the_mined_notes_as_they_were_and_equals_a_full_index(tmp_path):
    r = sample_python_repo(tmp_path / "shop")
    m, rep, before = _reindex_and_full(tmp_path, r, lambda r: r.commit(
        "invoice: say the currency", {"shop/invoice.py": _text(r, "shop/invoice.py") + "\n# prices in euros\n"}))
    assert rep.incremental and rep.files_parsed == 1 and rep.embedded >= 1
    code = [n for n in before if n["path"] != "shop/invoice.py" and n["kind"] not in ("repo", "dir", *S.NOTE_KINDS)]
    mined = [n for n in before if n["kind"] in S.MINED_NOTE_KINDS]
    assert mined and code
    # every previous mined note is unchanged (a commit adds one of its own): its keyword hash is
    # the previous folder's, as the unchanged code rows' are (before: the code rows' alone)
    assert m.indexes["incremental"] and m.indexes["docs_kept"] == len(code) + len(mined)


def test_mined_notes_about_a_renamed_file_are_made_again_and_the_reindex_still_equals_a_full_index(tmp_path):
    r = sample_python_repo(tmp_path / "shop")

    def rename(r: Repo) -> None:
        text = _text(r, "shop/invoice.py")
        r.mv("shop/invoice.py", "shop/bill.py")
        r.commit("invoice becomes bill", {"shop/bill.py": text + "\n# renamed\n"})

    m, rep, before = _reindex_and_full(tmp_path, r, rename)
    code = [n for n in before if n["path"] != "shop/invoice.py" and n["kind"] not in ("repo", "dir", *S.NOTE_KINDS)]
    mined = [n for n in before if n["kind"] in S.MINED_NOTE_KINDS]
    about_invoice = [n for n in mined if "shop/invoice.py" in (n["full"] or "")]
    assert about_invoice and rep.incremental
    # the notes about the renamed file changed (their about lines name shop/bill.py): made again
    assert m.indexes["docs_kept"] == len(code) + len(mined) - len(about_invoice)


GO_TYPE = ("package shop\n\n// Cart holds items.\ntype Cart struct {\n\tItems []string\n}\n\n"
           "func (c *Cart) Add(s string) {\n\tc.Items = append(c.Items, s)\n}\n")
GO_MORE = "package shop\n\n// Size counts the items.\nfunc (c *Cart) Size() int {\n\treturn len(c.Items)\n}\n"


def test_an_unchanged_row_the_link_stage_rewrites_is_written_as_rewritten(tmp_path):
    """``cart.go`` is unchanged, but its ``Cart`` row's api lists the methods other files of the
    package declare (``gopackage``): a method added in ``more.go`` changes that kept row, which
    must then be written from the record, not from the previous version's table."""
    r = Repo(tmp_path / "goshop")
    r.commit("cart", {"go.mod": "module example.com/shop\n\ngo 1.21\n", "cart.go": GO_TYPE, "more.go": GO_MORE})
    _reindex_and_full(tmp_path, r, lambda r: r.commit("more: Empty", {"more.go": GO_MORE + (
        "\n// Empty says whether the cart is empty.\nfunc (c *Cart) Empty() bool {\n\treturn len(c.Items) == 0\n}\n")}))
    cart = next(n for n in Store(tmp_path / "inc").snapshot().read("nodes").to_pylist()
                if n["qualname"] == "Cart" and n["kind"] == "class")
    assert "Size" in cart["api"] and "Empty" in cart["api"]
