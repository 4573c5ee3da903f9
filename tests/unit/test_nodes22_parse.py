"""Nodes the parse missed or merged in Go, TypeScript, Rust and Java (probes of session 22), read off
``parse_file``'s records as the index stores them: a TS class member's decorators and the JSDoc above
them, ``type X = ...`` and Go named types, Rust impl blocks of a type defined elsewhere and blanket
impls, ``macro_rules!``, Java anonymous classes held by fields, and the link step that hangs a Go
type's methods from other files of its package under it (``pipeline.gopackage``)."""

from __future__ import annotations

import json

from pipeline.gopackage import OWN, package_methods
from pipeline.parse import definition_spans, parse_file


def _nodes(path: str, src: str) -> dict[str, dict]:
    return {n["qualname"]: n for n in parse_file("r", path, src.encode()).nodes if n["kind"] != "file"}


def _parent(nodes: dict[str, dict], qual: str) -> str:
    ids = {n["id"]: q for q, n in nodes.items()}
    return ids.get(nodes[qual]["parent_id"], "<file>")


WIDGET = (
    "/** A widget. */\n"                     # 1
    "@Component({ selector: 'x' })\n"
    "export class Widget {\n"
    "  /** Click handler. */\n"
    "  @HostListener('click')\n"             # 5
    "  onClick() { return 1; }\n"
    "\n"
    "  /** Keys. */\n"
    "  @HostListener('keydown')\n"           # 9
    "  @HostListener('keyup')\n"
    "  onKey() { return 2; }\n"
    "}\n")


def test_a_ts_class_members_decorators_and_the_doc_above_them_are_the_members():
    got = _nodes("src/widget.ts", WIDGET)
    key = got["Widget.onKey"]
    assert (key["start_line"], key["end_line"]) == (9, 11)          # was 11-11
    assert key["full"].startswith("  @HostListener('keydown')\n  @HostListener('keyup')\n")
    assert key["doc"] == "Keys." and key["summary"].endswith("\u2014 Keys.")
    assert key["signature"] == "@HostListener('keydown') @HostListener('keyup') onKey()"
    assert (got["Widget.onClick"]["start_line"], got["Widget.onClick"]["doc"]) == (5, "Click handler.")
    assert (got["Widget"]["start_line"], got["Widget"]["doc"]) == (2, "A widget.")
    assert [q for s, e, q, k in definition_spans("src/widget.ts", WIDGET.encode()) if s <= 9 <= e] == \
        ["Widget", "Widget.onKey"]


def test_ts_type_aliases_are_type_nodes_and_their_declaration_is_their_api():
    got = _nodes("source/types/ky.ts", (
        "/** The instance. */\n"
        "export type KyInstance = {\n"
        "\t/** Get. */\n"
        "\tget: <T>(url: Input) => Promise<T>;\n"
        "};\n"
        "export type Input = string | URL | Request;\n"
        "namespace N { type Local = number; }\n"))
    inst = got["KyInstance"]
    assert (inst["kind"], inst["subkind"], inst["start_line"], inst["end_line"]) == ("class", "type", 2, 5)
    assert inst["signature"] == "export type KyInstance = {/** Get. */ get: <T>(url: Input) => Promise<T>;}"
    assert "get: <T>(url: Input) => Promise<T>;" in inst["api"] and inst["summary"].startswith("type KyInstance")
    assert got["Input"]["signature"] == "export type Input = string | URL | Request"
    assert got["N.Local"]["subkind"] == "type"


def test_a_long_type_alias_signs_with_its_head_only():
    body = "".join(f"\tfield{i}: string;\n" for i in range(30))
    got = _nodes("a.ts", f"export type Options = {{\n{body}}};\n")
    assert got["Options"]["signature"] == "export type Options"


