"""C++ structure as a user queries it, in the shapes a library like leveldb writes: a class whose
name follows an export macro (``class KV_EXPORT DB``) is a class with its methods and bases;
``namespace kv::impl`` names its definitions ``kv.impl.*`` as nested single namespaces do;
a nested class defined out of line (``struct DBImpl::Writer {``) and its out-of-line members sit
under ``DBImpl``. A real git repository, the real index job, ``Tools.get`` / ``walk`` / ``search``."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

FILES = {
    "include/kv/export.h": ('#pragma once\n#define KV_EXPORT __attribute__((visibility("default")))\n'
                            "#define KV_MUST_USE_RESULT [[nodiscard]]\n"),
    "include/kv/db.h": (
        '#pragma once\n#include "kv/export.h"\nnamespace kv {\n'
        "class KV_EXPORT Cleanable {\n public:\n  void RegisterCleanup();\n};\n"
        "// A persistent ordered map from keys to values.\n"
        "class KV_EXPORT DB {\n public:\n  virtual ~DB();\n  virtual int Put(const char* key) = 0;\n};\n"
        "class KV_EXPORT Iterator : public Cleanable {\n public:\n  virtual bool Valid() const = 0;\n};\n"
        "class KV_EXPORT WriteBatch {\n public:\n  class KV_EXPORT Handler {\n   public:\n"
        "    virtual void Put(const char* key) = 0;\n  };\n  void Iterate(Handler* h) const;\n};\n"
        "class KV_MUST_USE_RESULT Status final {\n public:\n  bool ok() const;\n};\n"
        "}  // namespace kv\n"),
    "src/db_impl.h": (
        '#pragma once\n#include "kv/db.h"\nnamespace kv::impl {\n'
        "class DBImpl : public DB {\n public:\n  int Put(const char* key) override;\n  void Flush();\n"
        " private:\n  struct Writer;\n};\n}  // namespace kv::impl\n"),
    "src/db_impl.cc": (
        '#include "db_impl.h"\nnamespace kv::impl {\n'
        "struct DBImpl::Writer {\n  explicit Writer(int n);\n  int n;\n};\n"
        "DBImpl::Writer::Writer(int n) : n(n) {}\n"
        "int DBImpl::Put(const char* key) { Flush(); return 0; }\n"
        "}  // namespace kv::impl\n"
        "void kv::impl::DBImpl::Flush() {}\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("cpp"), FILES, "kv") as got:
        yield got


def _walk(tools, target: str, edge: str) -> list[str]:
    t, sid = tools
    return sorted(f"{i.path}::{i.qualname}" for i in t.walk(sid, target, edges=[edge], page_size=50).items)


def test_a_class_after_an_export_macro_is_a_class_with_its_methods(tools):
    t, sid = tools
    item = t.get(sid, "include/kv/db.h::kv.DB", level="api").items[0]
    assert (item.kind, item.start_line, item.end_line) == ("class", 9, 13)
    assert item.text.splitlines()[:2] == ["class KV_EXPORT DB", "    A persistent ordered map from keys to values."]
    assert _walk(tools, "include/kv/db.h::kv.DB", "contains") == [
        "include/kv/db.h::kv.DB.Put", "include/kv/db.h::kv.DB.~DB"]
    assert _walk(tools, "include/kv/db.h::kv.WriteBatch", "contains") == [
        "include/kv/db.h::kv.WriteBatch.Handler", "include/kv/db.h::kv.WriteBatch.Iterate"]
    assert _walk(tools, "include/kv/db.h::kv.WriteBatch.Handler", "contains") == [
        "include/kv/db.h::kv.WriteBatch.Handler.Put"]
    # the file holds its classes, and nothing named after a macro or a base
    assert _walk(tools, "include/kv/db.h", "contains") == [
        f"include/kv/db.h::kv.{c}" for c in ("Cleanable", "DB", "Iterator", "Status", "WriteBatch")]
    got = t.get(sid, "include/kv/db.h::kv.Status", level="summary").items[0]
    assert got.kind == "class" and got.text.startswith("class kv.Status: class KV_MUST_USE_RESULT Status final")


def test_a_class_after_an_export_macro_keeps_its_bases(tools):
    assert _walk(tools, "include/kv/db.h::kv.Iterator", "inherits") == ["include/kv/db.h::kv.Cleanable"]
    assert _walk(tools, "src/db_impl.h::kv.impl.DBImpl", "inherits") == ["include/kv/db.h::kv.DB"]
    t, sid = tools
    subclasses = t.walk(sid, "include/kv/db.h::kv.DB", edges=["inherits"], direction="in").items
    assert [f"{i.path}::{i.qualname}" for i in subclasses] == ["src/db_impl.h::kv.impl.DBImpl"]


def test_a_nested_namespace_and_an_out_of_line_nested_class_name_their_scopes(tools):
    assert _walk(tools, "src/db_impl.h::kv.impl.DBImpl", "contains") == [
        "src/db_impl.h::kv.impl.DBImpl.Flush", "src/db_impl.h::kv.impl.DBImpl.Put"]
    # the nested class defined out of line, and its constructor defined out of line after it
    assert _walk(tools, "src/db_impl.cc", "contains") == [
        "src/db_impl.cc::kv.impl.DBImpl.Flush", "src/db_impl.cc::kv.impl.DBImpl.Put",
        "src/db_impl.cc::kv.impl.DBImpl.Writer"]
    assert _walk(tools, "src/db_impl.cc::kv.impl.DBImpl.Writer", "contains") == [
        "src/db_impl.cc::kv.impl.DBImpl.Writer.Writer"]
    t, sid = tools
    ctor = t.get(sid, "src/db_impl.cc::kv.impl.DBImpl.Writer.Writer", level="summary").items[0]
    assert (ctor.kind, ctor.start_line) == ("method", 7)
    # a member written inside ``namespace kv::impl`` calls one written as ``kv::impl::DBImpl::Flush``
    assert _walk(tools, "src/db_impl.cc::kv.impl.DBImpl.Put", "calls") == ["src/db_impl.cc::kv.impl.DBImpl.Flush"]


def test_search_finds_the_exported_class_by_its_name(tools):
    t, sid = tools
    got = t.search(sid, "DB", kinds=["class"], page_size=5).items
    assert "include/kv/db.h::kv.DB" in [f"{i.path}::{i.qualname}" for i in got]
