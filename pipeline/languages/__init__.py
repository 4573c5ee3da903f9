"""The language registry: which files are which language, and their tree-sitter grammar and query.

Parse rules live as data in the ``.scm`` files beside this module (tags-style captures:
``@definition.<kind>``, ``@scope.namespace``, ``@name``, ``@body``, ``@receiver``, ``@declarator``,
``@import``); JavaScript and TypeScript read ``ecmascript.scm``, the patterns both grammars share,
before their own file. Grammars come from the per-language wheels (``tree_sitter_python`` ...), so nothing is
ever downloaded or compiled at run time. Languages, parsers and compiled queries are cached per
process (they are not picklable; Ray workers build their own on first use).
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from importlib import resources

import tree_sitter as ts

from pipeline.languages import cppmacros, kotlinsemis


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    module: str                      # the grammar wheel's import name
    function: str                    # its function returning the language pointer
    extensions: tuple[str, ...]
    query: tuple[str, ...]           # .scm files in this package, read in order as one query
    function_types: frozenset[str]   # nodes whose bodies hide nested definitions (closures, locals)
    wrapper_types: frozenset[str]    # nodes wrapping a definition (decorators, export, template)
    comment_types: frozenset[str]
    attribute_types: frozenset[str] = frozenset()  # leading siblings that belong to the definition


_JS_FUNCS = frozenset({"function_declaration", "generator_function_declaration", "function_expression",
                       "generator_function", "arrow_function", "method_definition"})
_JS_WRAP = frozenset({"export_statement", "lexical_declaration", "variable_declaration"})
_TS_WRAP = _JS_WRAP | {"ambient_declaration"}

SPECS: dict[str, LanguageSpec] = {s.name: s for s in (
    LanguageSpec("python", "tree_sitter_python", "language", (".py", ".pyi"), ("python.scm",),
                 frozenset({"function_definition", "lambda"}), frozenset({"decorated_definition"}),
                 frozenset({"comment"})),
    LanguageSpec("javascript", "tree_sitter_javascript", "language", (".js", ".jsx", ".mjs", ".cjs"),
                 ("ecmascript.scm", "javascript.scm"), _JS_FUNCS, _JS_WRAP, frozenset({"comment"})),
    LanguageSpec("typescript", "tree_sitter_typescript", "language_typescript", (".ts", ".mts", ".cts"),
                 ("ecmascript.scm", "typescript.scm"), _JS_FUNCS, _TS_WRAP, frozenset({"comment"})),
    LanguageSpec("tsx", "tree_sitter_typescript", "language_tsx", (".tsx",), ("ecmascript.scm", "typescript.scm"),
                 _JS_FUNCS, _TS_WRAP, frozenset({"comment"})),
    LanguageSpec("c", "tree_sitter_c", "language", (".c", ".h"), ("c.scm",),
                 frozenset({"function_definition"}), frozenset(), frozenset({"comment"})),
    LanguageSpec("cpp", "tree_sitter_cpp", "language",
                 (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".inl", ".tpp"),
                 ("cpp.scm",), frozenset({"function_definition", "lambda_expression"}),
                 frozenset({"template_declaration"}), frozenset({"comment"})),
    LanguageSpec("go", "tree_sitter_go", "language", (".go",), ("go.scm",),
                 frozenset({"function_declaration", "method_declaration", "func_literal"}),
                 frozenset({"type_declaration"}), frozenset({"comment"})),
    LanguageSpec("java", "tree_sitter_java", "language", (".java",), ("java.scm",),
                 frozenset({"method_declaration", "constructor_declaration", "lambda_expression",
                            "compact_constructor_declaration", "object_creation_expression"}),
                 frozenset(), frozenset({"line_comment", "block_comment"})),
    LanguageSpec("rust", "tree_sitter_rust", "language", (".rs",), ("rust.scm",),
                 frozenset({"function_item", "closure_expression"}), frozenset(),
                 frozenset({"line_comment", "block_comment"}), frozenset({"attribute_item"})),
    LanguageSpec("kotlin", "tree_sitter_kotlin", "language", (".kt", ".kts"), ("kotlin.scm",),
                 frozenset({"function_declaration", "secondary_constructor", "anonymous_initializer", "getter",
                            "setter", "lambda_literal", "anonymous_function", "object_literal", "enum_entry"}),
                 frozenset(), frozenset({"line_comment", "block_comment"})),
    LanguageSpec("scala", "tree_sitter_scala", "language", (".scala",), ("scala.scm",),
                 frozenset({"function_definition", "lambda_expression", "instance_expression"}),
                 frozenset(), frozenset({"comment", "block_comment"})),
)}

EXTENSIONS: dict[str, str] = {ext: s.name for s in SPECS.values() for ext in s.extensions}

_CPP_HINT = (b"class ", b"namespace ", b"template <", b"template<", b"std::", b"public:", b"private:",
             b"#include <iostream>", b"virtual ", b"constexpr ")


def language_for_path(path: str) -> str | None:
    """The language a path's extension says, or None (unsupported)."""
    dot = path.rfind(".")
    if dot <= path.rfind("/"):
        return None
    return EXTENSIONS.get(path[dot:].lower())


def detect(path: str, data: bytes | None = None) -> str | None:
    """Language of a file; ``.h`` headers that are clearly C++ are parsed as C++."""
    lang = language_for_path(path)
    if lang == "c" and data is not None and path.lower().endswith(".h"):
        head = data[:16384]
        if any(h in head for h in _CPP_HINT):
            return "cpp"
    return lang


@functools.lru_cache(maxsize=None)
def language(name: str) -> ts.Language:
    spec = SPECS[name]
    mod = importlib.import_module(spec.module)
    return ts.Language(getattr(mod, spec.function)())


@functools.lru_cache(maxsize=None)
def parser(name: str) -> ts.Parser:
    return ts.Parser(language(name))


def parse_tree(name: str, src: bytes) -> ts.Tree:
    """The syntax tree of ``src`` in language ``name``; C and C++ macros the grammar reads as names
    (``class LEVELDB_EXPORT DB``, ``int x_ GUARDED_BY(mu_);``, a C header's ``LEVELDB_EXPORT void
    leveldb_close(leveldb_t* db);``) are hidden from it first (``cppmacros``), offsets unchanged;
    a Kotlin file the grammar breaks on a one-line body (``class A { companion object { fun e() = 1
    } }``) is read again with ``;`` before such a ``}`` (``kotlinsemis``)."""
    if name in ("cpp", "c"):
        return cppmacros.unmask(parser(name), src)
    if name == "kotlin":
        return kotlinsemis.parse(parser(name), src)
    return parser(name).parse(src)


@functools.lru_cache(maxsize=None)
def query_source(name: str) -> str:
    here = resources.files(__name__)
    return "\n".join(here.joinpath(f).read_text(encoding="utf-8") for f in SPECS[name].query)


@functools.lru_cache(maxsize=None)
def query(name: str) -> ts.Query:
    return ts.Query(language(name), query_source(name))


__all__ = ["LanguageSpec", "SPECS", "EXTENSIONS", "language_for_path", "detect", "language", "parser",
           "parse_tree", "query_source", "query"]
