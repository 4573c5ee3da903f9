"""A pasted Vitest failure and a sanitizer's stack lead with their innermost frame (session 33 probe).

Vitest prints ``❯ queuePostFlushCb packages/runtime-core/src/scheduler.ts:137:24``, innermost first, and
AddressSanitizer ``#0 0x55d1c2 in leveldb::Table::BlockReader(void*, ...) /src/table/table.cc:170:20``,
frame #0 where it crashed. Both were read as bare ``path:LINE`` places, which Python prints outermost
first: search listed the spec file (the ASan test body) first and the crashing function last, and the
function a frame names was never read, so a frame whose line moved was not found by its name. gdb's
``bt`` stays innermost first. A real git repository (a TypeScript tree and a C++ tree), the real index
job, the real Tools, and the CLI reading a paste on standard input.
"""

from __future__ import annotations

import io
import json

import pytest

from stratum.tracebacks import FRAME_WHY
from tests.tbframes import frame_items

pytestmark = pytest.mark.slow

SCHEDULER_TS = """export type Job = () => void

const pending: Job[] = []

export function queuePostFlushCb(cb: Job | Job[]): void {
  if (Array.isArray(cb)) {
    pending.push(...cb)
  } else {
    pending.push(cb)
  }
}

export function flushPostFlushCbs(): void {
  const cbs = pending.splice(0)
  for (const cb of cbs) {
    queuePostFlushCb(cb)
  }
}

export function flushJobs(): void {
  flushPostFlushCbs()
}

export function nextTick(): Promise<void> {
  return Promise.resolve().then(flushJobs)
}
"""

SPEC_TS = """import { describe, expect, it } from 'vitest'
import { nextTick, queuePostFlushCb } from '../src/scheduler'

describe('scheduler', () => {
  it('should not overflow the stack with many post cbs', async () => {
    const cbs = []
    for (let i = 0; i < 100000; i++) {
      cbs.push(() => {})
    }
    queuePostFlushCb(cbs)
    await nextTick()
    expect(cbs.length).toBe(100000)
  })
})
"""

TS_FILES: dict[str, str | bytes] = {
    "packages/runtime-core/src/scheduler.ts": SCHEDULER_TS,
    "packages/runtime-core/__tests__/scheduler.spec.ts": SPEC_TS,
    "packages/runtime-core/package.json": '{"name": "@vue/runtime-core"}\n',
}

TABLE_H = """#ifndef STORAGE_LEVELDB_TABLE_H_
#define STORAGE_LEVELDB_TABLE_H_

namespace leveldb {

class Table {
 public:
  static Iterator* BlockReader(void* arg, const ReadOptions& options);
  Status InternalGet(const ReadOptions& options, const Slice& k);
};

}  // namespace leveldb

#endif
"""

TABLE_CC = """#include "table/table.h"

namespace leveldb {

Iterator* Table::BlockReader(void* arg, const ReadOptions& options) {
  Table* table = reinterpret_cast<Table*>(arg);
  return table->NewIterator(options);
}

Status Table::InternalGet(const ReadOptions& options, const Slice& k) {
  Iterator* it = BlockReader(this, options);
  it->Seek(k);
  return it->status();
}

}  // namespace leveldb
"""

DB_TEST_CC = """#include "gtest/gtest.h"
#include "table/table.h"

namespace leveldb {

class DBTest : public testing::Test {
 public:
  std::string Get(const std::string& k) {
    Table* t = OpenTable();
    return t->InternalGet(ReadOptions(), k).ToString();
  }
};

TEST_F(DBTest, GetFromImmutableLayer) {
  ASSERT_EQ("v1", Get("foo"));
}

}  // namespace leveldb
"""

CPP_FILES: dict[str, str | bytes] = {"table/table.h": TABLE_H, "table/table.cc": TABLE_CC, "db/db_test.cc": DB_TEST_CC}


def _line(text: str, needle: str) -> int:
    return next(i for i, s in enumerate(text.splitlines(), 1) if needle in s)


VITEST = f""" FAIL  packages/runtime-core/__tests__/scheduler.spec.ts > scheduler > should not overflow the stack
RangeError: Maximum call stack size exceeded
 ❯ queuePostFlushCb packages/runtime-core/src/scheduler.ts:{_line(SCHEDULER_TS, "pending.push(...cb)")}:13
 ❯ flushPostFlushCbs packages/runtime-core/src/scheduler.ts:{_line(SCHEDULER_TS, "queuePostFlushCb(cb)")}:5
 ❯ flushJobs packages/runtime-core/src/scheduler.ts:{_line(SCHEDULER_TS, "  flushPostFlushCbs()")}:3
 ❯ packages/runtime-core/__tests__/scheduler.spec.ts:{_line(SPEC_TS, "await nextTick()")}:5
     11|     await nextTick()
       |     ^

 Test Files  1 failed (1)
"""

