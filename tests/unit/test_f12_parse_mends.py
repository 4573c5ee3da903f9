"""Small parse mends from a review (session 28, f12).

- A JavaScript/TypeScript module object's function (``const api = { helper () {} }`` with
  ``module.exports = api``, ``export default { helper () {} }``) took the plain name from the
  file's own ``function helper`` below it: the real function became ``helper#2`` (a new id, a note
  on it orphaned) and a bare ``helper()`` linked to the member. The statement keeps the name.
- A Scala/Kotlin name in backticks holding a dot (``def `a.b```) was read as nesting (``O.a.b``).
- ``kotlinsemis`` stopped its scan for closers when the file's first ``}`` stood at byte 0.
"""

from __future__ import annotations

from pipeline import languages
from pipeline.languages import kotlinsemis
from pipeline.parse import parse_file
from tests.unit.test_calls import _index

REPO = "r"
JS = {
    "lib/api.js": ("'use strict'\nconst api = {\n  list () { return helper() },\n  helper () { return 3 },\n}\n"
                   "function helper () { return 1 }\nmodule.exports = api\n"),
    "lib/plain.mjs": ("export default {\n  run () { return helper() },\n  helper: () => 2,\n}\n"
                      "export function helper () { return 1 }\n"),
    "lib/first.js": ("function helper () { return 1 }\nmodule.exports = {\n  run () { return helper() },\n"
                     "  helper () { return 2 },\n}\n"),
}


def _defs(path: str, src: str) -> list[tuple[str, str, int]]:
    return [(n["kind"], n["qualname"], n["start_line"])
            for n in parse_file(REPO, path, src.encode()).nodes if n["kind"] != "file"]


def test_the_files_own_function_keeps_its_name_beside_a_module_objects_member():
    assert _defs("lib/api.js", JS["lib/api.js"]) == [
        ("function", "list", 3), ("function", "helper#2", 4), ("function", "helper", 6)]
    assert _defs("lib/plain.mjs", JS["lib/plain.mjs"]) == [
        ("function", "run", 2), ("function", "helper#2", 3), ("function", "helper", 5)]
    assert _defs("lib/first.js", JS["lib/first.js"]) == [     # written first: as before
        ("function", "helper", 1), ("function", "run", 3), ("function", "helper#2", 4)]


def test_a_bare_call_reaches_the_files_own_function():
    """``helper`` is the statement (its line: the test above)."""
    calls = {(e["src"], e["dst"]) for e in _index(JS)[0] if e["kind"] == "calls" and e["how"] == "same file"}
    assert calls == {(("lib/api.js", "list"), ("lib/api.js", "helper")),
                     (("lib/plain.mjs", "run"), ("lib/plain.mjs", "helper")),
                     (("lib/first.js", "run"), ("lib/first.js", "helper"))}


def test_a_backtick_name_with_a_dot_is_one_name_not_nesting():
    scala = "package p\nobject O {\n  def `a.b`(x: Int): Int = x\n  def `c d`(): Int = 1\n}\n"
    assert _defs("p/O.scala", scala) == [("class", "O", 2), ("method", "O.`a.b`", 3), ("method", "O.c d", 4)]
    kotlin = "package p\nobject K {\n  fun `a.b`(x: Int): Int = x\n}\n"
    assert _defs("p/K.kt", kotlin) == [("class", "K", 2), ("method", "K.`a.b`", 3)]


def test_a_closer_at_byte_0_does_not_end_the_scan():
    src = b"}\nclass A { fun f() {} }\n"
    tree = languages.parser("kotlin").parse(src)
    assert kotlinsemis._closers(tree.root_node, src) == [src.rindex(b"}")]
