"""Rust links as a user walks them, on a real workspace through the real index job:

- calls inside the standard macros' arguments (``assert_eq!(bail_literal(), 1)``, ``println!``,
  ``format!``) are calls (a macro's arguments are a token tree the grammar does not parse:
  anyhow's ``test_downcast`` called nothing);
- ``mod x;`` in a crate root other than ``lib.rs``/``main.rs`` (``tests/*.rs``, ``src/bin/*.rs``)
  is the file beside it (``tests/test_convert.rs``' ``mod drop;`` is ``tests/drop/mod.rs``, not
  ``tests/test_convert/drop.rs``), and ``use super::*`` in an inline ``mod tests`` is the file's own
  module (it imported the crate root);
- a test's subject by name is of its own crate (``crates/matcher/tests/test_matcher.rs`` tested
  ``crates/regex/src/matcher.rs``), and a module a test crate declares (``mod util;`` in
  ``tests/tests.rs``) is no test of ``src/util.rs``;
- a name a ``use`` binds to an outside crate (``use std::error::Error as StdError``, ``use
  std::mem::replace``) is never the repository's same-named trait or function.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

FILES = {
    "Cargo.toml": ('[package]\nname = "app"\nversion = "0.1.0"\n\n[workspace]\nmembers = ["crates/matcher", "crates/regex"]\n\n'
                   '[dependencies]\nthiserror = "1"\n'),
    "src/main.rs": ("mod error;\nmod util;\n\nuse std::mem::replace;\nuse util::Counter;\n\n"
                    "fn main() {\n    let c = Counter::new();\n    assert_eq!(util::twice(2), 4);\n"
                    "    println!(\"{} {}\", helper(1), format!(\"{}\", c.count()));\n"
                    "    let mut a = 1;\n    let _ = replace(&mut a, 2);\n}\n\n"
                    "fn helper(x: i32) -> i32 {\n    x\n}\n"),
    "src/util.rs": ("pub fn twice(x: i32) -> i32 {\n    x * 2\n}\n\n"
                    "pub fn replace(a: i32) -> i32 {\n    a\n}\n\n"
                    "pub struct Counter {\n    n: u32,\n}\n\n"
                    "impl Counter {\n    pub fn new() -> Self {\n        Counter { n: 0 }\n    }\n\n"
                    "    pub fn count(&self) -> u32 {\n        self.n\n    }\n}\n\n"
                    "#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn t() {\n"
                    "        assert_eq!(twice(1), 2);\n    }\n}\n"),
    "src/error.rs": "pub trait StdError {}\n\npub struct Oops;\n\nimpl StdError for Oops {}\n",
    "src/bin/tool.rs": "mod helper;\n\nfn main() {\n    helper::go();\n}\n",
    "src/bin/helper.rs": "pub fn go() {}\n",
    "tests/common/mod.rs": "pub fn bail_literal() -> u32 {\n    1\n}\n",
    "tests/drop/mod.rs": ("use std::error::Error as StdError;\n\npub struct DetectDrop;\n\n"
                          "impl StdError for DetectDrop {}\n"),
    "tests/test_downcast.rs": ("mod common;\n\nuse self::common::*;\n\n"
                               "#[test]\nfn test_downcast() {\n    assert_eq!(bail_literal(), 1);\n}\n"),
    "tests/test_convert.rs": "mod drop;\n\nuse self::drop::DetectDrop;\n\n#[test]\nfn convert() {\n    let _d = DetectDrop;\n}\n",
    "tests/tests.rs": "mod json;\nmod util;\n",
    "tests/util.rs": "pub fn dir() -> u32 {\n    1\n}\n",
    "tests/json.rs": "use crate::util::dir;\n\n#[test]\nfn json() {\n    assert_eq!(dir(), 1);\n}\n",
    "crates/matcher/Cargo.toml": '[package]\nname = "grep-matcher"\nversion = "0.1.0"\n',
    "crates/matcher/src/lib.rs": "pub fn is_match() -> bool {\n    true\n}\n",
    "crates/matcher/tests/test_matcher.rs": ("use grep_matcher::is_match;\n\n"
                                             "#[test]\nfn m() {\n    assert!(is_match());\n}\n"),
    "crates/regex/Cargo.toml": '[package]\nname = "grep-regex"\nversion = "0.1.0"\n',
    "crates/regex/src/lib.rs": "pub mod matcher;\n",
    "crates/regex/src/matcher.rs": "pub fn regex_match() -> bool {\n    true\n}\n",
    "crates/regex/tests/test_matcher.rs": "#[test]\nfn r() {\n    assert!(true);\n}\n",
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.clirun import session_over

    with session_over(tmp_path_factory.mktemp("links22brust") / "repo", FILES) as opened:
        yield opened


def _walk(tools, target: str, edge: str, direction: str = "out") -> dict[str, str]:
    t, sid = tools
    return {f"{i.path}::{i.qualname}" if i.qualname else i.path: i.meta.get("how") or i.meta.get("by", "")
            for i in t.walk(sid, target, edges=[edge], direction=direction).items}


def test_calls_inside_macro_arguments_are_calls(tools):
    assert _walk(tools, "src/main.rs::main", "calls") == {
        "src/util.rs::twice": "imported module",            # assert_eq!(util::twice(2), 4)
        "src/main.rs::helper": "same file",                 # println!("{}", helper(1), ...)
        "src/util.rs::Counter.new": "imported module",      # use util::Counter; Counter::new()
        "src/util.rs::Counter.count": "variable's class",   # format!("{}", c.count()): c = Counter::new()
    }
    assert _walk(tools, "tests/common/mod.rs::bail_literal", "calls", "in") == {
        "tests/test_downcast.rs::test_downcast": "imported file"}
    assert _walk(tools, "src/util.rs::twice", "calls", "in") == {
        "src/main.rs::main": "imported module", "src/util.rs::tests.t": "same file"}


def test_a_crate_roots_modules_lie_beside_it(tools):
    assert _walk(tools, "tests/test_convert.rs", "imports") == {"tests/drop/mod.rs": ""}
    assert _walk(tools, "tests/test_downcast.rs", "imports") == {"tests/common/mod.rs": ""}
    assert _walk(tools, "tests/tests.rs", "imports") == {"tests/json.rs": "", "tests/util.rs": ""}
    assert _walk(tools, "src/bin/tool.rs", "imports") == {"src/bin/helper.rs": ""}
    assert _walk(tools, "src/bin/tool.rs::main", "calls") == {"src/bin/helper.rs::go": "imported module"}


def test_use_super_in_an_inline_test_module_is_the_files_own_module(tools):
    assert _walk(tools, "src/util.rs", "imports") == {}                  # not src/main.rs


def test_a_rust_tests_subject_is_of_its_own_crate(tools):
    assert _walk(tools, "crates/regex/src/matcher.rs", "tests", "in") == {
        "crates/regex/tests/test_matcher.rs": "name"}
    assert _walk(tools, "crates/matcher/tests/test_matcher.rs", "tests") == {
        "crates/matcher/src/lib.rs": "import"}
    # tests/util.rs is a module of the tests.rs test crate, not the test of src/util.rs; the file's
    # own inline `#[cfg(test)] mod tests` is (test_s33_test_nodes)
    assert _walk(tools, "src/util.rs", "tests", "in") == {"src/util.rs::tests.t": "unit"}


def test_a_name_bound_to_an_outside_crate_is_not_the_repositorys(tools):
    assert _walk(tools, "src/error.rs::StdError", "inherits", "in") == {"src/error.rs::Oops": "same file"}
    assert "src/util.rs::replace" not in _walk(tools, "src/main.rs::main", "calls")
