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

from pipeline.callindex import Index, family, unnumbered
from pipeline.languages.jvmpackages import LANGUAGES as GUARDED
from pipeline.parse import SYNTAX_ERROR

# how a language declares a function: one pass over a file finds every name (a regex per name over
# every broken file cost ~0.16 s a name on 7.5 MB of Kotlin)
_FUN = re.compile(r"\bfun\b([^\n(={]*\(?)")             # Kotlin: ``fun`` up to its parameters
_FUN_NAME = re.compile(r"[\s.>](\w+)(?=\s*[(<])")        # in it: ``f``, ``T.f``, ``List<T>.f`` (and ``List``)
_DEF = re.compile(r"\bdef\s+(\w+)")                      # Scala


def declared(lang: str, text: str) -> Counter[str]:
    """How many times ``text`` declares each function name: a Kotlin ``fun`` counts each name that
    may be its own once (``fun <T> List<T>.f(`` says ``List`` and ``f``: more, never fewer)."""
    if lang == "scala":
        return Counter(_DEF.findall(text))
    got: Counter[str] = Counter()
    for m in _FUN.finditer(text):
        got.update(set(_FUN_NAME.findall(m[1])))
    return got


class Hidden:
    """The files of each language family that failed to parse, with their text (``nodes``: file
    nodes; one without its text, an overlay's base, is not read) and their parsed names."""

    def __init__(self, ix: Index, nodes: Iterable[dict]):
        self.broken: dict[str, list[tuple[str, str, str]]] = defaultdict(list)     # family -> (path, lang, text)
        self.paths: set[str] = set()       # every such file, its text known or not
        for n in nodes:
            if n["kind"] == "file" and n.get("language") in GUARDED \
                    and SYNTAX_ERROR in (meta := n.get("meta") or "") \
                    and SYNTAX_ERROR in json.loads(meta).get("warnings", ()):
                lang = n.get("language") or ""
                self.paths.add(n["path"])
                if n.get("full"):
                    self.broken[family(lang)].append((n["path"], lang, n["full"]))
        self.ix = ix
        self._hidden: dict[str, set[str]] | None = None     # family -> the names its broken files hide

    def _names(self) -> dict[str, set[str]]:
        """Per family, the names a broken file declares in its text more often than its parsed
        definitions (overloads ``f#2`` counted as ``f``): one pass over each file."""
        parsed: dict[str, Counter[str]] = {p: Counter() for files in self.broken.values() for p, _, _ in files}
        for d in self.ix.defs.values():
            if d.path in parsed:
                parsed[d.path][unnumbered(d.qual.rsplit(".", 1)[-1])] += 1
        out: dict[str, set[str]] = {}
        for fam, files in self.broken.items():
            out[fam] = {name for path, lang, text in files
                        for name, k in declared(lang, text).items() if k > parsed[path][name]}
        return out

    def hides(self, lang: str, name: str) -> bool:
        """Whether a broken file of ``lang``'s family (Kotlin, Scala) may declare ``name`` beyond its parsed nodes."""
        fam = family(lang)
        if fam not in self.broken:
            return False
        if self._hidden is None:
            self._hidden = self._names()
        return name in self._hidden[fam]


__all__ = ["Hidden", "SYNTAX_ERROR", "GUARDED"]
