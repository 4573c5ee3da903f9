"""Kotlin/Scala call rules a review of a56e82f found wrong (session 28, f11; r2's report), on real
tree-sitter parses linked by the real ``calls.resolve``:

- the "method name" rule reaches the caller's file and its imports, not its whole package (a
  test source set shares it: main code's ``o.asType()`` linked a test's ``FakeElement.asType``);
- an extension's receiver is matched as written (``fun A.Builder.ext()`` is no ``B.Builder``'s;
  ``PropertySpec.builder().jvmStatic()`` took ``FunSpec.Builder.jvmStatic``), and two extensions
  that fit (overloads ``ext#2``) make no edge;
- a variable, parameter or field named like a package shadows it (``val util = ...;
  util.check()`` linked package ``util``'s ``check``);
- a file that failed to parse is read once for the names it declares, not once per name.
"""

from __future__ import annotations

import json
import time

from pipeline.calls import resolve
from pipeline.imports import resolve as resolve_imports
from pipeline.parse import parse_file
from pipeline.partialparse import Hidden
from pipeline.report import RunReport
from pipeline.stages import collect

REPO = "r"
K = "src/main/kotlin/"


def _links(files: dict[str, str]) -> set[tuple[str, str, str]]:
    """(caller, callee, rule) of every ``calls`` edge, as qualnames."""
    parsed = [parse_file(REPO, p, s.encode()) for p, s in files.items()]
    nodes, _, _ = collect(parsed, RunReport(repo=REPO, store=""))   # files keep their raw imports (their package)
    bindings: dict = {}
    imp, _ = resolve_imports(REPO, [pf.file_imports() for pf in parsed], list(files), {}, bindings=bindings)
    name = {n["id"]: n["qualname"] or n["path"] for n in nodes}
    return {(name[e["src"]], name[e["dst"]], json.loads(e["meta"])["how"])
            for e in resolve(nodes, imp, bindings) if e["kind"] == "calls"}


def test_a_method_name_guess_stays_in_the_file_and_its_imports_not_the_package():
    got = _links({
        K + "p/Gen.kt": "package p\n\nfun argToType(o: Any) = o.asType()\n",
        "src/test/kotlin/p/FakeElement.kt": "package p\n\nclass FakeElement {\n    fun asType(): Int = 1\n}\n",
        K + "q/Use.kt": "package q\n\nimport p.FakeElement\n\nfun use(o: Any) = o.asType()\n",
    })
    assert not any(src == "argToType" for src, _, _ in got)        # same package, no import: no guess
    assert ("use", "FakeElement.asType", "method name") in got      # its import still names it


SHAPES = """\
package p

class A { class Builder }
class B { class Builder }
fun A.Builder.ext(): Int = 1
fun A.Builder.only(): Int = 1
fun A.Builder.js(): Int = 1
fun B.Builder.js(): Int = 2
fun A.Builder.two(): Int = 1
fun A.Builder.two(n: Int): Int = n
"""


def test_an_extension_is_matched_by_its_receiver_as_written():
    got = _links({K + "p/Shapes.kt": SHAPES, K + "p/Use.kt": """\
package p

fun onB(x: B.Builder) = x.ext() + x.only()
fun onA(x: A.Builder) = x.ext() + x.only()
fun both(a: A.Builder, b: B.Builder) = a.js() + b.js()
fun twice(a: A.Builder) = a.two()
"""})
    assert not any(src == "onB" for src, _, _ in got)              # A.Builder's extensions are not B.Builder's
    assert {(d, h) for s, d, h in got if s == "onA"} == {("Builder.ext", "extension"), ("Builder.only", "extension")}
    # fun A.Builder.js() and fun B.Builder.js() are Builder.js and Builder.js#2: each its own receiver's
    assert {(d, h) for s, d, h in got if s == "both"} == {("Builder.js", "extension"), ("Builder.js#2", "extension")}
    assert not any(src == "twice" for src, _, _ in got)            # two overloads fit: which one is not known


def test_a_variable_parameter_or_field_shadows_a_package_of_its_name():
    got = _links({
        K + "util/Check.kt": "package util\n\nfun check(): Int = 1\n",
        K + "app/Use.kt": """\
package app

fun local(m: Map<String, Any>) {
    val util = m["x"] as Helper2
    util.check()
}

fun untyped() {
    val util = make()
    util.check()
}

fun param(util: Helper2) = util.check()

class Holder(val util: Helper2) {
    fun g() = util.check()
}

fun packaged() = util.check()
""",
    })
    assert {s for s, d, _ in got if d == "check"} == {"packaged"}
    assert ("packaged", "check", "package path") in got


def _broken(names: list[str]) -> dict:
    """A Kotlin file node that failed to parse, declaring each name twice in its text."""
    text = "package big\n\nclass Big {\n    val x = listOf(1, 2\n" + "".join(
        f"    fun {n}(a: Int): Int = a\n    fun <T> List<T>.{n}(): Int = 0\n" for n in names) + "}\n"
    meta = json.dumps({"warnings": ["syntax_error"]})
    return {"id": "f", "kind": "file", "path": "big/Big.kt", "language": "kotlin", "full": text, "meta": meta}


def test_a_broken_file_is_read_once_not_once_per_name():
    from pipeline.callindex import Index

    names = [f"name{i}" for i in range(1000)]
    hidden = Hidden(Index([]), [_broken(names * 4)])       # ~0.3 MB of text
    start = time.perf_counter()
    assert all(hidden.hides("kotlin", n) for n in names)
    assert not hidden.hides("kotlin", "absent") and not hidden.hides("java", "name1")
    assert time.perf_counter() - start < 3.0               # a regex per name over the text: ~12 s
    assert hidden.hides("scala", "name1") is False          # no broken Scala file


def test_a_broken_files_parsed_overloads_hide_nothing():
    got = _links({
        K + "gen/Gen.kt": """\
package gen

class Gen {
    fun add(a: Int): Gen = this
    fun add(a: Int, b: Int): Gen = this
}

fun broken() {
    val x = listOf(1, 2
}
""",
        K + "use/Use.kt": "package use\n\nimport gen.Gen\n\nfun use(g: Any) = g.add(1)\n",
    })
    assert ("use", "Gen.add", "method name") in got         # add and add#2 are its two parsed add
