"""The forms of a test written as a call (``pipeline.testblocks``) as the parse makes nodes of them:
JS/TS runner callees and modifiers, titles, nesting and what stays code; Rust macro tests by where
they stand, ``#[test]``-like attributes marked; the same nodes as the symbol miner's view."""

from __future__ import annotations

from pipeline.parse import TEST_MARK, definition_spans, parse_file


def _nodes(path: str, code: str) -> list[tuple[str, str | None, str, int, bool]]:
    pf = parse_file("r", path, code.encode())
    got = [(n["kind"], n["subkind"], n["qualname"], n["start_line"], TEST_MARK in (n.get("meta") or ""))
           for n in pf.nodes[1:]]
    assert [q for _, _, q, _ in definition_spans(path, code.encode())] == [q for _, _, q, _, _ in got]
    return got


JS = (
    "describe.each([[1], [2]])('table %i', (n) => {\n"          # 1
    "  test.each`a | b`('tagged', ({ a }) => {})\n"
    "  fit('focused', function () {})\n"                        # 3
    "  xit(`skipped\n      two lines`, () => {})\n"             # 4: whitespace as one space
    "  it(`with ${x}`, () => {})\n"                             # a substitution: no title
    "  it('no callback')\n"
    "  function helper() {\n    it('inside a helper', () => {})\n  }\n"      # hidden in a function body
    "  beforeEach(() => {\n    it('inside a hook', () => {})\n  })\n"
    "  foo('not a runner', () => {})\n"
    "  it.step('not a modifier', () => {})\n"
    "})\n"
    "test.describe('playwright', () => {\n"                     # 17
    "  test('page', async ({ page }) => {})\n"
    "})\n"
    "context('mocha', () => { specify('works', () => {}) })\n"   # 20
)


def test_js_runner_forms_in_a_test_file():
    assert _nodes("src/__tests__/forms.test.js", JS) == [
        ("function", "suite", "table %i", 1, True),
        ("function", "test", "table %i.tagged", 2, True),
        ("function", "test", "table %i.focused", 3, True),
        ("function", "test", "table %i.skipped two lines", 4, True),
        ("function", "suite", "playwright", 17, True),
        ("function", "test", "playwright.page", 18, True),
        ("function", "suite", "mocha", 20, True),
        ("function", "test", "mocha.works", 20, True)]


def test_js_blocks_outside_a_test_file_are_no_nodes():
    assert _nodes("src/forms.js", JS) == []
    assert [q for _, _, q, _, _ in _nodes("test/forms.ts", JS)][:1] == ["table %i"]      # a test folder counts


def test_a_ts_spec_keeps_its_other_definitions():
    code = ("export function setup(): number {\n  return 1\n}\n"
            "describe('x', () => {\n  const local = () => setup()\n  it('y', () => { local() })\n})\n")
    assert _nodes("a.spec.ts", code) == [("function", None, "setup", 1, False), ("function", "suite", "x", 4, True),
                                         ("function", "test", "x.y", 6, True)]


RUST_SRC = (
    "pub fn f() -> u8 {\n    1\n}\n"
    "lazy!(CACHE, u8);\n"                                        # 4: item level, no test context
    "impl S {\n    accessor!(name, String);\n}\n"                # in an impl: no test
    "#[cfg(test)]\nmod tests {\n"
    "    #[tokio::test]\n    async fn on_runtime() {}\n"         # 10-11
    "    #[test_case(1)]\n    fn cased(n: u8) {}\n"
    "    fn helper() {}\n"                                       # 14: no attribute: no test
    "    check!(made, { assert_eq!(f(), 1); });\n"               # 15
    "    mod deeper {\n        check!(nested, |x| {});\n    }\n"  # 17
    "    macro_rules! check { ($n:ident, $b:expr) => { #[test] fn $n() { $b; } }; }\n"   # 19: a test definer
    "}\n"
)


