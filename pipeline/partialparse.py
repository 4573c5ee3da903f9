"""Definitions a syntax error hides, as the "method name" rule of ``pipeline.calls`` must know.

That rule links ``x.f()`` to the one method ``f`` of the language family. A file tree-sitter could
not parse whole (warning ``syntax_error``, ``pipeline.parse``) may hold more ``f`` than its nodes
show (kotlinpoet's TypeSpec.kt hid its ``Builder.addModifiers``, so ``FunSpec.Builder.addModifiers``
looked unique and took TypeSpec's calls): when such a file of the language declares ``f`` in its
text (``fun f``, ``fun T.f``, Scala ``def f``) more often than its parsed definitions do, the rule
gives no edge (a missing edge beats a wrong one). Kotlin and Scala only (``GUARDED``), whose
grammars fail on whole classes (a companion object, Scala 3 syntax); the other languages link as
before.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from typing import Iterable

from pipeline.callindex import Index, family

SYNTAX_ERROR = "syntax_error"        # ``pipeline.parse``'s warning, in a file node's ``meta["warnings"]``
_DECLARED = {                        # how a language declares a function named {0}
    "kotlin": r"\bfun\b[^\n(={{]*?[\s.>]{0}\s*[(<]",
    "scala": r"\bdef\s+{0}\b",
}
GUARDED = tuple(_DECLARED)


class Hidden:
    """The files of each language family that failed to parse, with their text (``nodes``: file
    nodes; one without its text, an overlay's base, is not read) and their parsed names."""

    def __init__(self, ix: Index, nodes: Iterable[dict]):
        self.broken: dict[str, list[tuple[str, str, str]]] = defaultdict(list)     # family -> (path, lang, text)
        for n in nodes:
            if n["kind"] == "file" and n.get("language") in GUARDED and n.get("full") \
                    and SYNTAX_ERROR in (meta := n.get("meta") or "") \
                    and SYNTAX_ERROR in json.loads(meta).get("warnings", ()):
                lang = n.get("language") or ""
                self.broken[family(lang)].append((n["path"], lang, n["full"]))
        self.ix = ix
        self._parsed: dict[str, Counter[str]] | None = None
        self._seen: dict[tuple[str, str], bool] = {}

    def hides(self, lang: str, name: str) -> bool:
        """Whether a broken file of ``lang``'s family (Kotlin, Scala) may declare ``name`` beyond its parsed nodes."""
        fam = family(lang)
        files = self.broken.get(fam)
        if not files:
            return False
        key = (fam, name)
        got = self._seen.get(key)
        if got is None:
            if self._parsed is None:
                paths = {p for got_ in self.broken.values() for p, _, _ in got_}
                self._parsed = {p: Counter() for p in paths}
                for d in self.ix.defs.values():
                    if d.path in self._parsed:
                        self._parsed[d.path][d.qual.rsplit(".", 1)[-1]] += 1
            got = any(len(re.findall(_DECLARED[flang].format(re.escape(name)), text))
                      > self._parsed[path][name] for path, flang, text in files)
            self._seen[key] = got
        return got


__all__ = ["Hidden", "SYNTAX_ERROR", "GUARDED"]
