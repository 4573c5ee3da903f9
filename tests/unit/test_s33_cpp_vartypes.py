"""The C++ variables' types the parse records (``pipeline.vartypes_cpp``), read from a real
tree-sitter parse: what ``x.m()`` / ``x->m()`` may be linked through, and what types nothing."""

from __future__ import annotations

import json

from pipeline.parse import parse_file

SRC = b"""template <typename T> void g(const Foo& other, Foo* p = nullptr, T t) {
  Foo x; auto r = new shop::Foo(1); auto s = std::make_unique<Foo>(); Foo y(1), *z;
  auto w = Make(); const auto& v = other; for (Foo* f : fs) {} auto it = db->NewIterator();
  Foo** pp; Foo arr[2]; int n; std::vector<Foo> vec; std::unique_ptr<ns::Bar> u;
}
int proto(Foo a);
class A { VersionSet* const versions_; detail::Box<int> box_; void F(Foo b); };
Version* VersionSet::current() const { return 0; }
"""


def _meta(qual: str) -> dict:
    nodes = parse_file("r", "a.cc", SRC).nodes
    return json.loads(next(n for n in nodes if n["qualname"] == qual).get("meta") or "{}")


def test_declared_types_auto_values_and_unknowns():
    got = {v: (t, r) for v, t, r, *_ in _meta("g")["types"]}
    assert got == {
        "other": ("Foo", ""), "p": ("Foo", ""), "t": ("", ""),          # T: whatever the caller passes
        "x": ("Foo", ""), "r": ("Foo", "shop"), "s": ("Foo", ""), "y": ("Foo", ""), "z": ("Foo", ""),
        "w": ("Make", ""), "v": ("=other", ""), "f": ("Foo", ""), "it": ("NewIterator", "db"),
        "pp": ("", ""), "arr": ("", ""), "n": ("", ""),                 # no Foo of its own: hides a member
        "vec": ("vector", "std"), "u": ("Bar", "ns")}


def test_members_in_the_class_body_and_no_prototype_parameters():
    assert [t[:3] for t in _meta("A")["types"]] == [["self.versions_", "VersionSet", ""],
                                                     ["self.box_", "Box", "detail"]]
    assert "types" not in _meta("proto") and "types" not in _meta("A.F")
    assert _meta("VersionSet.current")["returns"] == ["Version", ""]
