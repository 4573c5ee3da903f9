"""A googletest test and its fixture's method of the same name are two nodes, neither numbered (session
33 probe, leveldb's ``util/cache_test.cc``).

``TEST_F(CacheTest, Erase)`` was named as gtest prints it, ``CacheTest.Erase``: the qualified name of the
fixture's own method ``CacheTest::Erase`` too, so the test became ``CacheTest.Erase#2``, a name no
runner, stack or agent uses. A test is now named by the class gtest makes of it, in the fixture's
scope: ``leveldb.CacheTest.CacheTest_Erase_Test`` (``cppmacros.test_name``), the name a native stack
prints (``leveldb::CacheTest_Erase_Test::TestBody()``); gtest's own ``CacheTest.Erase``, typed or in a
``[  FAILED  ]`` line, leads to it (``stratum.testnames``); its body's calls of the fixture's members
still link. A real git repository, the real index job, the real Tools.
"""

from __future__ import annotations

import pytest

from stratum.testnames import TEST_WHY

pytestmark = pytest.mark.slow

CACHE_H = """#ifndef CACHE_H_
#define CACHE_H_
namespace leveldb {
class Cache {
 public:
  void Erase(int key);
  int Lookup(int key);
};
}  // namespace leveldb
#endif
"""

CACHE_CC = """#include "util/cache.h"
namespace leveldb {
void Cache::Erase(int key) { (void)key; }
int Cache::Lookup(int key) { return key; }
}  // namespace leveldb
"""

CACHE_TEST_CC = """#include "gtest/gtest.h"
#include "util/cache.h"

namespace leveldb {

class CacheTest : public testing::Test {
 public:
  void Erase(int key) { cache_.Erase(key); }
  int Lookup(int key) { return cache_.Lookup(key); }
  Cache cache_;
};

TEST_F(CacheTest, Erase) {
  Erase(200);
  ASSERT_EQ(-1, Lookup(200));
}

TEST_F(CacheTest, Lookup) {
  ASSERT_EQ(1, Lookup(1));
}

}  // namespace leveldb
"""

FILES: dict[str, str | bytes] = {"util/cache.h": CACHE_H, "util/cache.cc": CACHE_CC, "util/cache_test.cc": CACHE_TEST_CC}
TEST = "util/cache_test.cc::leveldb.CacheTest.CacheTest_Erase_Test"
METHOD = "util/cache_test.cc::leveldb.CacheTest.Erase"


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("s34gtest"), FILES, "a cache and its gtest") as got:
        yield got


def _name(it) -> str:
    return f"{it.path}::{it.qualname}"


def test_a_test_and_its_fixtures_method_of_that_name_are_two_unnumbered_nodes(tools):
    t, s = tools
    assert t.get(s, TEST, level="summary").items[0].text.startswith(
        "function leveldb.CacheTest.CacheTest_Erase_Test: TEST_F(CacheTest, Erase)")
    assert t.get(s, METHOD, level="summary").items[0].kind == "method"
    line = CACHE_TEST_CC.splitlines().index("  Erase(200);") + 1
    assert _name(t.get(s, f"util/cache_test.cc:{line}", level="summary").items[0]) == TEST
    shown = [_name(i) for i in t.tree(s, "util/cache_test.cc", depth=3, page_size=50).items]
    assert TEST in shown and METHOD in shown and not [n for n in shown if "#" in n], shown


def test_its_body_calls_the_fixtures_members(tools):
    t, s = tools
    called = {_name(i) for i in t.walk(s, TEST, edges=["calls"], page_size=10).items}
    assert called == {METHOD, "util/cache_test.cc::leveldb.CacheTest.Lookup"}


def test_gtest_names_lead_to_the_test(tools):
    t, s = tools
    # as typed from gtest's output or --gtest_filter
    first = t.search(s, "CacheTest.Erase", page_size=5).items[0]
    assert (_name(first), first.why.split(";")[0]) == (TEST, f"{TEST_WHY}leveldb.CacheTest.CacheTest_Erase_Test")
    log = ("[==========] Running 2 tests from 1 test suite.\n[ RUN      ] CacheTest.Lookup\n[       OK ] CacheTest.Lookup (0 ms)\n"
           "[ RUN      ] CacheTest.Erase\nutil/cache_test.cc:15: Failure\nExpected equality of these values:\n  -1\n  Lookup(200)\n"
           "    Which is: 200\n[  FAILED  ] CacheTest.Erase (0 ms)\n[  FAILED  ] 1 test, listed below:\n[  FAILED  ] CacheTest.Erase\n")
    items = t.search(s, log, page_size=5).items
    assert TEST in [_name(i) for i in items[:2]] and not [i for i in items if _name(i).endswith("CacheTest_Lookup_Test")
                                                      and i.why.startswith(TEST_WHY)]
