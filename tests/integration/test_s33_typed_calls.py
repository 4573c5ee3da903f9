"""Calls through what a variable holds, as a user walks them, on a real repository through the
real index job:

- C++: ``Foo x;``, ``const Foo& other``, ``auto p = std::make_unique<Foo>()``, ``Foo* t = new
  Foo()`` and a member declared in the class body in a header (``Ledger* const ledger_;``,
  ``detail::Box<int> box_;``) used in the class's out-of-line methods in a .cc link ``x.m()`` /
  ``p->m()`` to that class's ``m``, at its definition in the .cc; an unrelated class's method of
  the same name is not linked; a ``std::`` type's method (``v.clear()``) is no method of ours.
  A call on an expression (``CurrentLedger()->Flush()``) reaches the repository's one ``Flush``:
  its header declaration and its .cc definition are one method, not two (every method defined
  out of line was ruled out);
- Go: ``rootCmd := c.Root()`` with ``Root`` in another file of the package types ``rootCmd`` as
  what ``Root`` returns, the receiver ``c`` read as the own object (cobra's ``getCompletions``
  was no caller of ``Command.Find``).
"""

from __future__ import annotations

import pytest

from tests.callwalk import indexed, walk_calls

pytestmark = pytest.mark.slow

FILES = {
    "cc/ledger.h": ("#pragma once\nnamespace shop {\nclass Ledger {\n public:\n  int Record(int amount);\n"
                    "  void Flush();\n  void clear();\n};\n}  // namespace shop\n"),
    "cc/ledger.cc": ("#include \"ledger.h\"\nnamespace shop {\nint Ledger::Record(int amount) { return amount; }\n"
                     "void Ledger::Flush() {}\n}  // namespace shop\n"),
    "cc/misc.h": ("#pragma once\nnamespace misc {\nclass Tally {\n public:\n  int Total() const { return 0; }\n"
                  "  void Add(int x) { (void)x; }\n  int Get() const { return 1; }\n"
                  "  int Record(int amount) { return amount; }\n};\n}  // namespace misc\n"),
    "cc/store.h": ("#pragma once\n#include <vector>\nnamespace shop {\nclass Ledger;\nnamespace detail {\n"
                   "template <typename T>\nclass Box {\n public:\n  T Get() const;\n"
                   "  void Put(const T& v) { v_ = v; }\n private:\n  T v_;\n};\n}  // namespace detail\n\n"
                   "class MemStore {\n public:\n  int Total() const;\n  void Add(int x);\n"
                   "  void Merge(const MemStore& other);\n private:\n  detail::Box<int> box_;\n"
                   "  Ledger* const ledger_;\n};\nLedger* CurrentLedger();\n}  // namespace shop\n"),
    "cc/store.cc": ("#include \"store.h\"\n#include \"ledger.h\"\n#include \"misc.h\"\nnamespace shop {\n"
                    "template <typename T>\nT detail::Box<T>::Get() const { return v_; }\n\n"
                    "int MemStore::Total() const { return box_.Get(); }\n\n"        # 8
                    "void MemStore::Add(int x) {\n"
                    "  box_.Put(box_.Get() + x);\n"                                 # 11
                    "  ledger_->Record(x);\n}\n\n"                                  # 12
                    "void MemStore::Merge(const MemStore& other) {\n"
                    "  Add(other.Total());\n"                                       # 16
                    "  misc::Tally t;\n  t.Add(1);\n"                               # 18
                    "  std::vector<int> v;\n  v.clear();\n}\n\n"                    # 20
                    "Ledger* CurrentLedger() { return nullptr; }\n}  // namespace shop\n"),
    "cc/flush.cc": ("#include \"store.h\"\n#include \"ledger.h\"\n\n"
                    "void FlushAll() { shop::CurrentLedger()->Flush(); }\n"),       # 4
    "cc/store_test.cc": ("#include <memory>\n#include \"store.h\"\n#include \"misc.h\"\n\nint main() {\n"
                         "  shop::MemStore s;\n  s.Add(2);\n"                        # 7
                         "  auto p = std::make_unique<shop::MemStore>();\n  p->Total();\n"    # 9
                         "  misc::Tally* t = new misc::Tally();\n"
                         "  return t->Total() + s.Total();\n}\n"),                   # 11
    "go.mod": "module example.com/cli\n\ngo 1.22\n",
    "cmd/command.go": ("package cmd\n\n// Command is a command.\ntype Command struct {\n\tparent *Command\n}\n\n"
                       "// Root is the root command.\nfunc (c *Command) Root() *Command {\n\tif c.parent != nil {\n"
                       "\t\treturn c.parent.Root()\n\t}\n\treturn c\n}\n\n"
                       "// Find finds a subcommand.\nfunc (c *Command) Find(name string) *Command {\n\treturn c\n}\n"),
    "cmd/index.go": ("package cmd\n\n// Index finds commands too.\ntype Index struct{}\n\n"
                     "// Find finds one.\nfunc (i *Index) Find(name string) *Command {\n\treturn nil\n}\n"),
    "cmd/completions.go": ("package cmd\n\nfunc (c *Command) getCompletions(args []string) *Command {\n"
                           "\trootCmd := c.Root()\n"                                  # 4
                           "\treturn rootCmd.Find(args[0])\n}\n"),                    # 5
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    yield from indexed(tmp_path_factory.mktemp("s33typed"), FILES)


def test_cpp_members_declared_in_the_header_type_the_out_of_line_methods_calls(tools):
    assert walk_calls(tools, "cc/store.cc::shop.MemStore.Total") == [
        ("cc/store.cc::shop.detail.Box.Get", "box_.Get", "attribute's class, its definition", 8)]
    assert walk_calls(tools, "cc/store.cc::shop.MemStore.Add") == [
        ("cc/ledger.cc::shop.Ledger.Record", "ledger_.Record", "attribute's class, its definition", 12),
        ("cc/store.cc::shop.detail.Box.Get", "box_.Get", "attribute's class, its definition", 11),
        ("cc/store.h::shop.detail.Box.Put", "box_.Put", "attribute's class", 11)]
    # Record, Get: misc::Tally has them too, and it is not what ledger_ and box_ hold
    assert walk_calls(tools, "cc/misc.h::misc.Tally.Record", "in") == []
    assert walk_calls(tools, "cc/misc.h::misc.Tally.Get", "in") == []


def test_cpp_locals_and_parameters_link_through_their_type(tools):
    assert walk_calls(tools, "cc/store.cc::shop.MemStore.Merge") == [
        ("cc/misc.h::misc.Tally.Add", "t.Add", "variable's class", 18),
        ("cc/store.cc::shop.MemStore.Add", "Add", "own class, its definition", 16),
        ("cc/store.cc::shop.MemStore.Total", "other.Total", "variable's class, its definition", 16)]
    # s.Total (line 11) and p->Total() are one edge, its first call written
    assert walk_calls(tools, "cc/store_test.cc::main") == [
        ("cc/misc.h::misc.Tally", "misc.Tally", "qualified name", 10),
        ("cc/misc.h::misc.Tally.Total", "t.Total", "variable's class", 11),
        ("cc/store.cc::shop.MemStore.Add", "s.Add", "variable's class, its definition", 7),
        ("cc/store.cc::shop.MemStore.Total", "p.Total", "variable's class, its definition", 9)]
    # who calls the out-of-line MemStore::Add: the test (s.Add) and Merge, not Tally's callers
    assert walk_calls(tools, "cc/store.cc::shop.MemStore.Add", "in") == [
        ("cc/store.cc::shop.MemStore.Merge", "Add", "own class, its definition", 16),
        ("cc/store_test.cc::main", "s.Add", "variable's class, its definition", 7)]
    assert walk_calls(tools, "cc/misc.h::misc.Tally.Add", "in") == [
        ("cc/store.cc::shop.MemStore.Merge", "t.Add", "variable's class", 18)]


def test_cpp_a_header_declaration_and_its_definition_are_one_method_and_std_is_not_ours(tools):
    # CurrentLedger()->Flush(): no type is read; the one Flush (declared in ledger.h, defined in ledger.cc)
    assert walk_calls(tools, "cc/flush.cc::FlushAll") == [
        ("cc/ledger.cc::shop.Ledger.Flush", "?.Flush", "method name, its definition", 4),
        ("cc/store.cc::shop.CurrentLedger", "shop.CurrentLedger", "qualified name, its definition", 4)]
    # std::vector<int> v; v.clear(): not Ledger::clear, the repository's only clear
    assert walk_calls(tools, "cc/ledger.h::shop.Ledger.clear", "in") == []


def test_go_a_variable_set_from_the_receivers_method_in_another_file(tools):
    assert walk_calls(tools, "cmd/completions.go::Command.getCompletions") == [
        ("cmd/command.go::Command.Find", "rootCmd.Find", "variable's class", 5),
        ("cmd/command.go::Command.Root", "c.Root", "own class", 4)]
    assert ("cmd/completions.go::Command.getCompletions", "rootCmd.Find", "variable's class", 5) in \
        walk_calls(tools, "cmd/command.go::Command.Find", "in")
    assert walk_calls(tools, "cmd/index.go::Index.Find", "in") == []
