"""What a file's imports bind, as ``pipeline.calls`` reads it (its rules are in that module's
docstring): a name's binding as seen from a line (a Python function's own import only within it,
``callindex.Scopes``), an outside module's, the one definition among the imported files, and a
name followed through the re-exports of a Python module or a JS/TS barrel. Split from
``pipeline.calls``: the import side of the linker, by name; the rest (scopes, classes, typed
variables) is there. Binding records: ``imports.resolve(bindings=)``."""

from __future__ import annotations

import posixpath
from typing import Iterable

from pipeline.callindex import Index, one
from pipeline.pyimports import dotted_modules

JS_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")      # a module that may re-export
PY_EXTS = (".py", ".pyi")
REEXPORT_DEPTH = 3          # re-exports followed from one import (a cycle ends there)
LAST_LINE = 1 << 62         # below every import: a module's last binding of a name, as Python leaves it
_INITS = ("__init__.py", "__init__.pyi")


class Bindings:
    """The names each file's imports bind (``bound``: path -> name -> binding records), read
    against the definitions (``ix``) and the files each file imports (``imported``)."""

    def __init__(self, ix: Index, imported: dict[str, list[str]], bound: dict[str, dict[str, list]],
                 files: set[str] | frozenset[str] = frozenset()):
        self.ix, self.imported, self.bound, self.files = ix, imported, bound, files
        self._targets: dict[str, frozenset[str]] = {}       # path -> its imported files (``_in_imports``)
        # names a module binds under another name (``from .api import Client as PublicClient``):
        # ``pkg.PublicClient()`` names no definition, yet may reach one (a Python module's only
        # when the import reaches files: ``import numpy as np`` reaches none of ours)
        self.aliases = {local for p, names in bound.items() if p.endswith((*JS_EXTS, *PY_EXTS))
                        for local, seen in names.items()
                        if any(b[1] != local and (b[3] or not p.endswith(PY_EXTS)) for b in seen)}

    def _binding(self, path: str, name: str, line: int) -> tuple[str, list[str]]:
        """What ``name`` is bound to by an import of the file, as seen from ``line`` (a Python
        function's own import only within it: ``callindex.Scopes``): the import of it nearest
        above the line, else its first; (name, []) when no import binds it."""
        seen = self.ix.scopes.visible(path, self.bound.get(path, {}).get(name), line)
        if not seen:
            return name, []
        best = seen[0]
        for b in seen:
            if best[0] < b[0] <= line:
                best = b
        return best[1], best[3]

    def _outside(self, path: str, name: str, line: int) -> bool:
        """``name`` is bound by an import of a module outside the repository (JS/TS, Go: ``import
        {setTimeout as delay} from 'node:timers/promises'``): no definition here is what it names."""
        return bool(self.ix.scopes.visible(path, self.bound.get(path, {}).get(name), line)) and \
            not self._binding(path, name, line)[1]

    def _in_imports(self, path: str, qual: str, line: int = 0) -> str | None:
        """The one definition ``qual`` among the files ``path`` imports (as seen from ``line``: not
        those only a Python function's own imports reach, from elsewhere: ``callindex.Scopes``)."""
        hide = self.ix.scopes.unseen(path, self.bound.get(path), line)
        targets = self.imported.get(path, ())
        defs = self.ix.files_defining(qual)
        if len(defs) < len(targets):        # the few files defining it, not every imported file
            files = self._targets.get(path)
            if files is None:
                files = self._targets[path] = frozenset(targets)
            return one(i for t, i in defs if t in files and t not in hide)
        return one(i for t in targets if t not in hide and (i := self.ix.by_qual.get((t, qual))) is not None)

    def _module_value(self, targets: list[str], orig: str) -> tuple[str, bool] | None:
        """The one definition among the JS/TS modules ``targets`` that is the module's own value
        (``callindex.Index.module_value``), as what binds it reads it: the module (``*``: ``const x
        = require``, ``import * as x``) is its ``module.exports = function f``; a default import
        (``default``) that or its ``export default function f``. (id, whether by ``export default``)."""
        if orig not in ("*", "default"):
            return None
        got = {v for t in targets if (v := self.ix.module_value.get(t)) is not None
               and (orig == "default" or not v[1])}
        # what the module's own statement names (``imports.VALUE``: ``exports = module.exports = f``)
        for local, esm in (("module.exports", False), ("default", True)):
            if esm and orig != "default":
                continue
            for t in targets:
                f, files = self._binding(t, local, LAST_LINE)
                if files == [t] and (g := self.ix.by_qual.get((t, f))) is not None:
                    got.add((g, esm))
        return next(iter(got)) if len(got) == 1 else None

    def _reexported(self, targets: Iterable[str], name: str, depth: int = 0, plain: bool = True) -> str | None:
        """``name`` read off a Python module (``plain``: any; else a package ``__init__`` only) or
        a JavaScript/TypeScript module (a barrel) among ``targets`` that binds it by an import of
        its own (``from .api import Client as PublicClient``, a function moved out and imported
        back, ``export {Account as Acct} from``): the definition that import reaches, by the name
        it has there, followed ``REEXPORT_DEPTH`` imports deep. For an ``__init__`` the files are
        those ``pipeline.pyimports`` followed the re-exports to (the import's targets); only the
        name is read here, from the module's binding (its last, as Python runs the file). A
        barrel's ``export * from './x'``: the one module among its starred ones that defines (or
        re-exports) it."""
        for t in targets:
            js = t.endswith(JS_EXTS)
            if not js and not (t.endswith(PY_EXTS) if plain else posixpath.basename(t) in _INITS):
                continue
            orig, further = self._binding(t, name, LAST_LINE)
            for f in further:
                got = self.ix.by_qual.get((f, orig))
                if got is not None:
                    return got
            if js and orig == "default":     # `export { default as named } from './m'`: m's own value
                value = self._module_value(further, "default")      # as a default import reads it
                if value is not None and value[1]:
                    return value[0]
            if further and depth < REEXPORT_DEPTH:
                got = self._reexported(further, orig, depth + 1)
                if got is not None:
                    return got
            if js and not further and depth < REEXPORT_DEPTH:
                stars = [f for _, star, _, files in self.bound.get(t, {}).get("*", ()) if star == "*" for f in files]
                got = one(g for f in stars if (g := self.ix.by_qual.get((f, name))
                                               or self._reexported([f], name, depth + 1)) is not None)
                if got is not None:
                    return got
        return None

    def _local_only(self, targets: Iterable[str], name: str) -> bool:
        """A Python module among ``targets`` imports ``name`` only in a function's or class's body
        (``def setup(): from .impl import run``): no attribute of it (``from kb import run`` fails),
        so no rule guesses one."""
        return any(t.endswith(PY_EXTS) and (seen := self.bound.get(t, {}).get(name))
                   and not self.ix.scopes.visible(t, seen, LAST_LINE) for t in targets)

    def _modules(self, path: str, recv: str, line: int) -> list[str]:
        """The Python module files a dotted receiver names (``pyimports.dotted_modules``)."""
        return dotted_modules(self._binding, path, recv, line, self.files)


__all__ = ["Bindings", "JS_EXTS", "PY_EXTS", "REEXPORT_DEPTH", "LAST_LINE"]
