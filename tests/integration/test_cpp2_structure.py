"""C++ structure as a user reads it, second pass, on a real git repository through the real index
job and ``Tools``: ``get path:LINE`` inside a member defined after its class (C++ ``int
Cache::Get() {``, a Go method) names that member, not the file; thread-safety annotations after a
declarator (``int total_ GUARDED_BY(mu_);``) name no node and keep the member they annotate;
googletest tests are named as the class gtest makes of them (``TEST_F(CounterTest, Adds)`` ->
``CounterTest.CounterTest_Adds_Test``: no collision with the fixture's method of the test's name), gtest's own
``CounterTest.Adds`` searches to it, and their calls of the fixture's members are linked."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

FILES = {
    "src/mutex.h": (
        "#pragma once\nnamespace kv {\n"
        "class Mutex {\n public:\n  void Lock() EXCLUSIVE_LOCK_FUNCTION();\n  void Unlock() UNLOCK_FUNCTION();\n};\n"
        "class Counter {\n public:\n"
        "  void Add(int n) LOCKS_EXCLUDED(mu_) {\n"      # 10
        "    total_ += n;\n"                              # 11
        "  }\n"
        "  int Read() const LOCKS_EXCLUDED(mu_);\n"
        " private:\n  Mutex mu_;\n  int total_ GUARDED_BY(mu_);\n};\n"
        "}  // namespace kv\n"),
    "src/counter.cc": (
        '#include "mutex.h"\nnamespace kv {\n'
        "class Cache {\n public:\n  int Get(int k);\n};\n"
        "int Cache::Get(int k) {\n"                       # 7
        "  return k;\n"                                   # 8
        "}\n"
        "int Counter::Read() const { return total_; }\n"
        "}  // namespace kv\n"),
    "src/counter_test.cc": (
        '#include "mutex.h"\nnamespace kv {\n'
        "class CounterTest : public testing::Test {\n public:\n"
        "  void AddTwice(int n) { c_.Add(n); c_.Add(n); }\n  Counter c_;\n};\n"
        "TEST_F(CounterTest, AddTwice) {\n  AddTwice(1);\n}\n"      # 8: beside the fixture's AddTwice
        "TEST_F(CounterTest, Adds) {\n  AddTwice(2);\n}\n"          # 11
        "TEST(Counter, Empty) {\n  Counter c;\n}\n"                  # 14
        "}  // namespace kv\n"),
    "src/logging.cc": "namespace kv {\nint NumberToString(int n) { return n; }\n}  // namespace kv\n",
    "src/logging_test.cc": (
        "namespace kv {\nTEST(Logging, NumberToString) {\n  NumberToString(5);\n}\n}  // namespace kv\n"),
    "go/server.go": (
        "package kv\n\ntype Server struct {\n\tport int\n}\n\n"
        "func (s *Server) Start() error {\n"              # 7
        "\treturn nil\n"                                  # 8
        "}\n"),
    "web/cart.js": (
        "class Cart {\n  total() {\n    return 1;\n  }\n}\n"
        "const x = 1;\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("cpp2"), FILES, "kv") as got:
        yield got


def _at(tools, target: str) -> tuple[str, str]:
    t, sid = tools
    it = t.get(sid, target, level="summary").items[0]
    return it.kind, it.qualname


def _walk(tools, target: str, edge: str) -> list[str]:
    t, sid = tools
    return sorted(f"{i.path}::{i.qualname}" for i in t.walk(sid, target, edges=[edge], page_size=50).items)


def test_a_line_in_a_member_defined_after_its_class_names_that_member(tools):
    assert _at(tools, "src/counter.cc:8") == ("method", "kv.Cache.Get")      # was the file
    assert _at(tools, "src/counter.cc:7") == ("method", "kv.Cache.Get")
    assert _at(tools, "src/counter.cc:4") == ("class", "kv.Cache")
    assert _at(tools, "src/counter.cc:2")[0] == "file"
    assert _at(tools, "go/server.go:8") == ("method", "Server.Start")        # a Go method: was the file
    assert _at(tools, "go/server.go:4") == ("class", "Server")
    # within the class's lines, and elsewhere, the answers are as they were
    assert _at(tools, "web/cart.js:3") == ("method", "Cart.total")
    assert _at(tools, "web/cart.js:6")[0] == "file"


def test_thread_safety_annotations_name_no_node_and_keep_the_member(tools):
    assert _walk(tools, "src/mutex.h::kv.Mutex", "contains") == [
        "src/mutex.h::kv.Mutex.Lock", "src/mutex.h::kv.Mutex.Unlock"]
    assert _walk(tools, "src/mutex.h::kv.Counter", "contains") == [
        "src/mutex.h::kv.Counter.Add", "src/mutex.h::kv.Counter.Read"]
    t, sid = tools
    add = t.get(sid, "src/mutex.h::kv.Counter.Add", level="summary").items[0]
    assert (add.start_line, add.end_line) == (10, 12)                       # its body too, not line 10 alone
    assert "void Add(int n) LOCKS_EXCLUDED(mu_)" in add.text                 # the source as written
    assert _at(tools, "src/mutex.h:11") == ("method", "kv.Counter.Add")
    found = t.search(sid, "GUARDED_BY LOCKS_EXCLUDED UNLOCK_FUNCTION", kinds=["method", "function"], page_size=20).items
    assert not [i.qualname for i in found if i.qualname.rsplit(".", 1)[-1].isupper()]


def test_gtest_tests_are_named_by_their_class_and_call_the_fixture(tools):
    assert sorted(_walk(tools, "src/counter_test.cc", "contains")) == [
        "src/counter_test.cc::kv.Counter.Counter_Empty_Test", "src/counter_test.cc::kv.CounterTest",
        "src/counter_test.cc::kv.CounterTest.CounterTest_AddTwice_Test",
        "src/counter_test.cc::kv.CounterTest.CounterTest_Adds_Test"]
    assert _at(tools, "src/counter_test.cc::kv.CounterTest.CounterTest_Adds_Test") == ("function", "kv.CounterTest.CounterTest_Adds_Test")
    assert _at(tools, "src/counter_test.cc:9") == ("function", "kv.CounterTest.CounterTest_AddTwice_Test")
    assert _at(tools, "src/counter_test.cc::kv.CounterTest.AddTwice") == ("method", "kv.CounterTest.AddTwice")
    t, sid = tools
    hits = t.search(sid, "CounterTest.Adds", page_size=5).items
    assert f"{hits[0].path}::{hits[0].qualname}" == "src/counter_test.cc::kv.CounterTest.CounterTest_Adds_Test"
    # a test body's call of its fixture's member is linked to that member
    assert _walk(tools, "src/counter_test.cc::kv.CounterTest.CounterTest_Adds_Test", "calls") == [
        "src/counter_test.cc::kv.CounterTest.AddTwice"]
    assert _walk(tools, "src/counter_test.cc::kv.CounterTest.CounterTest_AddTwice_Test", "calls") == [
        "src/counter_test.cc::kv.CounterTest.AddTwice"]


def test_a_test_named_like_a_function_is_not_what_its_body_calls(tools):
    """TEST(Logging, NumberToString) calls the function NumberToString, not itself (a test is a
    caller, never a call's target: on leveldb four calls went to the test of the same name)."""
    assert _walk(tools, "src/logging_test.cc::kv.Logging.Logging_NumberToString_Test", "calls") == [
        "src/logging.cc::kv.NumberToString"]
