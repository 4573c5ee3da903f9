"""The frames a pasted traceback holds, innermost first: each printed form read by its own rule.

Python and pytest print the innermost frame last; a JavaScript (V8) stack, a Vitest failure, a JVM
trace, a Go panic, a sanitizer's or gdb's numbered stack print it first. A form read only as a bare
``path:LINE`` was taken for Python's order (a Vitest ``❯ flushJobs src/scheduler.ts:280:5`` stack and
an AddressSanitizer ``#0 0x55d1c2 in leveldb::Table::BlockReader(...) table/table.cc:170:20`` one came
out outermost first, their function names unread: a probe), so each form that prints innermost first
is recognised here by its own shape. ``stratum.tracebacks`` finds the frames' definitions.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

MAX_FRAMES = 32          # the innermost frames read (a recursion prints hundreds of the same few)

_PATH = r"(?:[A-Za-z]:)?[\w.~/\\@+-]*[\w-]\.[A-Za-z]\w{0,5}"
_PLACE = re.compile(rf"(?P<path>{_PATH}):(?P<line>\d{{1,7}})(?::\d{{1,5}})?")
_PY = re.compile(rf'File "(?P<path>{_PATH})", line (?P<line>\d{{1,7}})(?:, in (?P<func>[\w<>.]+))?')
_COLON = re.compile(rf'(?<![\w.~/\\@+-])(?P<path>{_PATH}):(?P<line>\d{{1,7}})(?::\d{{1,5}})?(?::? in (?P<func>[\w<>.]+))?')
_JS_AT = re.compile(r"\bat (?P<func>[\w$.<>]+) \($")
# a JVM frame, `at com.shop.Cart.total(Cart.java:42)`, and a Go one, `main.total(...)` over `\t/src/cart.go:12 +0x1d`:
# both printed innermost first. A Kotlin or Scala method named in backticks keeps its spaces and signs on the JVM
# (`at com.shop.CartTest.total applies discount(CartTest.kt:10)`): the method's part may hold them (no `.`, nor
# what the JVM forbids in a name), starting with a character the part before it cannot hold, at most 200 long (no
# backtracking between the parts; a paste of "at a at a ..." stays linear)
_JVM = re.compile(r"\bat (?P<func>[\w$.<>/]+(?:(?:[^\w\s$.;\[\]/<>:\\()]|[ ])[^\n\t\r.;\[\]/<>:\\()]{0,200})?)"
                  r"\((?P<file>[\w$-]+\.(?:java|kt|kts|scala|groovy)):(?P<line>\d{1,7})\)")
_GO = re.compile(r"^(?P<func>\S+)\((?:[^()\n]|\.\.\.)*\)\n\t(?P<path>\S+\.go):(?P<line>\d{1,7})", re.M)
_GO_CLOSURE = re.compile(r"func\d+|gowrap\d+|\d+")       # `main.main.func1`, a nested one's `tRunner.func1.2`
# the goroutine's creator, printed after its stack (its outermost frame): `created by main.serve in goroutine 1`
# over `\t/src/main.go:30 +0x5d`
_GO_CREATED = re.compile(r"^created by (?P<func>\S+)(?: in goroutine \d+)?\n\t(?P<path>\S+\.go):(?P<line>\d{1,7})", re.M)
# Vitest's (and Vite's) stack line: `❯ flushJobs packages/runtime-core/src/scheduler.ts:280:5`, or the
# place alone for an anonymous function (`❯ src/cart.spec.ts:12:7`); the function as V8 names it
# (`Object.toBe`, `async Promise.all`, `new Cart`); innermost first
_VITEST = re.compile(rf"❯[ \t]+(?:(?:async |new )?(?P<func>[\w$.<>\[\]]+)[ \t]+)?(?P<path>{_PATH}):(?P<line>\d{{1,7}})"
                     r"(?::\d{1,5})?")
# a numbered native frame, innermost (#0) first: a sanitizer's (ASan, UBSan, LSan, TSan, MSan)
# `#0 0x55d1c2 in leveldb::Table::BlockReader(void*, ...) /src/table/table.cc:170:20` and gdb's
# `#1  0x55d3a1 in leveldb::Table::InternalGet (this=0x5555, ...) at /src/table/table.cc:225` (a frame
# at a line's start prints no address, `#0  f (x=1) at a.c:3`); the line's last word is the place
# (the function between may hold spaces, templates and a parameter list: read by ``native_name``)
_NUMBERED = re.compile(r"^[ \t]*#\d{1,5}[ \t]+(?P<addr>0x[0-9a-fA-F]+[ \t]+in[ \t]+)?(?P<rest>[^\n]*)", re.M)
# a sanitizer's last line, the crash's place again: `SUMMARY: AddressSanitizer: heap-use-after-free
# /src/table/table.cc:170:20 in leveldb::Table::BlockReader(void*, ...)` (UBSan's may name none)
_SUMMARY = re.compile(rf"^SUMMARY: \w+Sanitizer: (?:[\w-]+ ){{1,4}}(?P<path>{_PATH}):(?P<line>\d{{1,7}})(?::\d{{1,5}})?"
                      r"(?: in (?P<func>[^\n]*))?", re.M)
_NAME = re.compile(r"[A-Za-z_$~][\w$]*")


@dataclass(frozen=True)
class Frame:
    path: str               # as the traceback prints it (a JVM frame: its class's package folders and file name)
    line: int
    func: str = ""          # the function the frame names ("" when it names none, "<module>" for top level)
    package: str | None = field(default=None, compare=False)   # a JVM frame's class's package ("": the default
                            # package), whose file is found by it (``pathtails.class_files``); None: a printed path


def frames(query: str) -> list[Frame]:
    """The frames a query holds, innermost first (at most MAX_FRAMES): Python and pytest print the
    innermost frame last; a JavaScript (V8) stack (``at f (path:L:C)``, ``at path:L:C``), a Vitest
    one (``❯ f path:L:C``), a JVM one (``at pkg.Class.method(File.java:L)``), a Go panic (``pkg.f(...)``
    over ``\tpath.go:L``) and a numbered native stack (a sanitizer's or gdb's ``#0 0x... in f path:L``,
    each stack of a report in printed order) print it first. A place printed twice counts once, at its
    innermost, with a function's name where one of its printings says it."""
    if ":" not in query and "line " not in query:      # most queries: no regex pass
        return []
    last_first: list[tuple[int, Frame]] = []           # Python, pytest, bare places: printed outermost first
    first_first: list[tuple[int, Frame]] = []          # JavaScript, JVM, Go and native stacks: printed innermost first
    taken: list[tuple[int, int]] = []
    for m in _PY.finditer(query):
        last_first.append((m.start(), Frame(m.group("path"), int(m.group("line")), m.group("func") or "")))
        taken.append(m.span())
    if ".java:" in query or ".kt:" in query or ".scala:" in query or ".groovy:" in query or ".kts:" in query:
        for m in _JVM.finditer(query):
            first_first.append((m.start(), _jvm_frame(m.group("func"), m.group("file"), int(m.group("line")))))
            taken.append(m.span())
    if ".go:" in query:
        for m in [*_GO.finditer(query), *_GO_CREATED.finditer(query)]:
            name = re.sub(r"\(\*?\w+\)\.", "", m.group("func")).rsplit("/", 1)[-1].rsplit(".", 1)[-1]
            first_first.append((m.start(), Frame(m.group("path"), int(m.group("line")),
                                                 "" if _GO_CLOSURE.fullmatch(name) else name)))
            taken.append((m.start("path"), m.end()))
    if "❯" in query:
        for m in _VITEST.finditer(query):
            func = (m.group("func") or "").rsplit(".", 1)[-1]
            first_first.append((m.start(), Frame(m.group("path"), int(m.group("line")), func)))
            taken.append(m.span())
    if "#" in query:
        for m in _NUMBERED.finditer(query):
            got = _numbered(m)
            if got is not None:
                first_first.append((m.start(), got))
                taken.append(m.span())
    if "SUMMARY: " in query:
        for m in _SUMMARY.finditer(query):
            first_first.append((m.start(), Frame(m.group("path"), int(m.group("line")),
                                                 native_name(m.group("func") or ""))))
            taken.append(m.span())
    taken.sort()
    starts = [a for a, _ in taken]          # a bisect per place, not a scan of every frame: a JVM
    for m in _COLON.finditer(query):        # stack overflow prints 1,024 (1,500 frames: 150 -> 13 ms)
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and m.start() < taken[i][1]:
            continue
        f = Frame(m.group("path"), int(m.group("line")), m.group("func") or "")
        head = query[max(0, m.start() - 120):m.start()]
        js = _JS_AT.search(head)
        if js is not None and js.end() == len(head):    # `at render (src/view.js:40:7)`
            first_first.append((m.start(), Frame(f.path, f.line, js.group("func").rsplit(".", 1)[-1])))
        elif head.endswith("at "):                      # `at src/view.js:40:7` (an anonymous function)
            first_first.append((m.start(), f))
        else:
            last_first.append((m.start(), f))
    # a JVM trace prints the exception's cause after it (`Caused by: ...`, innermost first again):
    # the last cause is where it began, so its block comes first
    causes = [m.start() for m in re.finditer(r"^[ \t]*Caused by: ", query, re.M)] if "Caused by: " in query else []
    ordered = [f for _, f in sorted(last_first, key=lambda x: -x[0])] + \
        [f for _, f in sorted(first_first, key=lambda x: (-bisect.bisect(causes, x[0]), x[0]))]
    out: dict[tuple[str, int], Frame] = {}
    for f in ordered:
        key = (f.path, f.line)
        had = out.setdefault(key, f)
        if not had.func and f.func and had.package == f.package:
            out[key] = f        # UBSan's `a.cc:30:15: runtime error` over its `#0 ... in Hash(...) a.cc:30:15`
    return list(out.values())[:MAX_FRAMES]


