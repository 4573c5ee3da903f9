"""A leveldb-style header whose functions carry an export macro before their type, and a ``.cc`` with
``new T*[n]``, through the real index job and ``Tools``: neither file says its outline may be
incomplete, no definition says its span may be cut short, and the definitions are found by name
(probe: 15 leveldb files flagged ``syntax_error``)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

FILES = {
    "include/leveldb/db.h": (
        "#pragma once\nnamespace leveldb {\n"
        "class LEVELDB_EXPORT DB {\n public:\n  virtual ~DB();\n};\n"
        "// Destroy the contents of the named database.\n"
        "LEVELDB_EXPORT Status DestroyDB(const std::string& name, const Options& options);\n"     # 8
        "LEVELDB_EXPORT Cache* NewLRUCache(size_t capacity);\n"
        "}  // namespace leveldb\n"),
    "db/version_set.cc": (
        '#include "leveldb/db.h"\nnamespace leveldb {\n'
        "Iterator* VersionSet::MakeInputIterator(Compaction* c) {\n"
        "  const int space = 2;\n"
        "  Iterator** list = new Iterator*[space];\n"
        "  return NewMergingIterator(list, space);\n"
        "}\n"
        "}  // namespace leveldb\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("s33cpp"), FILES, "leveldb") as got:
        yield got


@pytest.mark.parametrize("target", ["include/leveldb/db.h", "db/version_set.cc",
                                    "db/version_set.cc::leveldb.VersionSet.MakeInputIterator",
                                    "include/leveldb/db.h::leveldb.DestroyDB"])
def test_no_syntax_warning(tools, target):
    t, sid = tools
    res = t.get(sid, target, level="summary")
    said = " ".join([*res.envelope.warnings, *(w for it in res.items for w in it.warnings)])
    assert "syntax errors" not in said and "outline may be incomplete" not in said
    assert "span may be cut short" not in said


def test_the_exported_functions_are_found(tools):
    t, sid = tools
    it = t.get(sid, "include/leveldb/db.h:8", level="summary").items[0]
    assert (it.kind, it.qualname) == ("function", "leveldb.DestroyDB")
    assert "Destroy the contents" in (it.text or "")
    kids = sorted(i.qualname for i in t.walk(sid, "include/leveldb/db.h", edges=["contains"], page_size=20).items)
    assert kids == ["leveldb.DB", "leveldb.DestroyDB", "leveldb.NewLRUCache"]
