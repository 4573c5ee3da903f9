"""Memory that steers selection (stratum.rank) on a real git repository indexed by the real pipeline.

The repository: a small ledger package whose history co-changes ``ledger/currency.py`` with
``ledger/audit.py`` (no import between them) and holds one bug-fix commit. Notes are written
through the real tools (delta log + overlay); search hits come from the shard's real searcher.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from stratum import rank as R
from stratum.filetext import FileText
from stratum import signals as SG
from stratum import schema as S
from stratum.errors import InvalidArgument

pytestmark = pytest.mark.slow

CURRENCY = '''"""Currency conversion."""

RATES = {"EUR": 1.0, "USD": 1.1}


def convert(amount: float, rate_code: str) -> float:
    """Convert AMOUNT with the exchange rate RATE_CODE."""
    return amount * RATES[rate_code]


def rate_of(rate_code: str) -> float:
    """The exchange rate of RATE_CODE."""
    return RATES[rate_code]
'''

REPORT = '''"""Monthly reports."""


def monthly_summary(rows: list) -> str:
    """A monthly summary of the ledger rows: totals and rounded amounts per month."""
    return "\\n".join(f"{r[0]} {round(r[1], 2)}" for r in rows)


def summary_header(month: str) -> str:
    """The header line of a monthly summary."""
    return f"summary for {month}"
'''

AUDIT = '''"""Audit trail of ledger changes."""

TRAIL = []


def record(event: str) -> None:
    """Append EVENT to the audit trail."""
    TRAIL.append(event)
'''

PARSER = '''"""Parse ledger rows."""


def parse_row(line: str) -> tuple:
    """Split a CSV line into date and amount."""
    d, a = line.split(",")
    return d, float(a)
'''


def _ledger(path):
    from tests.gitrepo import Repo

    r = Repo(path)
    r.commit("initial ledger", {"ledger/__init__.py": "", "ledger/currency.py": CURRENCY,
                                "ledger/report.py": REPORT, "ledger/audit.py": AUDIT,
                                "ledger/parser.py": PARSER})
    for i in range(3):                       # currency and audit change together, three times
        r.commit(f"track rate changes {i}", {
            "ledger/currency.py": CURRENCY + f"\n# revision {i}\n",
            "ledger/audit.py": AUDIT + f"\n# revision {i}\n"})
    r.commit("Fix crash when the exchange rate code is unknown", {
        "ledger/currency.py": CURRENCY.replace("return amount * RATES[rate_code]",
                                               "return amount * RATES.get(rate_code, 1.0)") + "\n# revision 3\n"})
    r.commit("document the parser", {"ledger/parser.py": PARSER + "\n# the CSV has two columns\n"})
    return r


@pytest.fixture(scope="module")
def ledger(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig

    base = tmp_path_factory.mktemp("ledger")
    repo = _ledger(base / "ledger")
    store = base / "store"
    index_repository(repo.path, store, IndexConfig(num_cpus=1))
    return repo, store


def _open(store):
    from stratum.tools import Tools

    return Tools.open([str(store)])


DRIFT = "rounded amounts drift in the monthly summary"


def _open_copy(ledger, tmp_path):
    """Tools over a private copy of the ledger store (notes written here stay here), and a session."""
    import shutil

    store = tmp_path / "s"
    shutil.copytree(ledger[1], store)
    tools = _open(store)
    return tools, tools.open_session(author="agent").data["session"]


def _remember_drift(tools, s):
    tools.remember(s, "rca", "Rounded amounts drift in the monthly summary: the cause is convert() in "
                             "currency, which multiplies before rounding.", about=["ledger/currency.py::convert"])


def _files(tools, query, weights, overlay=True):
    sh = tools.shards.shards[0]
    ov = tools.overlays[str(sh.store.root)] if overlay else None
    page = sh.warm.search(query, limit=150, extra_docs=ov.search_docs() if ov else ())
    sig = SG.ShardSignals(sh, ov)
    return R.rank_files(R.candidates_of(page.items), sig, weights), sig, page


def test_cochange_lifts_a_structurally_unconnected_partner(ledger):
    tools = _open(ledger[1])
    try:
        q = "convert an amount with the exchange rate"
        # the fitted default co-change weight is small (0.05: it barely moved MRR on the benchmark
        # pasts); at 0.5 the lift is large enough to pass files that match the query's words weakly
        on, sig, _ = _files(tools, q, replace(R.DEFAULT_WEIGHTS, cochange=0.5).only("cochange"))
        off, _, _ = _files(tools, q, R.TEXT_ONLY)
        assert on[0].path == "ledger/currency.py"
        assert "ledger/currency.py" not in dict(sig.structure("ledger/audit.py")[1])   # no import, no test link
        audit = next(f for f in on if f.path == "ledger/audit.py")
        assert audit.parts["cochange"] > 0 and "co-changes with ledger/currency.py (support" in audit.why
        before = [f.path for f in off].index("ledger/audit.py") if "ledger/audit.py" in [f.path for f in off] else 99
        assert [f.path for f in on].index("ledger/audit.py") < before
    finally:
        tools.close()


def test_a_note_lifts_its_target_above_a_text_only_competitor(ledger, tmp_path):
    tools, s = _open_copy(ledger, tmp_path)
    try:
        q = DRIFT
        text_only, _, _ = _files(tools, q, R.TEXT_ONLY)
        assert text_only[0].path == "ledger/report.py"         # the words are in report.py
        _remember_drift(tools, s)
        ranked, _, _ = _files(tools, q, R.DEFAULT_WEIGHTS)
        paths = [f.path for f in ranked]
        assert paths.index("ledger/currency.py") < paths.index("ledger/report.py")
        top = ranked[0]
        assert top.path == "ledger/currency.py" and "rca note" in top.why and top.parts["notes"] > 0
        items = R.rerank(R.candidates_of(_files(tools, q, R.DEFAULT_WEIGHTS)[2].items),
                         SG.ShardSignals(next(iter(tools.memory)), tools.memory.overlay(next(iter(tools.memory)))))
        first_code = next(i for i in items if i.file)
        assert first_code.file == "ledger/currency.py" and "rca note" in first_code.why
    finally:
        tools.close()


def _copy(ledger, tmp_path):
    """A private copy of the fixture repository and its store (the test commits in the copy)."""
    import shutil

    work, store = tmp_path / "ledger", tmp_path / "s"
    shutil.copytree(ledger[0].path, work)
    shutil.copytree(ledger[1], store)
    return work, store


def test_a_stale_note_lifts_less_and_says_why(ledger, tmp_path):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo, git

    work, store = _copy(ledger, tmp_path)
    q = "audit trail loses events under load"
    text = "Audit trail loses events under load: record() appends without a lock."
    tools = _open(store)
    try:
        s = tools.open_session(author="agent").data["session"]
        nid = tools.remember(s, "rca", text, about=["ledger/audit.py::record"]).data["note_id"]
        fresh, _, page = _files(tools, q, R.DEFAULT_WEIGHTS)
        note_score = next(i.score for i in page.items if i.id == nid)
        lift_fresh = next(f for f in fresh if f.path == "ledger/audit.py").parts["notes"]
        assert lift_fresh == pytest.approx(R.DEFAULT_WEIGHTS.notes * note_score)
    finally:
        tools.close()
    r = Repo.__new__(Repo)
    r.path, r._n = work, 10
    r.commit("lock the audit trail", {"ledger/audit.py": AUDIT.replace("TRAIL.append(event)",
                                                                       "with LOCK:\n        TRAIL.append(event)")})
    assert git(work, "log", "-1", "--format=%s").strip() == "lock the audit trail"
    index_repository(work, store, IndexConfig(num_cpus=1))      # the note is merged; its code changed
    tools = _open(store)
    try:
        stale, _, page = _files(tools, q, R.DEFAULT_WEIGHTS)
        note_score = next(i.score for i in page.items if i.id == nid)
        audit = next(f for f in stale if f.path == "ledger/audit.py")
        assert audit.parts["notes"] == pytest.approx(R.DEFAULT_WEIGHTS.notes * R.DEFAULT_WEIGHTS.stale * note_score)
        assert "stale: ledger/audit.py::record changed" in audit.why
        assert f"counted x{R.DEFAULT_WEIGHTS.stale:g}" in audit.why
    finally:
        tools.close()


def test_a_history_mined_fix_is_found_on_a_fresh_index(ledger):
    tools = _open(ledger[1])
    try:
        sh = tools.shards.shards[0]
        assert tools.overlays[str(sh.store.root)].count() == 0          # no agent notes at all
        page = sh.warm.search("crash when the exchange rate code is unknown", limit=20)
        kinds = [sh.col("kind")[i.row] if i.row >= 0 else "" for i in page.items]
        assert "fix" in kinds
        fix_row = page.items[kinds.index("fix")].row
        assert "Fix crash when the exchange rate code is unknown" in sh.row(fix_row)["summary"]
        ranked = R.rank_files(R.candidates_of(page.items), SG.ShardSignals(sh, tools.overlays[str(sh.store.root)]))
        top = next(f for f in ranked if f.path == "ledger/currency.py")
        assert top.parts.get("mined", 0) > 0 and "past fix " in top.why and "exchange rate" in top.why
        # the commit that only documents the parser is not a fix
        assert not any("document the parser" in (sh.row(i.row)["summary"] or "")
                       for i, k in zip(page.items, kinds) if k == "fix")
    finally:
        tools.close()


def test_fix_mining_follows_the_history_watermark(ledger, tmp_path):
    from pipeline.fixes import fix_id
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo, git

    work, store = _copy(ledger, tmp_path)
    first = git(work, "log", "--format=%H", "--grep=Fix crash").split()[0]
    r = Repo.__new__(Repo)
    r.path, r._n = work, 20
    sha = r.commit("Fix wrong rounding in the monthly summary",
                   {"ledger/report.py": REPORT.replace("round(r[1], 2)", "round(r[1] + 0.0, 2)")})
    rep = index_repository(work, store, IndexConfig(num_cpus=1))
    assert rep.history["incremental"] and rep.history["commits"] == 1     # mined from the watermark on
    tools = _open(store)
    try:
        sh = next(iter(tools.memory))
        fixes = {sh.col("id")[i]: sh.col("summary")[i] for i in range(len(sh)) if sh.col("kind")[i] == "fix"}
        assert set(fixes) == {fix_id(sh.repo, first), fix_id(sh.repo, sha)}
        assert "Fix wrong rounding in the monthly summary" in fixes[fix_id(sh.repo, sha)]
    finally:
        tools.close()


def test_search_tool_serves_the_steered_order_with_why(ledger, tmp_path):
    tools, s = _open_copy(ledger, tmp_path)
    try:
        _remember_drift(tools, s)
        items = tools.search(s, DRIFT, page_size=5).items
        assert items[0].kind == "rca" and "rca note" in items[0].why
        code = [i for i in items if i.kind not in S.NOTE_KINDS]
        assert code[0].path == "ledger/currency.py" and "rca note" in code[0].why
        assert all(i.why for i in items)
    finally:
        tools.close()



def test_a_note_matching_on_common_words_stays_below_code_that_matches_better(ledger, tmp_path):
    """Notes share "fix", "crash", "empty" with most symptoms; RRF gives the best of them a full
    score whatever they share, and a note's item ranks with the evidence it lends. Such a note stood
    first, above the function the query describes (memory_transfer: "Fix parse_header_links on empty
    header" led by a note about another file). It now ranks below code of other files whose own
    text matches better; its lift of its own files is unchanged."""
    tools, s = _open_copy(ledger, tmp_path)
    try:
        tools.remember(s, "rca", "Fix crash when the audit trail is empty: record() appended None.",
                       about=["ledger/audit.py"])
        tools.remember(s, "rca", "Fix the empty report header when the month is missing.", about=["ledger/report.py"])
        items = tools.search(s, "crash on an empty CSV line", page_size=8).items
        names = [f"{i.path}::{i.qualname}" if i.kind not in S.NOTE_KINDS else i.kind for i in items]
        parse = names.index("ledger/parser.py::parse_row")
        notes = [k for k, n in enumerate(names) if n == "rca"]
        assert notes and all(k > parse for k in notes), names
        # a note the query matches best of all still comes first (its own words)
        own = tools.search(s, "the audit trail is empty and record appended None", page_size=3).items
        assert own[0].kind == "rca" and own[0].path == "ledger/audit.py"
    finally:
        tools.close()


def test_a_definition_a_prose_query_names_comes_first(ledger, tmp_path):
    """A symptom that names a function (``rate_of``) in its prose puts that function first, as a
    one-identifier query puts its exact match first: here a note about the audit trail had lifted
    audit.py above it. A word that only looks like an identifier names no folder, note or change."""
    tools, s = _open_copy(ledger, tmp_path)
    try:
        tools.remember(s, "rca", "Fix crash when the audit trail is empty: record() appended None.",
                       about=["ledger/audit.py"])
        items = tools.search(s, "the audit trail is empty when convert is called with rate_of missing", page_size=4).items
        assert (items[0].path, items[0].qualname) == ("ledger/currency.py", "rate_of")
        assert items[0].why.startswith("named in the query")
        assert not any(i.why.startswith("named") for i in tools.search(s, "fix rates in ledger/v2", page_size=5).items)
        # a sentence naming more definitions than MAX_NAMED points at none of them
        many = tools.search(s, "rate_of, summary_header, parse_row and monthly_summary all break", page_size=8).items
        assert not any(i.why.startswith("named") for i in many)
    finally:
        tools.close()


_FILLER = "".join(f"    step_{i} = cart.get('item_{i}', 0) * 2\n" for i in range(60))
PRICING = f'''"""Pricing of a cart."""


def total(cart: dict) -> float:
    """The total price of CART."""
{_FILLER}    voucher = cart.get("voucher")
    if voucher:  # the voucher discount: a voucher code maps to a discount rate
        discount = VOUCHERS.get(voucher, 0.0)
        return sum(cart.values()) * (1 - discount)
    return sum(cart.values())


VOUCHERS = {{"SPRING": 0.1}}  # voucher code -> discount
'''

BASKET = '''"""The shopping basket."""


def reductions(basket: dict) -> list:
    """Price reductions for a basket at the till."""
    return [k for k in basket if k.startswith("-")]
'''


def test_a_whole_file_match_lifts_a_file_whose_symbols_do_not_say_it(tmp_path):
    """The whole-file keyword list (stratum.filetext.FileText) reads whole bodies and module-level code: the
    voucher logic sits past the first BODY_CHARS of total(), so no symbol-level keyword row matches
    the symptom and text alone leaves pricing.py and cart.py within a hair; the whole-file list
    puts pricing.py clearly first and says why."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo

    repo = Repo(tmp_path / "shop")
    files = {"shop/__init__.py": "", "shop/pricing.py": PRICING, "shop/cart.py": BASKET}
    repo.commit("shop", files)
    index_repository(repo.path, tmp_path / "store", IndexConfig(num_cpus=1))
    tools = _open(tmp_path / "store")
    try:
        q = "voucher discount ignored"
        ft = FileText(sorted(files), [files[p] for p in sorted(files)])
        assert ft.hits(q) == ["shop/pricing.py"]                 # the only file saying it at all
        sh = tools.shards.shards[0]
        page = sh.warm.search(q, limit=150)
        assert not any(sh.col("path")[i.row] == "shop/pricing.py" and "keyword" in i.sources for i in page.items)
        sig = SG.ShardSignals(sh)
        cands = R.candidates_of(page.items)
        without = {f.path: f.score for f in R.rank_files(cands, sig, R.DEFAULT_WEIGHTS)}
        ranked = R.rank_files(cands, sig, R.DEFAULT_WEIGHTS, file_hits=ft.hits(q))
        top = ranked[0]
        assert top.path == "shop/pricing.py" and "whole file matches (rank 1)" in top.why
        assert top.parts["file_text"] == pytest.approx(R.DEFAULT_WEIGHTS.file_text / (R.RRF_K + 1))
        cart = next(f for f in ranked if f.path == "shop/cart.py")
        assert top.score - cart.score > 2 * abs(without["shop/pricing.py"] - without["shop/cart.py"])
        items = R.rerank(cands, sig, R.DEFAULT_WEIGHTS, file_hits=ft.hits(q))
        assert next(i for i in items if i.file).file == "shop/pricing.py"
        off = R.rank_files(cands, sig, R.DEFAULT_WEIGHTS.only(), file_hits=ft.hits(q))   # ablation: off means off
        assert [f.path for f in off] == [f.path for f in R.rank_files(cands, sig, R.TEXT_ONLY)]
        with pytest.raises(InvalidArgument):
            FileText(["shop/cart.py"], [])
    finally:
        tools.close()


@pytest.fixture(scope="module")
def popular(tmp_path_factory):
    """A real index of a package whose core module more than GRAPH_PARTNERS modules import."""
    tmp_path = tmp_path_factory.mktemp("popular")
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo

    n = R.GRAPH_PARTNERS + 4
    files = {"pkg/__init__.py": "", "pkg/core.py": "def helper(x):\n    return x + 1\n",
             "tests/test_core.py": "from pkg.core import helper\n\n\ndef test_helper():\n    assert helper(1) == 2\n"}
    for i in range(n):          # user00 imports only core; every later one also imports the one before
        extra = f"from pkg.user{i - 1:02d} import run{i - 1}\n" if i else ""
        files[f"pkg/user{i:02d}.py"] = f"from pkg.core import helper\n{extra}\n\ndef run{i}(v):\n    return helper(v)\n"
    Repo(tmp_path / "repo").commit("popular core", files)
    index_repository(tmp_path / "repo", tmp_path / "store", IndexConfig(num_cpus=1))
    return tmp_path / "store"


@pytest.mark.parametrize("compiled", [False, True])
def test_a_popular_files_neighbours_come_most_specific_first(popular, compiled):
    """``ShardSignals.structure`` on a real index: a file imported by more than GRAPH_PARTNERS
    modules counts every file neighbour, lists its test first, then the importers with the fewest
    edges of their own, and stops at GRAPH_PARTNERS (in numpy, and compiled as a 1M-node shard
    reads it)."""
    from stratum.shard import Shard
    from stratum.store import Store

    n = R.GRAPH_PARTNERS + 4
    sh = Shard(Store(popular))
    sh.compiled_hops = compiled
    count, nbrs = SG.ShardSignals(sh).structure("pkg/core.py")
    if compiled:                # every file's neighbours as the numpy path reads them
        files = [p for p, k in zip(sh.col("path"), sh.col("kind")) if k == "file"]
        fast = [SG.ShardSignals(sh)._structure(p) for p in files]
        sh.compiled_hops = False
        assert fast == [SG.ShardSignals(sh)._structure(p) for p in files]
    assert count == n + 1                                        # every importer and the test
    assert len(nbrs) == R.GRAPH_PARTNERS
    assert nbrs[0] == ("tests/test_core.py", "tests")          # its test, though it imports core too
    users = [p for p, _ in nbrs[1:]]
    assert all(k == "imports" for _, k in nbrs[1:])              # each importer "imports pkg/core.py"

    def degree(p):
        return int(sh.degrees(np.array([sh.resolve(p)]))[0])

    assert [degree(p) for p in users] == sorted(degree(p) for p in users)   # fewest edges first
    left = [f"pkg/user{i:02d}.py" for i in range(n) if f"pkg/user{i:02d}.py" not in users]
    assert len(left) == n - len(users) and min(map(degree, left)) >= max(map(degree, users))
    assert {"pkg/user00.py", f"pkg/user{n - 1:02d}.py"} <= set(users)   # the two with 2 edges, not 3


def test_compiled_neighbour_reads_equal_numpys_on_every_file(ledger):
    """A large shard reads a seed's co-change partners and import/test neighbours in one compiled
    pass (``Shard.compiled_hops``); on a real index every file's answers equal the numpy path's."""
    tools = _open(ledger[1])
    try:
        sh = tools.shards.shards[0]
        files = [p for p, k in zip(sh.col("path"), sh.col("kind")) if k == "file"]
        got = {}
        for compiled in (False, True):
            sh.compiled_hops = compiled
            sig = SG.ShardSignals(sh)
            got[compiled] = [(sig._cochange(p), sig._structure(p)) for p in files]
        assert got[True] == got[False]
        assert any(co for co, _ in got[True])       # structure: the popular-file test compares both paths
    finally:
        tools.close()


def test_the_seed_table_reads_as_one_file_at_a_time(ledger):
    """A large shard's seed table (stratum.seedtable, built on a helper thread at load; here made
    on the spot) gives every file the co-change partners, neighbours and row the per-file reads
    give, and ranking reads the same through it: co-change terms for several half-lives equal
    ``rank.co_terms`` of the ``CoEdge`` path, neighbours equal, files learnt for ``locate``."""
    tools = _open(ledger[1])
    try:
        sh = tools.shards.shards[0]
        assert sh.seed_table() is None and sh.seeds_ready.is_set()     # a small shard makes none
        files = [p for p, k in zip(sh.col("path"), sh.col("kind")) if k == "file"]
        sh.compiled_hops = True
        want = {}
        for p in files:
            sig = SG.ShardSignals(sh)
            want[p] = [R.co_terms(sig.cochange(p), h) for h in (365.0, 30.0, 0.0)] + [sig._structure(p)]
        per_file = [(sh.seed_cochange(r, R.CO_PARTNERS), sh.seed_structure(r, R.GRAPH_PARTNERS))
                    for r in range(len(sh))]
        table = sh.build_seed_table()
        assert len(table) == len(files)
        for r, (co, st) in enumerate(per_file):
            if sh.col("kind")[r] == "file":
                assert str(table.cochange(r)) == str(co) and table.structure(r) == st
                assert table.row_of(sh.col("path")[r]) == r == sh.resolve(sh.col("path")[r])
            else:
                assert table.cochange(r) is None and table.structure(r) is None
        assert table.row_of("ledger") is None and table.row_of("./" + files[0]) is None     # a dir; not as stored
        SG._MEMOS.pop(sh, None)
        sig = SG.ShardSignals(sh)
        got = {p: [sig.cochange_terms(p, h) for h in (365.0, 30.0, 0.0)] + [sig.structure(p)] for p in files}
        assert str(got) == str(want) and got == want
        assert any(t for v in got.values() for t in v[0])          # some file has co-change partners
        assert all(sig.locate(p)[1] == sh.resolve(p) for p in files)
        rows = list(range(len(sh)))[::-1]
        assert sh.ids(rows) == sh.col("id").take(rows)         # the searcher's id reader (locate_many)
    finally:
        tools.close()


def test_the_seed_tables_path_map_leaves_ids_and_shared_paths_to_the_resolver(tmp_path):
    """``SeedTable.row_of`` answers only what ``Shard.resolve`` answers by path: a path that is also
    some node's id, or that a dir shares with a file, goes to the resolver."""
    import pyarrow as pa

    from stratum import seedtable
    from stratum.keyindex import Column

    paths = Column(pa.array(["a.py", "b.py", "pkg", "pkg", "0123456789abcdef0123", None]))
    kinds = Column(pa.array(["file", "file", "dir", "file", "file", "function"]))
    ids = pa.array(["i0", "i1", "i2", "i3", "i4", "0123456789abcdef0123"])
    is_file = kinds.equals(np.arange(6), "file")
    enc = pa.compute.dictionary_encode(paths.array)
    codes, names = enc.indices.fill_null(-1).to_numpy(zero_copy_only=False), enc.dictionary.to_pylist() + [None]
    by_code = seedtable._file_of_code(codes, names, is_file, kinds, ids)
    got = {n: int(by_code[i]) for i, n in enumerate(names[:-1])}
    assert got == {"a.py": 0, "b.py": 1, "pkg": -1, "0123456789abcdef0123": -1}
