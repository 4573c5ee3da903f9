"""stratum.traceframes: stacks printed innermost first are read so, with their functions' names (a
probe, session 33: a Vitest ``❯ f path:L:C`` stack and an AddressSanitizer ``#0 0x... in ns::C::f(...)
path:L:C`` one were read as bare places, outermost first, no name). The search over a real index is in
tests/integration/test_s33_native_vitest_frames.py."""

from __future__ import annotations

import time

from stratum.tracebacks import Frame, frames
from stratum.traceframes import native_name

VITEST = """ FAIL  packages/runtime-core/__tests__/scheduler.spec.ts > scheduler > should not overflow
RangeError: Maximum call stack size exceeded
 ❯ queuePostFlushCb packages/runtime-core/src/scheduler.ts:137:24
 ❯ Object.flushPostFlushCbs packages/runtime-core/src/scheduler.ts:187:5
 ❯ async flushJobs packages/runtime-core/src/scheduler.ts:280:5
 ❯ packages/runtime-core/__tests__/scheduler.spec.ts:320:7
    318|       }
    320|       await nextTick()
       |       ^
"""

ASAN = """==31245==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000012345 at pc 0x55d1c2
READ of size 8 at 0x602000012345 thread T0
    #0 0x55d1c2 in leveldb::Table::BlockReader(void*, leveldb::ReadOptions const&) /home/dev/leveldb/table/table.cc:170:20
    #1 0x55d3a1 in leveldb::Table::InternalGet(leveldb::ReadOptions const&, void (*)(void*)) table/table.cc:225:26
    #2 0x4c9912 in leveldb::DBTest_GetFromImmutableLayer_Test::TestBody() /home/dev/leveldb/db/db_test.cc:630:5
    #3 0x5b7e11 in void testing::internal::Handle<testing::Test, void>(testing::Test*, char const*) /g/gtest.cc:2670:12
    #4 0x7f0011 in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x21b96)

0x602000012345 is located 0 bytes inside of 16-byte region
freed by thread T0 here:
    #0 0x4f00aa in operator delete(void*) (/home/dev/leveldb/build/db_test+0x4f00aa)
    #1 0x55e011 in leveldb::TableCache::Evict(unsigned long) /home/dev/leveldb/db/table_cache.cc:118:3

SUMMARY: AddressSanitizer: heap-use-after-free /home/dev/leveldb/table/table.cc:170:20 in leveldb::Table::BlockReader(void*)
"""


def test_a_vitest_stack_is_innermost_first_with_its_functions():
    assert frames(VITEST) == [
        Frame("packages/runtime-core/src/scheduler.ts", 137, "queuePostFlushCb"),
        Frame("packages/runtime-core/src/scheduler.ts", 187, "flushPostFlushCbs"),
        Frame("packages/runtime-core/src/scheduler.ts", 280, "flushJobs"),
        Frame("packages/runtime-core/__tests__/scheduler.spec.ts", 320, ""),     # an anonymous test function
    ]


def test_a_sanitizer_report_is_innermost_first_stack_by_stack():
    assert frames(ASAN) == [
        Frame("/home/dev/leveldb/table/table.cc", 170, "BlockReader"),
        Frame("table/table.cc", 225, "InternalGet"),
        Frame("/home/dev/leveldb/db/db_test.cc", 630, "DBTest.DBTest_GetFromImmutableLayer_Test"),   # as the parser names TEST_F
        Frame("/g/gtest.cc", 2670, "Handle"),
        Frame("/home/dev/leveldb/db/table_cache.cc", 118, "Evict"),     # then the stack that freed it
    ]
    # without the stack, the summary line still names the crash's place and function
    summary = ASAN.rsplit("\n\n", 1)[1]
    assert frames(summary) == [Frame("/home/dev/leveldb/table/table.cc", 170, "BlockReader")]


