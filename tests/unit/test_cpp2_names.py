"""C++ names the parser gives where tree-sitter alone misreads them, second pass: an annotation
macro after a declarator (clang thread-safety, ``OVERRIDE``) is no node and the member it annotates
keeps its name and body; valid code that looks alike is untouched; googletest tests are named by
the class gtest makes of them in their suite's scope, ``Suite.Suite_Name_Test``, unique in their file (beside the fixture's
method ``Name`` too)."""

from __future__ import annotations

import json

from pipeline import languages
from pipeline.parse import TEST_MARK, definition_spans, parse_file


def parse(code: str, path: str = "a.cc") -> tuple[list[tuple[str, str, int, int]], dict]:
    """(kind, qualname, start line, end line) per definition, and the nodes by qualname."""
    pf = parse_file("r", path, code.encode())
    got = [(n["kind"], n["qualname"], n["start_line"], n["end_line"]) for n in pf.nodes[1:]]
    assert [(q, k) for _, _, q, k in definition_spans(path, code.encode())] == [(q, k) for k, q, _, _ in got]
    return got, {"pf": pf, "by_qual": {n["qualname"]: n for n in pf.nodes[1:]}}


ANNOTATED = (
    "class Counter {\n"
    " public:\n"
    "  explicit Counter(Mutex* mu) EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {}\n"      # 3
    "  ~Counter() UNLOCK_FUNCTION() { mu_->Unlock(); }\n"
    "  void Add(int n) LOCKS_EXCLUDED(mu_) {\n"                                       # 5
    "    total_ += n;\n"
    "  }\n"
    "  int Read() const EXCLUSIVE_LOCKS_REQUIRED(mu_);\n"                             # 8
    "  Status Recover(Edit* edit)\n      EXCLUSIVE_LOCKS_REQUIRED(mu_);\n"            # 9-10
    "  virtual void Flush() EXCLUSIVE_LOCKS_REQUIRED(mu_) = 0;\n"
    "  void Both() SHARED_LOCKS_REQUIRED(a_) EXCLUSIVE_LOCKS_REQUIRED(b_);\n"        # 12
    "  void Old() OVERRIDE;\n"
    " private:\n"
    "  Mutex* const mu_;\n"
    "  int total_ GUARDED_BY(mu_), spare_ GUARDED_BY(mu_);\n"
    "  int* p_ PT_GUARDED_BY(mu_) = nullptr;\n"
    "};\n"
    "void Counter::Reset() EXCLUSIVE_LOCKS_REQUIRED(mu_) { total_ = 0; }\n"          # 19
    "void Locked(Mutex* mu) LOCKS_EXCLUDED(mu);\n"
    "int g_total GUARDED_BY(g_mu);\n"
)


def test_an_annotation_after_a_declarator_is_no_node_and_the_member_keeps_its_name_and_body():
    got, p = parse(ANNOTATED)
    assert got == [
        ("class", "Counter", 1, 18),
        ("method", "Counter.Counter", 3, 3), ("method", "Counter.~Counter", 4, 4),
        ("method", "Counter.Add", 5, 7),                       # its body too (was line 5 alone)
        ("method", "Counter.Read", 8, 8), ("method", "Counter.Recover", 9, 10),
        ("method", "Counter.Flush", 11, 11), ("method", "Counter.Both", 12, 12), ("method", "Counter.Old", 13, 13),
        ("method", "Counter.Reset", 19, 19), ("function", "Locked", 20, 20)]
    assert not p["pf"].warnings                                # the file reads without error
    add = p["by_qual"]["Counter.Add"]                          # the text is the source's, macro and all
    assert add["signature"] == "void Add(int n) LOCKS_EXCLUDED(mu_)"
    assert add["full"] == "  void Add(int n) LOCKS_EXCLUDED(mu_) {\n    total_ += n;\n  }"
    assert json.loads(p["by_qual"]["Counter.~Counter"]["meta"])["calls"][0][:2] == ["Unlock", "mu_"]


