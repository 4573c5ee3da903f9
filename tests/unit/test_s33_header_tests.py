"""The ``by: "header"`` rule of ``pipeline.testlinks`` read on its own (the integration test,
tests/integration/test_s33_cpp_pairs.py, runs it through a real index): which sources a test of a
header reaches, and which it does not; and the parse's words ``stratum.declpairs`` reads."""

from __future__ import annotations

import json

from pipeline.callrefs import DECL
from pipeline.testlinks import TEST_MARK, link_tests
from stratum import declpairs
from stratum.ids import node_id


def _imports(*pairs: tuple[str, str]) -> list[dict]:
    return [{"src": node_id("r", a, "file"), "dst": node_id("r", b, "file"), "kind": "imports"} for a, b in pairs]


def _links(paths: list[str], imports: list[dict]) -> dict[tuple[str, str], dict]:
    by_id = {node_id("r", p, "file"): p for p in paths}
    return {(by_id[e["src"]], by_id[e["dst"]]): json.loads(e["meta"]) for e in link_tests("r", paths, imports)}


def test_a_test_of_a_header_reaches_the_sources_of_its_stem_that_include_it():
    paths = ["include/kv/db.h", "src/db.cc", "src/db_win.cc", "src/other.cc", "db/db_impl.h", "db/db_impl.cc",
             "db/corruption_test.cc", "tests/db.cc", "db/db_impl_test.cc"]
    imports = _imports(("src/db.cc", "include/kv/db.h"), ("src/db_win.cc", "include/kv/db.h"),
                       ("src/other.cc", "include/kv/db.h"), ("tests/db.cc", "include/kv/db.h"),
                       ("db/db_impl.cc", "db/db_impl.h"), ("db/db_impl.cc", "include/kv/db.h"),
                       ("db/corruption_test.cc", "db/db_impl.h"), ("db/corruption_test.cc", "include/kv/db.h"),
                       ("db/db_impl_test.cc", "db/db_impl.h"))
    got = _links(paths, imports)
    assert got[("db/corruption_test.cc", "db/db_impl.cc")] == {"by": "header", "header": "db/db_impl.h"}
    assert got[("db/corruption_test.cc", "src/db.cc")] == {"by": "header", "header": "include/kv/db.h"}  # any folder
    assert got[("db/corruption_test.cc", "db/db_impl.h")] == {"by": "import"}
    # another stem (a platform variant, a user of the header), a test folder's file: none
    assert not {("db/corruption_test.cc", p) for p in ("src/db_win.cc", "src/other.cc", "tests/db.cc")} & set(got)
    # a pair linked by name stays so: db_impl_test.cc names db_impl.cc
    assert got[("db/db_impl_test.cc", "db/db_impl.cc")] == {"by": "name"}


def test_declpairs_reads_the_parses_own_words():
    assert (declpairs.DECL, declpairs.TEST_MARK) == (DECL, TEST_MARK)


def test_a_files_inline_tests_list_after_its_test_files():
    """A walk lists a node's edges by weight, heaviest first: a re-probe found ripgrep's
    gitignore.rs listing its 74 inline tests before its two tests/*.rs files (page 4)."""
    from pipeline.testlinks import tests_edge

    by = {w: tests_edge("t", "f", w)["weight"] for w in ("name", "import", "use", "header", "unit")}
    assert by["name"] > by["import"] == by["use"] == by["header"] > by["unit"]