def _numbered(m: re.Match[str]) -> Frame | None:
    """A numbered native frame (``_NUMBERED``), or None when the line ends in no place (``#3 0x... in
    __libc_start_main (/lib/libc.so.6+0x21b96)``, gdb's ``... from /lib/libc.so.6``) or is no frame
    (a line starting ``#1`` that has neither an address nor gdb's ``at``)."""
    rest = m.group("rest").rstrip()
    head, _, last = rest.rpartition(" ")
    place = _PLACE.fullmatch(last)
    if place is None:
        return None
    head = head.rstrip()
    if head.endswith(" at") or head == "at":       # gdb: `f (args) at path:L`
        head = head[:-2]
    elif m.group("addr") is None:
        return None
    return Frame(place.group("path"), int(place.group("line")), native_name(head))


def native_name(printed: str) -> str:
    """The name a definition of the index has for a function as a native stack prints it: the
    qualified name's last part (``leveldb::Table::BlockReader(void*, ...)``: ``BlockReader``, as a
    method's node is named; the return type a template function prints, its template arguments and
    a lambda's ``::$_0::operator()`` tail left out), a gtest body its test's (``leveldb::DBTest_Get_Test
    ::TestBody()``: ``DBTest.DBTest_Get_Test``, as the parser names a ``TEST_F``); "" when none is read (``??``,
    an operator)."""
    text = printed.strip().replace("(anonymous namespace)", "anon")
    depth = 0
    kept: list[str] = []
    for ch in text:         # up to the parameter list (the first `(` outside template arguments), those left out
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif depth == 0:
            if ch == "(":
                break
            kept.append(ch)
    words = "".join(kept).split()
    parts = words[-1].split("::") if words else [""]     # the last word: a template function's return type before it
    if len(parts) >= 2 and parts[-1] == "TestBody" and parts[-2].endswith("_Test"):
        suite, _, test = parts[-2][:-len("_Test")].partition("_")
        if _NAME.fullmatch(suite) and _NAME.fullmatch(test):
            return f"{suite}.{parts[-2]}"
    name = parts[-1].rsplit(".", 1)[-1]
    return name if _NAME.fullmatch(name) and not name.startswith("operator") else ""


def _jvm_frame(func: str, file: str, line: int) -> Frame:
    """A JVM frame's file under its class's package folder (``com.shop.Cart.total`` in ``Cart.java``:
    ``com/shop/Cart.java``, a longer tail to match than the file's name), and its method's name."""
    cls, _, method = func.rpartition(".")
    method = method.strip()         # `at x.Y.total (Y.kt:1)`: no name ends in a space
    package = cls.split("$", 1)[0].rpartition(".")[0]
    path = f"{package.replace('.', '/')}/{file}" if package else file
    return Frame(path, line, "" if method.startswith(("<", "lambda$")) else method, package)


__all__ = ["Frame", "frames", "native_name", "MAX_FRAMES"]