def test_ubsan_names_its_place_before_its_stack_and_the_stack_names_the_function():
    q = ("/src/util/hash.cc:30:15: runtime error: applying non-zero offset 4 to null pointer\n"
         "SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior /src/util/hash.cc:30:15 in\n"
         "    #0 0x55d1c2 in leveldb::Hash(char const*, unsigned long, unsigned int) /src/util/hash.cc:30:15\n"
         "    #1 0x55a0f3 in leveldb::HASH_SignedUnsignedIssue_Test::TestBody() /src/util/hash_test.cc:21:3\n")
    assert frames(q) == [Frame("/src/util/hash.cc", 30, "Hash"), Frame("/src/util/hash_test.cc", 21, "HASH.HASH_SignedUnsignedIssue_Test")]
    tsan = "SUMMARY: ThreadSanitizer: data race /src/cache.cc:12:3 in leveldb::LRUCache::Insert(int)\n"
    assert frames(tsan) == [Frame("/src/cache.cc", 12, "Insert")]


def test_a_gdb_backtrace_stays_innermost_first_and_now_names_its_functions():
    q = ("Thread 1 received signal SIGSEGV, Segmentation fault.\n"
         "0x000055555558d1c2 in leveldb::Table::BlockReader (arg=0x0, options=...) at /src/table/table.cc:170\n"
         "(gdb) bt\n"
         "#0  0x000055555558d1c2 in leveldb::Table::BlockReader (arg=0x0, options=...) at /src/table/table.cc:170\n"
         "#1  leveldb::Table::InternalGet (this=0x5555, k=\"a(b\") at /src/table/table.cc:225\n"
         "#2  0x00007ffff7829d90 in __libc_start_call_main () from /lib/x86_64-linux-gnu/libc.so.6\n"
         "#3  0x00005555554c9912 in std::vector<int, std::allocator<int> >::push_back (this=0x1) at /src/v.h:12\n")
    assert frames(q) == [Frame("/src/table/table.cc", 170, "BlockReader"), Frame("/src/table/table.cc", 225, "InternalGet"),
                         Frame("/src/v.h", 12, "push_back")]


def test_native_names_as_the_index_names_definitions():
    assert native_name("leveldb::Table::BlockReader(void*, leveldb::ReadOptions const&)") == "BlockReader"
    assert native_name("void testing::internal::Run<testing::Test, std::pair<int, int> >(testing::Test*)") == "Run"
    assert native_name("(anonymous namespace)::Worker::Start() const") == "Start"
    assert native_name("leveldb::DBTest::Fill()::$_0::operator()() const") == "Fill"      # a lambda: its function
    assert native_name("leveldb::Cache::~Cache()") == "~Cache"
    assert native_name("leveldb::Slice::operator==(leveldb::Slice const&)") == ""
    assert native_name("??") == "" and native_name("") == ""
    assert native_name("main") == "main"


def test_lines_that_only_look_numbered_are_no_frames():
    assert frames("#1 see src/cart.py:12 for the cause\n") == [Frame("src/cart.py", 12, "")]     # a bare place
    assert frames("Fixes #12: the price\n#3 0xdead (/bin/app+0x1)\n") == []
    assert frames("❯ pnpm test\n❯ vitest run src\n") == []


def test_a_go_goroutines_creator_is_its_outermost_frame():
    go = ("panic: boom\n\ngoroutine 34 [running]:\nmain.worker.func1.2()\n\t/src/app/main.go:20 +0x1d\n"
          "main.worker()\n\t/src/app/main.go:12 +0x2a\ncreated by main.start in goroutine 1\n\t/src/app/main.go:30 +0x5d\n")
    assert frames(go) == [Frame("/src/app/main.go", 20, ""), Frame("/src/app/main.go", 12, "worker"),
                          Frame("/src/app/main.go", 30, "start")]


def test_long_native_and_vitest_lines_read_in_linear_time():
    for q in ("    #0 0x1 in " + "a(" * 15000 + " x.cc:1\n", "❯ " + "a" * 30000 + " x.ts:1:1\n",
              "SUMMARY: AddressSanitizer: " + "a " * 15000 + "x.cc:1:1\n", "    #0 0x1 in " + "<" * 30000 + "\n"):
        start = time.perf_counter()
        frames(q)
        assert time.perf_counter() - start < 1.0
