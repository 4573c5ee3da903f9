"""Nodes a user missed in Go, TypeScript, Rust and Java (probes of session 22), as get, walk and
search show them on a real repository through the real index job:

- a Go type's methods declared in other files of its package are listed by its api and its
  ``contains`` walk (cobra's ``Command``: 116 of 154), each with its own path; a line of the type's
  file outside every definition is still that file's, and a re-index that drops a method drops it
  from the type's api;
- a TypeScript method's decorators (and the JSDoc above them) are the method's;
- ``type X = ...`` and Go named types are nodes (ky's source/types held none);
- each Rust impl block of a type defined in another file is its own node (they merged into one
  whose span was the first block's), a blanket impl is no class named by its type parameter;
- ``macro_rules!`` definitions are nodes; a Java anonymous class a field holds is a class whose
  methods are nodes (``get TypeAdapters.java:90`` gave the whole class).
"""

from __future__ import annotations

import pytest

from tests.unit.test_nodes22_parse import CONTEXT_RS, WIDGET

pytestmark = pytest.mark.slow

COMMAND_GO = (
    "package cobra\n\n"
    "import (\n\t\"fmt\"\n\t\"io\"\n\t\"os\"\n)\n\n"           # 3-7: no definition
    "// Command is a command.\n"                                 # 9
    "type Command struct {\n\tUse string\n}\n\n"
    "// Name is its name.\n"
    "func (c *Command) Name() string { return c.Use }\n")

COMPLETIONS_GO = (
    "package cobra\n\n"
    "// GenX writes completions.\n"
    "func (c *Command) GenX(w io.Writer) error {\n"              # 4
    "\t_ = w\n\treturn nil\n}\n\n"
    "func (c *Command) genY() {}\n\n"                            # 9
    "// ShellCompDirective is a bit map.\n"
    "type ShellCompDirective int\n\n"
    "func (d ShellCompDirective) string() string { return \"\" }\n\n"
    "type (\n\t// Pricer prices.\n\tPricer interface {\n\t\tPrice() int\n\t}\n)\n")

