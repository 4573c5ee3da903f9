"""Tests written as calls are nodes, on a real repository through the real index job and ``Tools``
(probe: ripgrep's 333 ``rgtest!`` tests and vue-core's spec files had no symbols; an inline
``#[cfg(test)] mod tests`` had no ``tests`` edge):

- a Rust test a ``macro_rules!`` test definer makes (``rgtest!(r1159_invalid_flag, |dir, cmd|
  {...});`` in ``tests/regression.rs``, ``rgtest!`` defined in another file and called 3 times) is a
  function named by its identifier: ``tree`` and ``get path:LINE`` find it, and ``walk`` its calls
  (search leaves test blocks out: ``tests/integration/test_s33_test_blocks_unsearched.py``); an item
  macro (``make_const!(LIMIT, 10)``) is none;
- a ``#[test]`` fn in an inline ``#[cfg(test)] mod tests`` of a source file tests that file (a
  ``tests`` edge, ``by: "unit"``), so does a macro-defined test there;
- Vitest/Jest ``describe``/``it``/``test`` blocks of a ``*.spec.ts`` are functions (``suite``,
  ``test``) named by their titles, nested: ``scheduler.queueJob.basic usage``; ``.each``, ``.only``,
  ``.skip`` and ``it.concurrent`` forms too; a helper inside a block stays its code; a block calls
  what its body calls, not its runner (nor a ``.d.ts`` stub of it); a title is its printed value.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

REGRESSION = (
    "use crate::util::{Dir, TestCommand};\n"
    "\n"
    "// See: https://github.com/BurntSushi/ripgrep/issues/1159\n"
    "rgtest!(r1159_invalid_flag, |_: Dir, mut cmd: TestCommand| {\n"          # 4
    "    cmd.arg(\"--wat\").assert_exit_code(2);\n"
    "});\n"
    "\n"
    "rgtest!(r1163, |dir: Dir, mut cmd: TestCommand| {\n"                      # 8
    "    dir.create(\"bom.txt\", \"\\u{FEFF}test123\\n\");\n"
    "    eqnice!(\"bom.txt:test123\\n\", cmd.arg(\"^test123\").stdout());\n"
    "});\n"
    "\n"
    "rgtest!(r1164, |_: Dir, mut cmd: TestCommand| {\n"                      # 13: a definer of another
    "    cmd.arg(\"-e\").assert_exit_code(2);\n"                               # file, called 3 times
    "});\n"
)

MACROS = (
    "#[macro_export]\n"
    "macro_rules! rgtest {\n"
    "    ($name:ident, $fun:expr) => {\n"
    "        #[test]\n"
    "        fn $name() {\n"
    "            let (dir, cmd) = crate::util::setup(stringify!($name));\n"
    "            $fun(dir, cmd);\n"
    "        }\n"
    "    };\n"
    "}\n"
)

SEARCHER = (
    "pub struct Searcher {\n    heap_limit: Option<usize>,\n}\n\n"
    "impl Searcher {\n"
    "    pub fn new() -> Searcher {\n        Searcher { heap_limit: None }\n    }\n\n"
    "    pub fn search_slice(&self, slice: &[u8]) -> Result<(), String> {\n"
    "        if slice.is_empty() { Err(\"empty\".into()) } else { Ok(()) }\n    }\n"
    "}\n\n"
    "criterion_group!(benches, bench_search);\n\n"          # 15: item level but no test context: no node
    "#[cfg(test)]\n"
    "mod tests {\n"
    "    use super::*;\n\n"
    "    #[test]\n"
    "    fn config_error_heap_limit() {\n"                  # 22
    "        let searcher = Searcher::new();\n"
    "        assert!(searcher.search_slice(&[]).is_err());\n"
    "    }\n\n"
    "    check!(slice_ok, |s: Searcher| {\n"              # 27
    "        assert!(s.search_slice(b\"x\").is_ok());\n"
    "    });\n"
    "    make_const!(LIMIT, 10);\n"                         # 30: an item macro: no test (M3)
    "    static_assertions::assert_impl_all!(Searcher, Send, Sync);\n"
    "    macro_rules! check {\n"                            # 32: the file's test definer
    "        ($n:ident, $f:expr) => { #[test] fn $n() { $f(Searcher::new()); } };\n"
    "    }\n"
    "}\n"
)

SPEC = (
    "import { describe, it, test, expect } from 'vitest'\n"
    "import { queueJob, nextTick } from '../src/scheduler'\n"
    "\n"
    "describe('scheduler', () => {\n"                                # 4
    "  const mount = () => queueJob(() => {})\n"                    # a helper: the block's code
    "  it('nextTick', async () => {\n"                               # 6
    "    await nextTick()\n"
    "  })\n"
    "\n"
    "  describe('queueJob', () => {\n"                               # 10
    "    it('basic usage', async () => {\n"                          # 11
    "      const calls: string[] = []\n"
    "      queueJob(() => calls.push('job1'))\n"
    "      expect(calls).toEqual([])\n"
    "    })\n"
    "\n"
    "    it.each([1, 2])('runs %i jobs', (n) => {\n"                 # 17
    "      queueJob(() => n)\n"
    "    })\n"
    "    test.only(\"should dedupe queued jobs\", function () {\n"    # 20
    "      mount()\n"
    "    })\n"
    "    it.concurrent(`runs concurrently`, async () => {})\n"        # 23
    "    it.skip('basic usage', () => {})\n"                         # 24: a repeated title
    "    test.todo('later')\n"                                       # no callback: no node
    "  })\n"
    "})\n"
)

SCHEDULER = (
    "export function queueJob(job: () => unknown): void {\n  job()\n}\n\n"
    "export function nextTick(): Promise<void> {\n  return Promise.resolve()\n}\n"
)

PARSE_SPEC = (
    "import { baseParse } from '../src/parse'\n"
    "\n"
    "describe('compiler: parse', () => {\n"                              # 3
    "  test('lonely \"<\" doesn\\'t separate nodes', () => {\n"          # 4: as Vitest prints it: doesn't
    "    baseParse('a < b')\n"
    "  })\n"
    "  it.each([1])(`table %i`, () => { baseParse('x') })\n"             # 7
    "})\n"
)

FILES = {
    "Cargo.toml": '[package]\nname = "grep"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod searcher;\n",
    "src/searcher.rs": SEARCHER,
    "tests/tests.rs": "#[macro_use]\nmod macros;\nmod regression;\nmod util;\n",
    "tests/macros.rs": MACROS,
    "tests/util.rs": ("pub struct Dir;\npub struct TestCommand;\n\n"
                      "pub fn setup(name: &str) -> (Dir, TestCommand) {\n    (Dir, TestCommand)\n}\n"),
    "tests/regression.rs": REGRESSION,
    "web/package.json": '{"name": "runtime-core"}\n',
    "web/src/scheduler.ts": SCHEDULER,
    "web/src/docs.ts": "describe('not a test here', () => {\n  it('nor here', () => {})\n})\n",
    "web/__tests__/scheduler.spec.ts": SPEC,
    "web/__tests__/parse.spec.ts": PARSE_SPEC,
    "web/src/parse.ts": "export function baseParse(input: string): string[] {\n  return [input]\n}\n",
    # vue's packages-private/dts-test: type stubs of the runner's globals, and a file importing them
    "types/dts-test/utils.d.ts": ("export function describe(_name: string, _fn: () => void): void\n"
                                  "export function test(_name: string, _fn: () => any): void\n"),
    "types/dts-test/ref.ts": "import { test } from './utils'\n\ntest('ref', () => {})\n",
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("s33tests"), FILES, "tests as calls") as got:
        yield got


def _children(tools, target: str) -> list[tuple[str, str, int]]:
    """(kind and label, qualname, start line) of what ``target`` contains: ``function test``."""
    t, sid = tools
    return sorted((f"{i.kind} {i.text.split()[0]}", i.qualname, i.start_line)
                  for i in t.walk(sid, target, edges=["contains"], page_size=50).items)


def _at(tools, target: str) -> tuple[str, str]:
    t, sid = tools
    it = t.get(sid, target, level="summary").items[0]
    return f"{it.kind} {it.text.split()[0]}", it.qualname


def test_a_macro_defined_rust_test_is_a_function(tools):
    t, sid = tools
    assert _children(tools, "tests/regression.rs") == [
        ("function test", "r1159_invalid_flag", 4), ("function test", "r1163", 8), ("function test", "r1164", 13)]
    assert _at(tools, "tests/regression.rs:5") == ("function test", "r1159_invalid_flag")
    it = t.get(sid, "tests/regression.rs::r1163", level="summary").items[0]
    assert it.text.startswith("test r1163: rgtest!(r1163, |dir: Dir, mut cmd: TestCommand|")
    assert _children(tools, "tests/macros.rs") == [("function macro", "rgtest", 1)]   # the definer is no test


def test_a_unit_test_in_a_source_file_tests_that_file(tools):
    t, sid = tools
    assert _children(tools, "src/searcher.rs") == [
        ("class struct", "Searcher", 1), ("function function", "tests.config_error_heap_limit", 21),
        ("function macro", "tests.check", 32), ("function test", "tests.slice_ok", 27)]   # criterion_group!: no test
    res = t.walk(sid, "src/searcher.rs", edges=["tests"], direction="in", page_size=20).items
    assert sorted((i.path, i.qualname, i.meta.get("by")) for i in res) == [
        ("src/searcher.rs", "tests.config_error_heap_limit", "unit"), ("src/searcher.rs", "tests.slice_ok", "unit")]
    out = t.walk(sid, "src/searcher.rs::tests.config_error_heap_limit", edges=["tests"], page_size=5).items
    assert [(i.kind, i.path) for i in out] == [("file", "src/searcher.rs")]
    called = t.walk(sid, "src/searcher.rs::tests.slice_ok", edges=["calls"], page_size=5).items
    assert [i.qualname for i in called] == ["Searcher.search_slice"]        # the calls its tokens hold


def test_describe_and_it_blocks_are_nested_functions(tools):
    spec = "web/__tests__/scheduler.spec.ts"
    assert _children(tools, spec) == [("function suite", "scheduler", 4)]
    assert _children(tools, f"{spec}::scheduler") == [
        ("function suite", "scheduler.queueJob", 10), ("function test", "scheduler.nextTick", 6)]
    assert _children(tools, f"{spec}::scheduler.queueJob") == [
        ("function test", "scheduler.queueJob.basic usage", 11),
        ("function test", "scheduler.queueJob.basic usage#2", 24),
        ("function test", "scheduler.queueJob.runs %i jobs", 17),
        ("function test", "scheduler.queueJob.runs concurrently", 23),
        ("function test", "scheduler.queueJob.should dedupe queued jobs", 20)]
    # a line inside a test resolves to that test (a Vitest frame in a spec file)
    assert _at(tools, f"{spec}:13") == ("function test", "scheduler.queueJob.basic usage")
    t, sid = tools
    it = t.get(sid, f"{spec}::scheduler.queueJob.basic usage", level="summary").items[0]
    assert it.text.startswith("test scheduler.queueJob.basic usage: it('basic usage')")
    each = t.get(sid, f"{spec}:17", level="summary").items[0]
    assert each.text.startswith("test scheduler.queueJob.runs %i jobs: it.each(…)('runs %i jobs')")
    called = t.walk(sid, f"{spec}::scheduler.queueJob.basic usage", edges=["calls"], page_size=5).items
    assert [(i.path, i.qualname) for i in called] == [("web/src/scheduler.ts", "queueJob")]


def test_a_describe_call_outside_a_test_file_is_no_node(tools):
    assert _children(tools, "web/src/scheduler.ts") == [("function function", "nextTick", 5),
                                                        ("function function", "queueJob", 1)]
    assert _children(tools, "web/src/docs.ts") == []


def test_a_block_calls_what_its_body_calls_not_its_runner(tools):
    """H1: no block records its own head (``test(``, ``it.each(…)(``), nor a nested block's, and a
    ``.d.ts`` stub of the runner's globals is no call target by its name alone (vue: 2,815 blocks
    "called" ``dts-test/utils.d.ts::test``); an import that binds it still reaches it."""
    t, sid = tools
    spec = "web/__tests__/parse.spec.ts"
    for target in (f"{spec}::compiler: parse.table %i", f"{spec}::compiler: parse"):
        called = t.walk(sid, target, edges=["calls"], page_size=10).items
        assert [(i.path, i.qualname) for i in called] == ([("web/src/parse.ts", "baseParse")]
                                                          if "table" in target else [])
    called = t.walk(sid, "web/__tests__/scheduler.spec.ts::scheduler.queueJob", edges=["calls"], page_size=10).items
    assert called == []                         # describe(, it(, it.each(…)(, test.only(: heads, no calls
    callers = t.walk(sid, "types/dts-test/utils.d.ts::test", edges=["calls"], direction="in", page_size=50).items
    assert [(i.path, i.qualname) for i in callers] == [("types/dts-test/ref.ts", "")]
    callers = t.walk(sid, "types/dts-test/utils.d.ts::describe", edges=["calls"], direction="in", page_size=50).items
    assert callers == []


def test_a_title_is_its_printed_value(tools):
    """L1: ``'lonely "<" doesn\\'t separate nodes'`` is found as Vitest prints it."""
    assert _at(tools, "web/__tests__/parse.spec.ts::compiler: parse.lonely \"<\" doesn't separate nodes") == (
        "function test", "compiler: parse.lonely \"<\" doesn't separate nodes")
    assert _at(tools, "web/__tests__/parse.spec.ts:5")[1] == "compiler: parse.lonely \"<\" doesn't separate nodes"
