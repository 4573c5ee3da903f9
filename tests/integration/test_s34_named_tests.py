"""A test's name in a search leads to its node (session 33 probe findings 1 and 2).

Tests written as calls (``rgtest!(r1159_invalid_flag, ...)``, Vitest ``describe``/``it`` blocks) are kept
out of the search lists (``textprep.searched``: their titles crowded "where is X" questions), so
``search r1159_invalid_flag`` on ripgrep, an agent's first search after ``cargo test`` failed, no longer
found the test, nor did a pasted Vitest ``FAIL  path > suite > test`` header (``stratum.testnames``).
A typed name, a runner's header, cargo's lines now lead to the block; a prose query, a title many tests
share, and a name searched code has (a describe named after its function) do not. A real git
repository (a TypeScript package with a spec file, a Rust crate with macro-defined tests), the real
index job and the real Tools.
"""

from __future__ import annotations

import pytest

from stratum.testnames import TEST_WHY

pytestmark = pytest.mark.slow

SCHEDULER_TS = """export type Job = () => void

const queue: Job[] = []

/** Queue a job to run before the next render. */
export function queueJob(job: Job): void {
  queue.push(job)
}

export function flushJobs(): void {
  for (const job of queue.splice(0)) {
    job()
  }
}
"""

SPEC_TS = """import { describe, expect, it } from 'vitest'
import { flushJobs, queueJob } from '../src/scheduler'

describe('scheduler', () => {
  describe('queueJob', () => {
    it('basic usage', () => {
      const calls: string[] = []
      queueJob(() => calls.push('a'))
      flushJobs()
      expect(calls).toEqual(['a'])
    })

    it("lonely job doesn't run twice", () => {
      queueJob(() => {})
      flushJobs()
    })

    it('works', () => { flushJobs() })
  })

  describe('flushJobs', () => {
    it('works', () => { flushJobs() })
    it('empties the queue', () => { flushJobs() })
  })

  describe('nextTick', () => {
    it('works', () => { flushJobs() })
  })

  describe('postFlush', () => {
    it('works', () => { flushJobs() })
  })
})
"""

MACROS_RS = """#[macro_export]
macro_rules! rgtest {
    ($name:ident, $fun:expr) => {
        #[test]
        fn $name() {
            $fun(crate::util::Dir::new(stringify!($name)));
        }
    };
}
"""

REGRESSION_RS = """use crate::util::Dir;

// See: https://github.com/BurntSushi/ripgrep/issues/1159
rgtest!(r1159_invalid_flag, |dir: Dir| {
    dir.run(&["--wat"]).assert_exit_code(2);
});

rgtest!(r1163, |dir: Dir| {
    dir.run(&["^test123"]).assert_exit_code(0);
});

rgtest!(r1164, |dir: Dir| {
    dir.run(&["-e"]).assert_exit_code(2);
});
"""

UTIL_RS = """pub struct Dir { name: String }

impl Dir {
    pub fn new(name: &str) -> Dir { Dir { name: name.to_string() } }
    pub fn run(&self, args: &[&str]) -> Output { Output { code: args.len() as i32 } }
}

pub struct Output { code: i32 }

impl Output {
    pub fn assert_exit_code(&self, want: i32) { assert_eq!(self.code, want); }
}
"""

SPEC = "packages/runtime-core/__tests__/scheduler.spec.ts"
FILES: dict[str, str | bytes] = {
    "packages/runtime-core/package.json": '{"name": "@vue/runtime-core"}\n',
    "packages/runtime-core/src/scheduler.ts": SCHEDULER_TS,
    SPEC: SPEC_TS,
    "Cargo.toml": '[package]\nname = "rg"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub fn search() {}\n",
    "tests/macros.rs": MACROS_RS,
    "tests/util.rs": UTIL_RS,
    "tests/regression.rs": REGRESSION_RS,
    "tests/tests.rs": "#[macro_use]\nmod macros;\nmod util;\nmod regression;\n",
}