FILES = {
    "go.mod": "module example.com/cobra\n\ngo 1.22\n",
    "command.go": COMMAND_GO,
    "completions.go": COMPLETIONS_GO,
    "src/widget.ts": WIDGET,
    "source/types/ky.ts": ("export type KyInstance = {\n\t/** Fetch the given url. */\n"
                           "\tget: <T>(url: string) => Promise<T>;\n};\n"),
    "Cargo.toml": "[package]\nname = \"anyhow\"\nversion = \"1.0.0\"\n",
    "src/lib.rs": "mod context;\nmod error;\n#[macro_use]\nmod macros;\n",
    "src/error.rs": "/// An error with context.\npub struct ContextError<C, E> {\n    pub context: C,\n    pub error: E,\n}\n",
    "src/context.rs": CONTEXT_RS,
    "src/macros.rs": ("/// Return early with an error.\n#[macro_export]\nmacro_rules! bail {\n"
                      "    ($msg:literal) => { return Err($msg) };\n}\n"),
    "TypeAdapters.java": (
        "public final class TypeAdapters {\n"
        "  public static final TypeAdapter<BitSet> BIT_SET =\n"
        "      new TypeAdapter<BitSet>() {\n"
        "        @Override\n"
        "        public BitSet read(JsonReader in) {\n"                  # 5
        "          return null;\n"
        "        }\n"
        "      }.nullSafe();\n"
        "}\n"),
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.tools import Tools
    from tests.clirun import NO_EMBED
    from tests.gitrepo import Repo

    base = tmp_path_factory.mktemp("nodes22")
    r = Repo(base / "repo")
    r.commit("all", FILES)
    index_repository(r.path, base / "store", NO_EMBED)
    t = Tools.open([str(base / "store")])
    try:
        yield t, t.open_session(author="agent").data["session"], r, base / "store"
    finally:
        t.close()


def _get(repo, target: str, level: str = "summary"):
    t, sid, *_ = repo
    return t.get(sid, target, level=level).items[0]


def _walk(repo, target: str) -> list[str]:
    t, sid, *_ = repo
    return sorted(f"{i.path}::{i.qualname}" for i in t.walk(sid, target, edges=["contains"], page_size=50).items)


def test_a_go_types_methods_from_other_files_of_its_package_are_listed_with_it(repo):
    api = _get(repo, "command.go::Command", "api").text
    assert "func (c *Command) Name() string" in api
    assert "// completions.go\n    func (c *Command) GenX(w io.Writer) error\n        GenX writes completions." in api
    assert "func (c *Command) genY()" in api                                  # were missing
    assert _walk(repo, "command.go::Command") == [
        "command.go::Command.Name", "completions.go::Command.GenX", "completions.go::Command.genY"]
    assert _get(repo, "command.go:5").kind == "file"             # no definition there: not GenX's line 5
    assert _get(repo, "completions.go:5").qualname == "Command.GenX"
    assert _walk(repo, "completions.go") == [
        "completions.go::Command.GenX", "completions.go::Command.genY", "completions.go::Pricer",
        "completions.go::ShellCompDirective"]


def test_go_named_types_are_nodes_that_hold_their_methods(repo):
    sc = _get(repo, "completions.go::ShellCompDirective", "api")
    assert (sc.kind, sc.text.splitlines()[0]) == ("class", "type ShellCompDirective int")
    assert "func (d ShellCompDirective) string() string" in sc.text
    assert _walk(repo, "completions.go::ShellCompDirective") == ["completions.go::ShellCompDirective.string"]
    assert _get(repo, "completions.go::Pricer").text.startswith("interface Pricer: type Pricer interface")


def test_a_reindex_that_drops_a_method_drops_it_from_its_types_api(repo):
    from pipeline.job import index_repository
    from stratum.tools import Tools
    from tests.clirun import NO_EMBED

    _, _, r, store = repo
    r.commit("drop genY", {"completions.go": COMPLETIONS_GO.replace("func (c *Command) genY() {}\n\n", "")})
    index_repository(r.path, store, NO_EMBED)
    t = Tools.open([str(store)])
    try:
        sid = t.open_session(author="agent").data["session"]
        api = t.get(sid, "command.go::Command", level="api").items[0].text      # command.go's node was reused
        assert "genY" not in api and api.count("func (c *Command) GenX") == 1
        assert [i.qualname for i in t.walk(sid, "command.go::Command", edges=["contains"]).items] == \
            ["Command.Name", "Command.GenX"]
    finally:
        t.close()


def test_a_ts_methods_decorators_are_the_method(repo):
    full = _get(repo, "src/widget.ts::Widget.onKey", "full")
    assert full.text.startswith("  @HostListener('keydown')\n  @HostListener('keyup')\n  onKey()")
    assert full.start_line == 9
    assert _get(repo, "src/widget.ts::Widget.onKey").text.endswith("\u2014 Keys.")     # the JSDoc above them
    assert _get(repo, "src/widget.ts:9").qualname == "Widget.onKey"                       # was the class


def test_a_ts_type_alias_is_found_by_search(repo):
    t, sid, *_ = repo
    found = t.search(sid, "KyInstance type", page_size=3).items
    assert f"{found[0].path}::{found[0].qualname}" == "source/types/ky.ts::KyInstance"
    assert "get: <T>(url: string) => Promise<T>;" in _get(repo, "source/types/ky.ts::KyInstance", "api").text


def test_each_rust_impl_block_of_a_type_from_another_file_is_reachable_and_honest(repo):
    first = _get(repo, "src/context.rs::ContextError", "api")
    assert first.text.startswith("impl<C, E> Debug for ContextError<C, E>\n    fn fmt(&self) -> u8\n")
    assert "// also ContextError#2: impl<C, E> Display for ContextError<C, E>" in first.text
    assert (first.start_line, first.end_line) == (8, 10)
    at = _get(repo, "src/context.rs:12")                  # the Display block's where clause: was the file
    assert (at.qualname, at.start_line, at.end_line) == ("ContextError#2", 11, 16)
    assert _get(repo, "src/context.rs:15").qualname == "ContextError.fmt#2"
    assert "ext.E" not in _walk(repo, "src/context.rs") and \
        "src/context.rs::ext.StdError#2" in _walk(repo, "src/context.rs")


def test_macro_rules_and_java_anonymous_classes_are_nodes(repo):
    bail = _get(repo, "src/macros.rs::bail")
    assert bail.text == "macro bail: macro_rules! bail \u2014 Return early with an error."
    read = _get(repo, "TypeAdapters.java:5")                   # was the whole class
    assert (read.kind, read.qualname) == ("method", "TypeAdapters.BIT_SET.read")
    assert _walk(repo, "TypeAdapters.java::TypeAdapters.BIT_SET") == ["TypeAdapters.java::TypeAdapters.BIT_SET.read"]