def test_go_named_types_are_nodes_that_hold_their_methods():
    got = _nodes("completions.go", (
        "package cobra\n\n"
        "// ShellCompDirective is a bit map.\n"
        "type ShellCompDirective int\n\n"
        "// PositionalArgs checks arguments.\n"
        "type PositionalArgs func(cmd *Command, args []string) error\n\n"
        "type Alias = ShellCompDirective\n\n"
        "type (\n"
        "\t// Pricer prices.\n"
        "\tPricer interface {\n\t\tPrice() int\n\t}\n"
        "\tCents int64\n"
        ")\n\n"
        "type (\n\tOne struct {\n\t\ta int\n\t}\n)\n\n"
        "func (d ShellCompDirective) string() string { return \"\" }\n"))
    sc = got["ShellCompDirective"]
    assert (sc["kind"], sc["subkind"], sc["signature"], sc["doc"]) == \
        ("class", "type", "type ShellCompDirective int", "ShellCompDirective is a bit map.")
    assert _parent(got, "ShellCompDirective.string") == "ShellCompDirective"       # had no parent
    assert "func (d ShellCompDirective) string() string" in sc["api"]
    assert got["PositionalArgs"]["signature"] == "type PositionalArgs func(cmd *Command, args []string) error"
    assert got["Alias"]["signature"] == "type Alias = ShellCompDirective"
    assert got["Pricer"]["signature"] == "type Pricer interface"                  # grouped: was "Pricer interface"
    assert got["Cents"]["signature"] == "type Cents int64"
    assert (got["One"]["signature"], got["One"]["start_line"]) == ("type One struct", 20)      # was "type (One struct"


CONTEXT_RS = (
    "use crate::error::ContextError;\n"                             # 1
    "mod ext {\n"
    "    pub trait StdError { fn ext_context(self) -> u8; }\n"
    "    impl<E> StdError for E where E: Send {\n"                   # 4
    "        fn ext_context(self) -> u8 { 1 }\n"
    "    }\n"
    "}\n"
    "impl<C, E> Debug for ContextError<C, E> {\n"                   # 8
    "    fn fmt(&self) -> u8 { 1 }\n"
    "}\n"
    "impl<C, E> Display for ContextError<C, E>\n"                   # 11
    "where\n"
    "    C: Display,\n"
    "{\n"
    "    fn fmt(&self) -> u8 { 2 }\n"                               # 15
    "}\n")


def test_each_impl_block_of_a_type_defined_elsewhere_is_its_own_node():
    got = _nodes("src/context.rs", CONTEXT_RS)
    first, second = got["ContextError"], got["ContextError#2"]
    assert (first["subkind"], first["start_line"], first["end_line"]) == ("impl", 8, 10)
    assert (second["start_line"], second["end_line"]) == (11, 16)
    assert second["signature"].startswith("impl<C, E> Display for ContextError<C, E>")
    assert _parent(got, "ContextError.fmt") == "ContextError"           # its methods keep their names
    assert _parent(got, "ContextError.fmt#2") == "ContextError#2"       # (were both under the Debug block)
    assert "fn fmt(&self) -> u8" in second["api"]
    # the block `path::ContextError` finds says where the others are
    assert first["api"].endswith("// also ContextError#2: impl<C, E> Display for ContextError<C, E> where C: Display")
    spans = definition_spans("src/context.rs", CONTEXT_RS.encode())
    assert [q for s, e, q, _ in spans if s <= 12 <= e] == ["ContextError#2"]


def test_a_blanket_impl_is_named_by_its_trait_not_its_type_parameter():
    got = _nodes("src/context.rs", CONTEXT_RS)
    assert "ext.E" not in got
    blanket = got["ext.StdError#2"]                   # the trait keeps its own name
    assert (blanket["subkind"], blanket["name"], blanket["start_line"]) == ("impl", "StdError", 4)
    assert got["ext.StdError"]["subkind"] == "trait"
    assert _parent(got, "ext.StdError.ext_context") == "ext.StdError"           # the trait's declaration
    assert _parent(got, "ext.StdError.ext_context#2") == "ext.StdError#2"       # the impl's body


