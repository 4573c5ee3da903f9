"""C++ names the parser gives where tree-sitter alone misreads them: a macro between ``class`` and
the class name (``languages.cppmacros``), ``namespace a::b``, a nested class defined out of line."""

from __future__ import annotations

import json

from pipeline.parse import definition_spans, parse_file


def parse(code: str, path: str = "a.h") -> tuple[list[tuple[str, str, str, int]], dict]:
    """(kind, qualname, parent qualname, start line) per definition, and the parse itself."""
    pf = parse_file("r", path, code.encode())
    by_id = {n["id"]: n for n in pf.nodes}
    return [(n["kind"], n["qualname"], by_id[n["parent_id"]]["qualname"] if n["parent_id"] in by_id else "?",
             n["start_line"]) for n in pf.nodes[1:]], {"pf": pf, "by_qual": {n["qualname"]: n for n in pf.nodes[1:]}}


def bases(got: dict, qual: str) -> list:
    return json.loads(got["by_qual"][qual].get("meta") or "{}").get("bases", [])


MACROS = (
    "namespace leveldb {\n"
    "class LEVELDB_EXPORT DB {\n public:\n  virtual ~DB();\n  virtual int Put(int k) = 0;\n};\n"
    "class LEVELDB_EXPORT Iterator : public Cleanable {\n  bool Valid() const;\n};\n"
    "class ABSL_MUST_USE_RESULT Status final : public a::B, private C {\n  int code() const;\n};\n"
    "class EXPORT_API(x) Foo : public Bar {\n  void f();\n};\n"
    "template <typename T>\nclass EXPORT Tpl : public Bar<T> {\n  void f();\n};\n"
    "class LEVELDB_EXPORT WriteBatch {\n public:\n  class LEVELDB_EXPORT Handler {\n    void Put();\n  };\n};\n"
    "struct A_EXPORT B_ATTR(1, (2)) Options {\n  Options();\n};\n"
    "class LEVELDB_EXPORT Empty {};\n"
    "}\n"
)


def test_a_macro_before_the_class_name_leaves_a_class_with_its_members_and_bases():
    got, p = parse(MACROS)
    assert got == [
        ("class", "leveldb.DB", "", 2), ("method", "leveldb.DB.~DB", "leveldb.DB", 4),
        ("method", "leveldb.DB.Put", "leveldb.DB", 5),
        ("class", "leveldb.Iterator", "", 7), ("method", "leveldb.Iterator.Valid", "leveldb.Iterator", 8),
        ("class", "leveldb.Status", "", 10), ("method", "leveldb.Status.code", "leveldb.Status", 11),
        ("class", "leveldb.Foo", "", 13), ("method", "leveldb.Foo.f", "leveldb.Foo", 14),
        ("class", "leveldb.Tpl", "", 16), ("method", "leveldb.Tpl.f", "leveldb.Tpl", 18),
        ("class", "leveldb.WriteBatch", "", 20),
        ("class", "leveldb.WriteBatch.Handler", "leveldb.WriteBatch", 22),
        ("method", "leveldb.WriteBatch.Handler.Put", "leveldb.WriteBatch.Handler", 23),
        ("class", "leveldb.Options", "", 26), ("method", "leveldb.Options.Options", "leveldb.Options", 27),
        ("class", "leveldb.Empty", "", 29)]
    assert bases(p, "leveldb.Iterator") == [["Cleanable", ""]]
    assert bases(p, "leveldb.Status") == [["B", "a"], ["C", ""]]
    assert bases(p, "leveldb.Foo") == [["Bar", ""]] == bases(p, "leveldb.Tpl")
    assert not p["pf"].warnings                                        # the file reads without error
    db = p["by_qual"]["leveldb.DB"]                                    # its text is the source's, macro and all
    assert db["signature"] == "class LEVELDB_EXPORT DB" and db["full"].startswith("class LEVELDB_EXPORT DB {\n")
    assert p["by_qual"]["leveldb.Options"]["signature"] == "struct A_EXPORT B_ATTR(1, (2)) Options"
    assert [(q, k) for _, _, q, k in definition_spans("a.h", MACROS.encode())] == [(q, k) for k, q, _, _ in got]


def test_an_all_caps_type_used_as_c_allows_is_no_macro():
    got, p = parse(
        "struct POINT p{1, 2};\n"
        "void g() { for (struct POINT q : pts) {} }\n"
        "/* class LEVELDB_EXPORT Commented { }; */\n"
        'const char* s = "class LEVELDB_EXPORT InString { };";\n'
        "class FOO final {\n  void f();\n};\n"
        "class BAR : public FOO {};\n", "a.cpp")
    assert got == [("function", "g", "", 2), ("class", "FOO", "", 5), ("method", "FOO.f", "FOO", 6),
                   ("class", "BAR", "", 8)]
    assert bases(p, "BAR") == [["FOO", ""]]


def test_a_nested_namespace_names_its_parts_as_nested_namespaces_do():
    got, _ = parse("namespace a::b {\nclass C {\n  void f();\n};\nvoid g();\n}\n"
                   "void a::b::C::f() {}\n"
                   "namespace a::b::c { void h() {} }\n"
                   "void a::k() {}\n", "a.cpp")
    nested, _ = parse("namespace a { namespace b {\nclass C {\n  void f();\n};\nvoid g();\n}}\n"
                      "void a::b::C::f() {}\n"
                      "namespace a { namespace b { namespace c { void h() {} } } }\n"
                      "void a::k() {}\n", "a.cpp")
    assert got == nested == [("class", "a.b.C", "", 2), ("function", "a.b.g", "", 5),
                             ("method", "a.b.C.f", "a.b.C", 7), ("function", "a.b.c.h", "", 8),
                             ("function", "a.k", "", 9)]


def test_a_nested_class_defined_out_of_line_sits_under_its_class():
    got, _ = parse(
        "namespace kv {\nclass DBImpl {\n  struct Writer;\n  void f();\n};\n"
        "struct DBImpl::Writer {\n  explicit Writer(int n);\n  void g();\n};\n"
        "DBImpl::Writer::Writer(int n) {}\n"
        "void DBImpl::Writer::g() {}\n}\n"
        "struct kv::DBImpl::State {\n  int n;\n};\n"
        "class Outer { class Inner { void f(); }; };\n"
        "void Outer::Inner::f() {}\n", "a.cc")
    assert got == [
        ("class", "kv.DBImpl", "", 2), ("method", "kv.DBImpl.f", "kv.DBImpl", 4),
        ("class", "kv.DBImpl.Writer", "kv.DBImpl", 6),
        ("method", "kv.DBImpl.Writer.Writer", "kv.DBImpl.Writer", 10),
        ("method", "kv.DBImpl.Writer.g", "kv.DBImpl.Writer", 11),
        ("class", "kv.DBImpl.State", "kv.DBImpl", 13),
        ("class", "Outer", "", 16), ("class", "Outer.Inner", "Outer", 16),
        ("method", "Outer.Inner.f", "Outer.Inner", 17)]