BLOCK_LINE = _line(TABLE_CC, "reinterpret_cast")
GET_LINE = _line(TABLE_CC, "it->Seek(k)")
ASAN = f"""[ RUN      ] DBTest.GetFromImmutableLayer
==31245==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000012345 at pc 0x55d1c2
READ of size 8 at 0x602000012345 thread T0
    #0 0x55d1c2 in leveldb::Table::BlockReader(void*, leveldb::ReadOptions const&) /home/dev/leveldb/table/table.cc:{BLOCK_LINE}:20
    #1 0x55d3a1 in leveldb::Table::InternalGet(leveldb::ReadOptions const&, leveldb::Slice const&) /home/dev/leveldb/table/table.cc:{GET_LINE}:7
    #2 0x4c21aa in leveldb::DBTest::Get(std::string const&) /home/dev/leveldb/db/db_test.cc:{_line(DB_TEST_CC, 'TEST_F(')}:12
    #3 0x4c9912 in leveldb::DBTest_GetFromImmutableLayer_Test::TestBody() /home/dev/leveldb/db/db_test.cc:{_line(DB_TEST_CC, 'ASSERT_EQ')}:3
    #4 0x7f0011 in main /home/dev/leveldb/third_party/googletest/googlemock/src/gmock_main.cc:70:10
    #5 0x7f0099 in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x21b96)
"""     # frame #2's line is the TEST_F's (an older build): its function names DBTest::Get

GDB = f"""Thread 1 "db_test" received signal SIGSEGV, Segmentation fault.
(gdb) bt
#0  0x000055555558d1c2 in leveldb::Table::BlockReader (arg=0x0, options=...) at /home/dev/leveldb/table/table.cc:{BLOCK_LINE}
#1  0x000055555558d3a1 in leveldb::Table::InternalGet (this=0x5555, options=..., k=...) at /home/dev/leveldb/table/table.cc:{GET_LINE}
#2  0x00005555554c9912 in leveldb::DBTest_GetFromImmutableLayer_Test::TestBody (this=0x5555) at /home/dev/leveldb/db/db_test.cc:{_line(DB_TEST_CC, 'ASSERT_EQ')}
"""


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("s33tb"), {**TS_FILES, **CPP_FILES}, "a scheduler, a table, tests") as got:
        yield got


def test_a_vitest_failure_leads_with_its_innermost_frame(tools):
    t, s = tools
    src = "packages/runtime-core/src/scheduler.ts"
    got = frame_items(t.search(s, VITEST, page_size=6).items)
    assert got == [
        (f"{src}::queuePostFlushCb", f"traceback frame: {src}:{_line(SCHEDULER_TS, 'pending.push(...cb)')} in queuePostFlushCb"),
        (f"{src}::flushPostFlushCbs", f"traceback frame: {src}:{_line(SCHEDULER_TS, 'queuePostFlushCb(cb)')} in flushPostFlushCbs"),
        (f"{src}::flushJobs", f"traceback frame: {src}:{_line(SCHEDULER_TS, '  flushPostFlushCbs()')} in flushJobs"),
        # the spec's frame names the test block around its line (pipeline.testblocks: it() is a node)
        ("packages/runtime-core/__tests__/scheduler.spec.ts::scheduler.should not overflow the stack with many post cbs",
         f"traceback frame: packages/runtime-core/__tests__/scheduler.spec.ts:{_line(SPEC_TS, 'await nextTick()')}"),
    ]


def test_the_cli_reading_a_vitest_failure_on_stdin_lists_the_innermost_frame_first(tools, capsys, monkeypatch):
    from tests.clirun import run

    t, _ = tools
    store = str(next(iter(t.memory)).store.root)
    monkeypatch.setattr("sys.stdin", io.StringIO(VITEST))
    rc, out, err = run(capsys, "search", "-", "--store", store, "--json")
    assert rc == 0, err
    items = json.loads(out)["items"]
    assert items[0]["qualname"] == "queuePostFlushCb" and items[0]["why"].startswith(FRAME_WHY), items[0]


def test_an_asan_stack_leads_with_frame_zero_and_reads_each_frames_function(tools):
    t, s = tools
    got = frame_items(t.search(s, ASAN, page_size=8).items)
    assert got == [
        ("table/table.cc::leveldb.Table.BlockReader", f"traceback frame: table/table.cc:{BLOCK_LINE} in BlockReader"),
        ("table/table.cc::leveldb.Table.InternalGet", f"traceback frame: table/table.cc:{GET_LINE} in InternalGet"),
        # its line is in the test body, its function is DBTest::Get: the name decides
        ("db/db_test.cc::leveldb.DBTest.Get",
         f"traceback frame: db/db_test.cc:{_line(DB_TEST_CC, 'TEST_F(')} in Get"),
        ("db/db_test.cc::leveldb.DBTest.DBTest_GetFromImmutableLayer_Test",
         f"traceback frame: db/db_test.cc:{_line(DB_TEST_CC, 'ASSERT_EQ')} in DBTest.DBTest_GetFromImmutableLayer_Test"),
    ]
    # with the report's summary line too: the same frames in the same order
    summary = (f"\nSUMMARY: AddressSanitizer: heap-use-after-free /home/dev/leveldb/table/table.cc:{BLOCK_LINE}:20 "
               "in leveldb::Table::BlockReader(void*, leveldb::ReadOptions const&)\n")
    assert frame_items(t.search(s, ASAN + summary, page_size=8).items) == got


def test_a_gdb_backtrace_stays_innermost_first(tools):
    t, s = tools
    got = frame_items(t.search(s, GDB, page_size=5).items)
    assert [p for p, _ in got] == ["table/table.cc::leveldb.Table.BlockReader", "table/table.cc::leveldb.Table.InternalGet",
                                   "db/db_test.cc::leveldb.DBTest.DBTest_GetFromImmutableLayer_Test"]
    assert got[0][1] == f"traceback frame: table/table.cc:{BLOCK_LINE} in BlockReader"