def test_macro_rules_are_function_nodes_of_subkind_macro():
    got = _nodes("src/macros.rs", (
        "/// Return early with an error.\n"
        "#[macro_export]\n"
        "macro_rules! bail {\n"
        "    ($msg:literal $(,)?) => { return Err($crate::anyhow!($msg)) };\n"
        "}\n"
        "mod inner { macro_rules! local ( () => {} ); }\n"
        "fn f() { macro_rules! hidden { () => {} } }\n"))
    bail = got["bail"]
    assert (bail["kind"], bail["subkind"], bail["start_line"], bail["end_line"]) == ("function", "macro", 2, 5)
    assert (bail["signature"], bail["doc"]) == ("macro_rules! bail", "Return early with an error.")
    assert bail["summary"] == "macro bail: macro_rules! bail \u2014 Return early with an error."
    assert got["inner.local"]["subkind"] == "macro"
    assert "hidden" not in got and "f.hidden" not in got and not json.loads(bail.get("meta") or "{}").get("decl")


def test_a_java_anonymous_class_held_by_a_field_is_a_class_with_its_methods():
    got = _nodes("TypeAdapters.java", (
        "public final class TypeAdapters {\n"
        "  /** Bit sets. */\n"
        "  public static final TypeAdapter<BitSet> BIT_SET =\n"          # 3
        "      new TypeAdapter<BitSet>() {\n"
        "        @Override\n"
        "        public BitSet read(JsonReader in) { return null; }\n"   # 6
        "        @Override\n"
        "        public void write(JsonWriter out, BitSet v) {}\n"
        "      }.nullSafe();\n"
        "  static TypeAdapter<X> make() {\n"
        "    return new TypeAdapter<X>() { public X read(JsonReader in) { return null; } };\n"
        "  }\n"
        "}\n"))
    bits = got["TypeAdapters.BIT_SET"]
    assert (bits["kind"], bits["subkind"], bits["start_line"], bits["end_line"]) == ("class", "anonymous", 3, 9)
    assert bits["signature"] == "public static final TypeAdapter<BitSet> BIT_SET = new TypeAdapter<BitSet>()"
    assert bits["summary"].startswith("anonymous class TypeAdapters.BIT_SET: ") and bits["doc"] == "Bit sets."
    assert _parent(got, "TypeAdapters.BIT_SET.read") == "TypeAdapters.BIT_SET"
    assert got["TypeAdapters.BIT_SET.write"]["start_line"] == 7
    assert "TypeAdapters.make.read" not in got and "TypeAdapters.read" not in got     # a method's stays its code


def _go(files: dict[str, str]) -> list[dict]:
    return [n for path, src in files.items() for n in parse_file("r", path, src.encode()).nodes]


GO = {
    "command.go": "package cobra\n\n// Command is a command.\ntype Command struct {\n\tUse string\n}\n\n"
                  "// Name is its name.\nfunc (c *Command) Name() string { return c.Use }\n",
    "completions.go": "package cobra\n\n// GenX writes completions.\nfunc (c *Command) GenX() error { return nil }\n\n"
                      "func (c *Command) genY() {}\n",
    "sub/other.go": "package sub\n\nfunc (c *Command) NotOurs() {}\n",
    "cobra_test.go": "package cobra_test\n\ntype Command struct{}\n",
}


def test_a_go_types_methods_in_other_files_of_its_package_hang_under_it():
    nodes = _go(GO)
    by = {(n["path"], n["qualname"]): n for n in nodes}
    cmd = by[("command.go", "Command")]
    own = cmd["api"]
    edges = package_methods(nodes, "cl100k_base")
    assert sorted((e["src"], e["dst"]) for e in edges) == sorted(
        (cmd["id"], by[("completions.go", q)]["id"]) for q in ("Command.GenX", "Command.genY"))
    assert cmd["api"] == own + ("\n    // completions.go\n    func (c *Command) GenX() error\n"
                                "        GenX writes completions.\n    func (c *Command) genY()")
    assert json.loads(cmd["meta"])[OWN] == len(own) and cmd["api_tokens"] > 0
    assert by[("completions.go", "Command.GenX")]["parent_id"] != cmd["id"]       # its file stays its parent
    # a re-index reads the node back with the lines added: they are cut before adding again, and
    # go when the methods do
    again = package_methods(nodes, "cl100k_base")
    assert len(again) == 2 and cmd["api"].count("func (c *Command) GenX") == 1
    nodes = [n for n in nodes if n["path"] != "completions.go"]
    assert package_methods(nodes, "cl100k_base") == [] and cmd["api"] == own and not cmd.get("meta")
