"""Small text helpers of the parse stage: source slices, one-line folding, doc comments.

Split from pipeline.parse so that module holds the parse itself.
"""

from __future__ import annotations

import inspect
import re

import tree_sitter as ts

_WS = re.compile(r"\s+")
_OPEN_SP = re.compile(r"([(\[<{]) ")
_CLOSE_SP = re.compile(r" ([)\]>}])")


def text(src: bytes, a: int, b: int) -> str:
    return src[a:b].decode("utf-8", "replace")


def one_line(s: str) -> str:
    s = " ".join(s.split())
    if "( " in s or "[ " in s or "< " in s or "{ " in s:
        s = _OPEN_SP.sub(r"\1", s)
    if " )" in s or " ]" in s or " >" in s or " }" in s:
        s = _CLOSE_SP.sub(r"\1", s)
    if ",)" in s or ",]" in s:
        s = s.replace(",)", ")").replace(",]", "]")
    return s


def line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def end_line(node: ts.Node) -> int:
    row, col = node.end_point
    if col == 0 and row > node.start_point.row:
        return row            # ends right after a newline: the last line is the previous one
    return row + 1


def first_line(doc: str) -> str:
    return doc.lstrip().split("\n", 1)[0].strip() if doc else ""


def first_paragraph(doc: str) -> str:
    return doc.strip().split("\n\n", 1)[0].strip()


def indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line if line.strip() else line for line in text.splitlines())


# -- docs ------------------------------------------------------------------------------------------

def clean_comment(raw: str) -> str:
    lines = []
    for line in raw.splitlines():
        s = line.strip()
        for p in ("/**", "/*!", "/*", "///", "//!", "//", "#"):
            if s.startswith(p):
                s = s[len(p):]
                break
        else:
            if s.startswith("*") and not s.startswith("*/"):
                s = s[1:]
        if s.endswith("*/"):
            s = s[:-2]
        lines.append(s[1:] if s.startswith(" ") else s)
    return inspect.cleandoc("\n".join(lines)).strip()


def quoted_name(name: str) -> str | None:
    """A Kotlin or Scala name written in backticks (``fun `total applies discount`()``, ``def
    `type```), as the definition and its callers both name it: what stands between them, spaces
    kept (the JVM's name, so a frame finds it), unless a dot stands there (``def `a.b``` keeps its
    backticks: a dot in a qualified name is nesting); None when ``name`` is not one."""
    if len(name) > 2 and name[0] == name[-1] == "`" and "`" not in name[1:-1]:
        return name if "." in name else name[1:-1]
    return None


__all__ = ["quoted_name", "text", "one_line", "line_count", "end_line", "first_line", "first_paragraph", "indent", "clean_comment"]