def test_code_that_only_looks_like_an_annotation_is_untouched():
    code = ("int f(int x) {\n"
            "  Point ORIGIN(0, 0);\n"          # a variable of a class type, constructed
            "  switch (x) {\n    case LIMIT: return MAX(x, 1);\n  }\n"
            "  return CLAMP(x);\n"
            "}\n"
            "Widget DEFAULT_WIDGET(3);\n"
            "class K {\n  Point CORNER{1, 2};\n  int n_ = INIT;\n};\n"
            "// void g() GUARDED_BY(mu);\n"
            'const char* s = "int y GUARDED_BY(mu);";\n')
    # (a macro before the type, `EXPORT Status NYI();`, is blanked: tests/unit/test_s33_export_macros.py)
    src = code.encode()
    # the very tree the grammar gives: nothing blanked, nothing parsed twice
    assert str(languages.parse_tree("cpp", src).root_node) == str(languages.parser("cpp").parse(src).root_node)
    got, p = parse(code)
    assert got == [("function", "f", 1, 7), ("class", "K", 9, 12)]
    assert [c[0] for c in json.loads(p["by_qual"]["f"]["meta"])["calls"]] == ["MAX", "CLAMP"]


GTEST = (
    "namespace kv {\n"
    "class CacheTest : public testing::Test {\n public:\n  void Erase(int k) { cache_.Erase(k); }\n};\n"
    "TEST_F(CacheTest, HitAndMiss) {\n  Erase(1);\n}\n"         # 6
    "TEST_F(CacheTest, Erase) {\n  Erase(2);\n}\n"              # 9: beside the fixture's own Erase
    "TEST(Coding, Fixed32) {}\n"                                # 12
    "TEST_P(ParamTest, Case) {}\n"
    "TYPED_TEST(TypedTest, Case) {}\n"
    "TEST(Coding, Fixed32) {}\n"                                # 15: a second of the same name
    "}  // namespace kv\n"
    "TEST(TopLevel, Works) {}\n"                                # 17
    "BENCHMARK(Fixed32, Bench) {}\n"                            # no gtest macro: as before
)


def test_googletest_tests_are_named_by_their_class_unique_in_their_file():
    got, p = parse(GTEST, "kv/cache_test.cc")
    assert got == [
        ("class", "kv.CacheTest", 2, 5), ("method", "kv.CacheTest.Erase", 4, 4),
        ("function", "kv.CacheTest.CacheTest_HitAndMiss_Test", 6, 8), ("function", "kv.CacheTest.CacheTest_Erase_Test", 9, 11),
        ("function", "kv.Coding.Coding_Fixed32_Test", 12, 12), ("function", "kv.ParamTest.ParamTest_Case_Test", 13, 13),
        ("function", "kv.TypedTest.TypedTest_Case_Test", 14, 14), ("function", "kv.Coding.Coding_Fixed32_Test#2", 15, 15),
        ("function", "TopLevel.TopLevel_Works_Test", 17, 17), ("function", "BENCHMARK", 18, 18)]
    hit = p["by_qual"]["kv.CacheTest.CacheTest_HitAndMiss_Test"]
    assert (hit["name"], hit["parent_id"]) == ("CacheTest.CacheTest_HitAndMiss_Test", p["pf"].nodes[0]["id"])
    assert hit["summary"].startswith("function kv.CacheTest.CacheTest_HitAndMiss_Test: TEST_F(CacheTest, HitAndMiss)")
    # the linker's word that a test is called by no code; nothing else carries it
    marked = sorted(q for q, n in p["by_qual"].items() if TEST_MARK in (n.get("meta") or ""))
    assert marked == sorted(q for k, q, _, _ in got if k == "function" and q != "BENCHMARK")
    assert json.loads(hit["meta"])["calls"][0][:2] == ["Erase", ""]