R1159 = "tests/regression.rs::r1159_invalid_flag"
BASIC = f"{SPEC}::scheduler.queueJob.basic usage"


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("s34named"), FILES, "a scheduler, a crate, their tests") as got:
        yield got


def _first(tools, query: str, page_size: int = 5):
    t, s = tools
    items = t.search(s, query, page_size=page_size).items
    return [(f"{i.path}::{i.qualname}", i.why.split(";")[0]) for i in items]


def _tests(items) -> list[str]:
    return [n for n, why in items if why.startswith(TEST_WHY)]


def test_a_rust_test_found_by_its_name(tools):
    assert _first(tools, "r1159_invalid_flag")[0] == (R1159, f"{TEST_WHY}r1159_invalid_flag")
    # cargo prints it with its module path
    assert _first(tools, "regression::r1159_invalid_flag")[0] == (R1159, f"{TEST_WHY}r1159_invalid_flag")


def test_cargo_failure_lines_lead_to_the_test(tools):
    paste = ("running 3 tests\ntest regression::r1163 ... ok\ntest regression::r1159_invalid_flag ... FAILED\n\n"
             "failures:\n\n---- regression::r1159_invalid_flag stdout ----\nthread 'regression::r1159_invalid_flag' "
             "panicked:\nassertion `left == right` failed\n  left: 1\n right: 2\n")
    assert _tests(_first(tools, paste)) == [R1159]


def test_a_vitest_header_leads_to_its_block(tools):
    header = (f" FAIL  {SPEC} > scheduler > queueJob > basic usage\n"
              "AssertionError: expected [ 'a', 'a' ] to deeply equal [ 'a' ]\n")
    assert _first(tools, header)[0] == (BASIC, f"{TEST_WHY}scheduler.queueJob.basic usage")
    # the path as Vitest prints it from the package's folder; a title as printed (not as escaped in source)
    lonely = " FAIL  __tests__/scheduler.spec.ts > scheduler > queueJob > lonely job doesn't run twice\nAssertionError: x\n"
    assert _tests(_first(tools, lonely)) == [f"{SPEC}::scheduler.queueJob.lonely job doesn't run twice"]


def test_a_jest_header_and_a_typed_title_path_lead_to_the_block(tools):
    assert _tests(_first(tools, "  ● scheduler › queueJob › basic usage\n\n    expect(received).toEqual(expected)\n")) == [BASIC]
    assert _tests(_first(tools, "scheduler > queueJob > basic usage")) == [BASIC]
    assert _tests(_first(tools, "scheduler.queueJob.basic usage")) == [BASIC]


def test_a_vitest_failure_with_frames_lists_the_frames_then_the_test(tools):
    line = SPEC_TS.splitlines().index("      flushJobs()") + 1
    paste = (f" FAIL  {SPEC} > scheduler > flushJobs > empties the queue\nTypeError: job is not a function\n"
             f" ❯ flushJobs packages/runtime-core/src/scheduler.ts:12:5\n ❯ {SPEC}:{line}:7\n")
    got = _first(tools, paste)
    assert got[0][0] == "packages/runtime-core/src/scheduler.ts::flushJobs"
    assert got[1][0] == BASIC      # the spec frame's line is in basic usage (the frame says so)
    assert got[2] == (f"{SPEC}::scheduler.flushJobs.empties the queue", f"{TEST_WHY}scheduler.flushJobs.empties the queue")


def test_prose_common_titles_and_code_names_are_not_read_as_tests(tools):
    # a title typed as prose is a question about the code (the reason test blocks are unsearched)
    assert _tests(_first(tools, "basic usage")) == []
    # four tests titled 'works': no pointer
    assert _tests(_first(tools, "works")) == []
    # the describe block named after the function: the function leads, the block is not placed
    got = _first(tools, "queueJob")
    assert got[0][0] == "packages/runtime-core/src/scheduler.ts::queueJob" and _tests(got) == []
