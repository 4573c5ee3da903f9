"""An export macro before a declaration's type (leveldb's ``LEVELDB_EXPORT Status DestroyDB(...);``)
and the ``*`` of ``new T*[n]`` no longer break tree-sitter-cpp's reading: the file is not flagged
``syntax_error`` and its names and spans are the same (probe: 15 leveldb files flagged, headers
saying their outline may be incomplete, ``VersionSet::MakeInputIterator`` that its span may be cut)."""

from __future__ import annotations

import json

from pipeline import languages
from pipeline.parse import SYNTAX_ERROR, parse_file

HEADER = (
    "#pragma once\n"
    "namespace leveldb {\n"
    "class LEVELDB_EXPORT Cache;\n"
    "LEVELDB_EXPORT Status DestroyDB(const std::string& name, const Options& options);\n"     # 4
    "LEVELDB_EXPORT Cache* NewLRUCache(size_t capacity);\n"
    "LEVELDB_EXPORT const Comparator* BytewiseComparator();\n"                                 # 6
    "XYZ_API std::string Name(int x);\n"
    "XYZ_API unsigned int Count();\n"                                                          # 8
    "API_EXPORT API_PURE hash_t XXH64(const void* input, size_t N, hash_t seed);\n"
    "NORETURN static void Fail(const std::string& msg) {}\n"                                  # 10
    "LEVELDB_EXPORT Status* Open() { return nullptr; }\n"
    "}  // namespace leveldb\n"
)

NEW_ARRAY = (
    "Iterator* VersionSet::MakeInputIterator(Compaction* c) {\n"
    "  const int space = 2;\n"
    "  Iterator** list = new Iterator*[space];\n"                  # 3
    "  for (int i = 0; i < space; i++) {\n    list[i] = nullptr;\n  }\n"
    "  return NewMergingIterator(list, space);\n"
    "}\n"
    "void HandleTable::Resize() {\n  LRUHandle** new_list = new LRUHandle*[8];\n  list_ = new_list;\n}\n"
)


def _nodes(code: str, path: str) -> tuple[list[tuple[str, str, int, int]], list[str]]:
    pf = parse_file("r", path, code.encode())
    return [(n["kind"], n["qualname"], n["start_line"], n["end_line"]) for n in pf.nodes[1:]], pf.warnings


def test_an_export_macro_before_a_type_leaves_no_syntax_error():
    got, warnings = _nodes(HEADER, "include/leveldb/db.h")
    assert SYNTAX_ERROR not in warnings
    assert got == [
        ("function", "leveldb.DestroyDB", 4, 4), ("function", "leveldb.NewLRUCache", 5, 5),
        ("function", "leveldb.BytewiseComparator", 6, 6), ("function", "leveldb.Name", 7, 7),
        ("function", "leveldb.Count", 8, 8), ("function", "leveldb.XXH64", 9, 9),
        ("function", "leveldb.Fail", 10, 10), ("function", "leveldb.Open", 11, 11)]
    pf = parse_file("r", "include/leveldb/db.h", HEADER.encode())
    sig = {n["qualname"]: n["signature"] for n in pf.nodes[1:]}
    # the declaration starts after the macro now; its text is the source's, macro and all
    assert sig["leveldb.DestroyDB"] == "Status DestroyDB(const std::string& name, const Options& options)"
    assert {n["qualname"]: n["full"] for n in pf.nodes[1:]}["leveldb.NewLRUCache"] == \
        "LEVELDB_EXPORT Cache* NewLRUCache(size_t capacity);"
    assert "warnings" not in json.loads(pf.nodes[0].get("meta") or "{}")


def test_new_of_an_array_of_pointers_leaves_no_syntax_error():
    got, warnings = _nodes(NEW_ARRAY, "db/version_set.cc")
    assert SYNTAX_ERROR not in warnings
    assert got == [("method", "VersionSet.MakeInputIterator", 1, 8), ("method", "HandleTable.Resize", 9, 12)]


def test_a_macro_with_arguments_before_a_name_is_left_to_the_annotation_rule():
    # `MACRO_TYPE(Writer) writers_ GUARDED_BY(mu_);` is a type macro with arguments: not blanked as an
    # export macro (its `(` follows the word), the annotation is (test_cpp22_structure)
    code = "class D {\n  MACRO_TYPE(Writer) writers_ GUARDED_BY(mu_);\n  void Flush();\n};\n"
    got, _ = _nodes(code, "d.h")
    assert got == [("class", "D", 1, 4), ("method", "D.Flush", 3, 3)]


def test_valid_all_caps_types_are_untouched():
    code = "HANDLE h = Open();\nDWORD Size(HANDLE h);\nint* a = new int[3];\n"
    src = code.encode()
    assert str(languages.parse_tree("cpp", src).root_node) == str(languages.parser("cpp").parse(src).root_node)