def test_rust_tests_by_where_they_stand():
    assert _nodes("src/lib.rs", RUST_SRC) == [
        ("function", None, "f", 1, False), ("class", "impl", "S", 5, False),
        ("function", None, "tests.on_runtime", 10, True), ("function", None, "tests.cased", 12, True),
        ("function", None, "tests.helper", 14, False), ("function", "test", "tests.made", 15, True),
        ("function", "test", "tests.deeper.nested", 17, True), ("function", "macro", "tests.check", 19, False)]


RGTESTS = "".join(f"rgtest!(r{i}, |dir, cmd| {{\n    cmd.run();\n}});\n" for i in (1, 2, 3))


def test_a_rust_test_file_and_a_cfg_test_file():
    code = "lazy!(CACHE, u8);\n" + RGTESTS        # rgtest! defined elsewhere, called 3 times with a closure
    assert [q for _, _, q, _, _ in _nodes("tests/misc.rs", code)] == ["r1", "r2", "r3"]   # CACHE: no test
    assert _nodes("src/misc.rs", code) == []
    assert [q for _, _, q, _, _ in _nodes("src/misc.rs", "#![cfg(test)]\n" + code)] == ["r1", "r2", "r3"]
    sig = {n["qualname"]: n["signature"] for n in parse_file("r", "tests/misc.rs", code.encode()).nodes[1:]}
    assert sig["r1"] == "rgtest!(r1, |dir, cmd|"
    # twice only, not defined here: not known to define tests (a file is parsed alone)
    assert _nodes("tests/two.rs", "".join(RGTESTS.splitlines(keepends=True)[:6])) == []


# probe fx_rs: item macros inside tests that define no test (M3)
ITEM_MACROS = (
    "pub struct Foo;\npub struct Bar;\n"
    "macro_rules! impl_from { ($a:ident, $b:ident) => { impl From<$a> for $b { fn from(_: $a) -> $b { $b } } }; }\n"
    "pub fn add(a: i32, b: i32) -> i32 { a + b }\n"
    "#[cfg(test)]\nmod tests {\n"                                                      # 5-6
    "    use super::*;\n"
    "    static_assertions::assert_impl_all!(Foo, Send, Sync);\n"                       # 8
    "    impl_from!(Bar, Foo);\n"                                                       # 9
    "    macro_rules! case { ($name:ident, $a:expr, $b:expr, $want:expr) => "
    "{ #[test] fn $name() { assert_eq!(add($a, $b), $want); } }; }\n"                    # 10
    "    case!(adds_small, 1, 2, 3);\n"                                                 # 11
    "    make_const!(LIMIT, 10);\n"                                                     # 12
    "    other::t!(elsewhere, |x| {}); other::t!(b, |x| {}); other::t!(c, |x| {});\n"     # 13: another crate's
    "}\n"
)


def test_rust_item_macros_are_no_tests():
    assert _nodes("src/lib.rs", ITEM_MACROS) == [
        ("class", "struct", "Foo", 1, False), ("class", "struct", "Bar", 2, False),
        ("function", "macro", "impl_from", 3, False), ("function", None, "add", 4, False),
        ("function", "macro", "tests.case", 10, False), ("function", "test", "tests.adds_small", 11, True)]
    made = [n for n in parse_file("r", "src/lib.rs", RUST_SRC.encode()).nodes if n["qualname"] == "tests.made"]
    assert '"calls":[["f",' in made[0]["meta"]                  # a real definer's call: its calls are read


def test_a_macro_calling_the_files_test_definer_defines_tests():
    code = ("#[cfg(test)]\nmod tests {\n"
            "    macro_rules! extract { ($w:ident, $n:ident, $p:expr) => { #[test] fn $n() { f($p); } }; }\n"
            "    macro_rules! literal { ($($tt:tt)*) => { extract!(literal, $($tt)*); } }\n"
            "    literal!(extract_lit1, \"foo\");\n"                        # 5: globset's glob.rs
            "}\n")
    assert _nodes("src/glob.rs", code)[-1] == ("function", "test", "tests.extract_lit1", 5, True)
