"""``calls`` and ``inherits`` edges: the call sites and bases each definition's node carries
(``pipeline.callrefs``, in its ``meta``) resolved to the definitions they name.

Resolution is by name, the way a reader follows code without running it; a call is linked only
when one definition fits, else it makes no edge (a wrong "who calls this" costs an agent more
than a missing one). In order, the first rule that finds definitions decides:

- ``self.m()`` (``this``, ``cls``, a Go receiver): ``m`` of the caller's class, then of its bases
  (``inherits``, three levels); in Go, of the type's methods in the same package; in a function
  set on an object or prototype (JS ``res.json = function``) or of a Go type that is no struct,
  ``res.m`` of the same file.
  ``super().m()``: of the bases only.
- ``f()`` (and a base class by its bare name): first in the scopes around it, innermost out, as
  its language reads them: C++ the enclosing classes' members (and their bases') and namespaces
  (``f`` of namespace ``geo`` in the same file or an included one), Java the enclosing classes'
  members, Rust and TypeScript the file's own ``mod``/``namespace`` blocks (a class's members
  need ``Self::``/``this.``); a class's own name there is the class. Then a definition ``f`` of
  the same file; Go: of the package (its directory); what the file's import binds as ``f``
  (Python ``from ... import f``, through a module that imports it in turn: a package
  ``__init__`` that re-exports it under another name, ``from .api import Client as
  PublicClient``, a module a function was moved out of, ``from ..util.helpers import
  round_price``; an import in a Python function's body binds for that function only, but a
  name it declares ``global``; JS/TS ``{percent as f}``, through a barrel's ``export {A as f}
  from`` or ``export * from``; Java ``import static a.Money.f`` or ``a.Money.*``; Rust ``use
  crate::a::f``); none when an outside module's import binds it (``{setTimeout as delay} from
  'node:timers/promises'``, ``const {join} = require('path')``, Java ``import java.util.List``,
  Rust ``use std::error::Error as StdError``: never the repository's same-named definition, for a
  base class too), or the Python module it is read from imports it only in a function's body
  (``from kb import run``, ``def setup(): from .impl import run`` in ``kb``); else the one ``f``
  among the files it imports (Python: no import binds ``f``, ``from m import *``); else (C++) the
  one ``f`` of an enclosing namespace in the repository (a prototype and its one body count as
  one); else the one top-level ``f`` of its language family in the repository (JavaScript, JSX,
  TypeScript and TSX are one family; a ``.d.ts`` declaration is never found by its name alone, here or
  as a repository's one ``x.f``: only an import binds it). JS/TS: a name bound to a module (``const make =
  require('./m')``, whatever it is named, ``import make from``) calls the module's own value: its
  ``module.exports = function g`` (``export default function g`` for a default import;
  ``callindex.Index.module_value``) or the definition a statement of the module names
  (``exports = module.exports = g``, ``export default g``: ``imports.VALUE``).
- ``x.f()`` with ``x`` a name: what ``x`` binds (Python ``import x``, ``import a.b as x``, ``from
  p import x``; ``import a.b`` for ``a.b.f()``; JS/TS ``import * as x``, ``const x =
  require('./m')``, a default import of a module whose value is no ``export default`` (``x.f()``:
  its ``exports.f``; ``export default class C``: ``C.f``), ``{Account as x}``
  for its class's ``f``, through barrels; Go a package's name or alias, ``c
  "example.com/shop/pkg/cart"``) holding ``f`` (``x.C.f()``: its class ``C``'s;
  ``pkg.PublicClient()``, ``pricing.round_price()``: what the module imports as it, followed as
  ``f()``'s import is, by ``f``'s name: not the file a module re-exports another name from;
  Python ``C.f()``: the method of the class ``C`` such an import reaches;
  ``core.pricing.f()``: the module ``core`` binds, then its own import of ``pricing`` or, a
  package, its submodule, ``pipeline.pyimports.dotted_modules``); none when an outside
  module's import binds ``x`` or the head of a path ``x.y`` (``fmt.Println``, Rust
  ``io::Error::new``), or a variable's written type or the call that gave it is an
  outside module's (``t *testing.T``); else ``x.f`` as a qualified name (a
  class's static method, a namespace's function, Rust ``S::new``), within the scopes around the
  call first (``Shape::area()`` inside namespace ``geo`` is ``geo.Shape.area``), in the same
  file, an imported one or the one in the repository; else (not Python, whose bindings are read
  exactly) ``f`` in an imported file whose module or package is named ``x`` (Go ``pkg.F``,
  ``import * as x``).
- anything else before ``.f()`` (``client.get()``, ``make().f()``): the method ``f`` when it is the
  repository's only method of that name in its language family and lies in the file or one it imports
  (a C/C++ header's declaration and its out-of-line definition are one method; no types are
  inferred: with two ``get`` methods, which one a variable holds is not known; a JS
  function set on an object, ``res.get = function``, is reached as ``res.get`` or ``this.get``
  only; not the caller's whole Kotlin or Scala package: a test source set shares it, and a
  stdlib ``?.apply {}`` or a ``String.contains`` found a test class's or ``NameAllocator``'s);
  none when a Kotlin or Scala file that failed to parse may declare another ``f``
  (``pipeline.partialparse``).

Kotlin and Scala (``pipeline.jvmcalls``): a typed receiver's class without a method ``f``, or a
type not ours (``t: Int``), reaches the one extension ``T.f`` (``fun Cart.itemCount()``, Scala 3
``extension``, an ``implicit class``'s method) of its type or a base's in the file, its package
or an imported file ("extension"; ``fun FunSpec.Builder.f()`` extends that ``Builder`` only, and
two that fit make no edge); ``a.b.Square()``, ``a.b.Registry.register()``: a leading package of
the repository is that package ("package path"), unless ``a`` is a variable, a parameter or a
member of the caller's class (``val util = ...; util.check()``).

A C/C++ call that lands on a prototype (an included header's declaration) links to the one
definition with a body of that name instead, when there is one ("..., its definition"). A C++
class's members are read by their bare names in its methods, out-of-line ones too
(``versions_->LogAndApply()`` in ``DBImpl::Write``, the member declared in the header's class
body: "attribute's class"); a variable of a ``std::`` type (``std::vector<T> v``) is not ours. A Java
call that lands on an overloaded method (``Gson.toJson``, ``toJson#2``...) links to the overload
its arguments fit (``pipeline.javaargs``: their count, ``..., by argument count``, then the types
the syntax says, ``..., by argument types``), or, when several fit, to each (``..., one of N
overloads``: which one is not known without inferring types).
Each edge's ``meta`` says which rule linked it (``how``), the call as written (``as``) and its
first line; ``weight`` counts the distinct call expressions that reached that definition.
"""

from __future__ import annotations

import json
import posixpath
from collections import defaultdict
from typing import Collection, Iterable

from pipeline import vartypes
from pipeline.callindex import (CODE as _CODE, C_FAMILY as _C_FAMILY, JS_FAMILY as _JS_FAMILY, Def as _Def,
                                Index as _Index, by_arity as _by_arity, classes as _classes, defined as _defined,
                                family as _family, named as _by_name, one as _one, parent_qual as _parent_qual,
                                unique as _unique)
from pipeline.callbindings import LAST_LINE, REEXPORT_DEPTH
from pipeline.callscopes import FIELDS as _FIELDS, INHERIT_DEPTH, ClassScopes
from pipeline.exprnames import SELF
from pipeline.jvmcalls import JVM as _JVM, JvmScope
from pipeline.partialparse import Hidden
from pipeline.pyimports import is_module
from pipeline.testlinks import tests_edge, used_by_tests

_MEMBERS = (*_FIELDS, "cpp")    # a class's fields are read by their bare names in its methods (C++ ``versions_->f()``)


def _stem(path: str) -> tuple[str, str]:
    """The names an import of ``path`` may bind: the module's (file stem, or the package folder's
    for an ``__init__``/``index``/``mod``/``lib`` file) and its folder's (a Go package)."""
    d, base = posixpath.split(path)
    stem = base.split(".", 1)[0]
    folder = posixpath.basename(d)
    return (folder if stem in ("__init__", "index", "mod", "lib") else stem), folder


_quoted = json.encoder.encode_basestring       # a JSON string as json.dumps(ensure_ascii=False) writes it


def _written(name: str, recv: str) -> str:
    """The call as an agent reads it: ``h``, ``self.g``, ``a.b.c``, ``?.m`` (an expression's method)."""
    return f"{'?' if recv == '.' else recv}.{name}" if recv else name


class _Resolver(ClassScopes):
    def __init__(self, ix: _Index, imported: dict[str, list[str]], bound: dict[str, dict[str, list]],
                 files: set[str] | frozenset[str] = frozenset(), nodes: Iterable[dict] = ()):
        super().__init__(ix, imported, bound, files)
        self.jvm = JvmScope(ix, nodes, imported)       # Kotlin and Scala packages and extensions
        self.hidden = Hidden(ix, nodes)                 # what files that failed to parse may declare
        self.attrs: dict[str, dict[str, tuple[str, str]]] = {}     # class id -> self.x -> its one (type, receiver)
        self.attr_at: dict[str, dict[str, int]] = {}               # class id -> self.x -> the line typing it
        self.returns: dict[str, tuple[str, str]] = {}               # function id -> its declared return type
        self.selves: dict[str, str] = {}        # Go method id -> its receiver variable (``meta["self"]``)

    def _named(self, path: str, lang: str, name: str, line: int = 0, at: _Def | None = None) -> tuple[str | None, str]:
        """A bare name written in ``at`` (a definition; None: the file's own code): (definition
        id, rule) or (None, "")."""
        ix = self.ix
        if name not in ix.names and name not in self.bound.get(path, ()):
            return None, ""         # printf, len: nothing here defines it (~40% of call sites)
        scopes: list[tuple[str, str | None]] = []
        if at is not None:
            scopes = self._scopes(at)
            for scope, cls in scopes:
                got, how = self._in_scope(at, scope, cls, name)
                if got is not None:
                    return got, how
        got = ix.by_qual.get((path, name))
        if got is not None:
            return got, "same file"
        if lang == "go":
            got = _one(ix.dir_qual.get((posixpath.dirname(path), name), ()))
            if got is not None:
                return got, "same package"
        orig, targets = self._binding(path, name, line)
        if not targets and self._outside(path, name, line):
            return None, ""
        for t in targets:
            got = ix.by_qual.get((t, orig))
            if got is not None:
                return got, "imported name"
        value = self._module_value(targets, orig) if lang in _JS_FAMILY else None
        if value is not None:           # make(), make a require or default import of m: m's own function
            return value[0], "imported module"
        got = self._reexported(targets, orig)
        if got is not None:
            return got, "imported name"
        if lang == "python" and self._local_only(targets, orig):
            return None, ""
        if lang == "java":      # import static a.b.C.*: C's member
            got = _one(g for _, cls, _, files in self.bound.get(path, {}).get("*", ()) for t in files
                       if (g := ix.by_qual.get((t, f"{cls}.{name}"))) is not None)
            if got is not None:
                return got, "imported name"
        # a Python import of it names where it is: not any file the module imports (``fast``'s)
        got = self._in_imports(path, name, line) if not (targets and lang == "python") else None
        if got is not None:
            return got, "imported file"
        if lang == "cpp":           # a namespace's one definition of it, none of its files included here
            for scope, cls in scopes:
                got = _unique(ix, ix.quals.get((lang, f"{scope}.{name}"), ())) if cls is None else None
                if got is not None:
                    return got, "unique name"
        got = _by_name(ix, ix.top.get((_family(lang), name), ()))
        return (got, "unique name") if got is not None else (None, "")

    def _typed(self, path: str, lang: str, caller: _Def | None, recv: str, line: int, pos: int,
               types: dict[str, list[tuple[int, int, str, str]]], depth: int = 0) -> tuple[str | None, str, str]:
        """(class id, rule, type as written, ``a.B``: a Kotlin or Scala extension's) of what
        a variable or ``self`` attribute holds: the class (an id) it holds, where its assignment or
        annotation names one (``pipeline.vartypes``): a variable's typing in effect at byte ``pos``
        (the last one taking effect before it; one naming no class types nothing: ``x = x.clone()``'s
        call runs before its own typing takes effect); an attribute's one type over the
        class's methods (two different ones: unknown). A variable given by a function's call holds
        what the function declares it returns (``c = app.test_client()``: the callee found as any
        call is, ``app`` by its own type). A type or a call an outside module's import names (Go
        ``t *testing.T``, ``f, _ := os.Create(p)``) is (None, "outside"): not ours, so no rule
        guesses its method (``t.Error()`` was cobra's only ``Error`` method)."""
        if recv.startswith("self.") or (lang in _MEMBERS and recv not in types):    # java: a field by its name
            cls = self._class_of(caller)
            attr = recv[5:] if recv.startswith("self.") else recv
            got = self.attrs.get(cls, {}).get(attr) if cls else None
            # its type is named where it is assigned: that method's own import (``callindex.Scopes``)
            line = self.attr_at.get(cls, {}).get(attr, line) if cls else line
            how = "attribute's class"
        else:
            how, cur = "variable's class", recv
            over = types.get(vartypes.OVERFLOW)
            if over and pos > over[0][1]:
                return None, "", ""     # past the definition's last kept typing: what x holds is not known
            hit = _before(types.get(recv, ()), pos)     # its right side reads what came before
            for _ in range(3):      # x = y: what y held there; ^p: what x held before comprehension p
                if hit is None or hit[2][:1] not in ("=", "^"):
                    break
                if hit[2][0] == "=":
                    cur, limit = hit[2][1:], hit[1]
                else:
                    limit = int(hit[2][1:])
                hit = _before(types.get(cur, ()), limit)
            got = None
            if hit is not None:
                line, pos, got = hit[0], hit[1], (hit[2], hit[3])
        if got is None or not got[0]:
            return None, "", ""
        tname, trecv = got
        written = f"{trecv}.{tname}" if trecv not in ("", ".") else tname
        trecv = _own(trecv, self.selves.get(caller.id, "") if caller is not None else "")    # Go x := c.Root()
        head = trecv.split(".", 1)[0]
        if self._outside(path, head or tname, line) or (head == "std" and lang == "cpp"):     # std::vector<T> v
            return None, "outside", written     # t *testing.T, f := os.Create(): an outside module's, not ours
        cls, _ = self.call(path, lang, caller, tname, trecv, line, types, depth + 1, pos)
        if cls is not None and cls in self.returns:         # a function: what it returns, named in its file
            d = self.ix.defs[cls]
            rname, rrecv = self.returns[cls]
            written = f"{rrecv}.{rname}" if rrecv not in ("", ".") else rname
            if rname == "Self" and not rrecv:               # rust -> Self: the impl's type
                cls = self._class_of(d)
            else:
                cls, _ = self.call(d.path, d.lang, d, rname, rrecv, 0, None, depth + 1)
        if cls is None:
            return None, "", written
        d = self.ix.defs[cls]
        # an ES5 constructor function's prototype methods are qualified by it (View.render); a
        # function with none (express's createApp()) is a factory whose result is not known
        return (cls, how, written) if d.kind == "class" or (d.kind == "function" and lang in _JS_FAMILY
                                                          and (d.path, d.qual) in self.ix.owners) else (None, "", "")

    def call(self, path: str, lang: str, caller: _Def | None, name: str, recv: str, line: int = 0,
             types: dict[str, list[tuple[int, int, str, str]]] | None = None, depth: int = 0, pos: int = 0
             ) -> tuple[str | None, str]:
        ix = self.ix
        if recv and name not in ix.names and name not in self.aliases:
            return None, ""         # every rule but an import alias looks it up as a definition's last part
        if types is not None and depth < 3 and recv not in ("", ".", "self", "super") and \
                (recv in types or recv.startswith("self.") or (lang in _MEMBERS and "." not in recv)):
            cls, how, written = self._typed(path, lang, caller, recv, line, pos, types, depth)
            if cls is not None:     # a known class: its method (or its bases'), or no edge
                got = self._member(cls, name)
                if got is None and lang in _JVM:        # a Kotlin or Scala extension of it or of a base
                    got, how = self.jvm.extension(path, self._type_names(cls), name), "extension"
                return (got, how) if got is not None else (None, "")
            if written and lang in _JVM and (got := self.jvm.extension(path, ((written, False),), name)) is not None:
                return got, "extension"     # of a type not ours (Int.asCash, KSType.toClassName)
            if how == "outside":
                return None, ""
        if recv in ("self", "super"):
            cls = self._class_of(caller)
            if cls is None:
                if recv == "self" and caller is not None and caller.kind == "method":
                    # a method set on an object or a prototype (JS ``res.json = function``, whose
                    # ``this.send`` is ``res.send``), or of a Go type that is no struct (``type
                    # errorMsgs []*Error``): its sibling of that name in the same file
                    got = ix.by_qual.get((caller.path, f"{_parent_qual(caller.qual)}.{name}"))
                    if got is not None:
                        return got, ("own object" if lang in _JS_FAMILY else "own type")
                return None, ""
            if recv == "self":
                got = self._member(cls, name)
                return (got, "own class") if got is not None else (None, "")
            got = _one(g for b in self.bases.get(cls, ()) if (g := self._member(b, name, 1)) is not None)
            return (got, "base class") if got is not None else (None, "")
        if recv == "":
            return self._named(path, lang, name, line, caller)
        if recv != ".":
            orig, targets = self._binding(path, recv, line)
            head = recv.split(".", 1)[0]
            if lang in _JVM and not targets and not self._local(caller, head, types) and \
                    (got := self.jvm.packaged(recv, name)) is not None:
                return got, "package path"      # a.b.Square(), scopt.OptionParser: as ``import`` reads it
            if not targets and (self._outside(path, recv, line) or (head != recv and self._outside(path, head, line))):
                return None, ""             # an outside module's namespace or class (``io::Error::new``)
            value = self._module_value(targets, orig) if lang in _JS_FAMILY and orig == "default" else None
            # JS {Account as Acct}: a name, no module; a default import is the module (its
            # ``exports.f``) unless the module's value is its ``export default``
            named = lang in _JS_FAMILY and orig not in ("*", "") and (orig != "default" or bool(value and value[1]))
            if value is not None and value[1] and ix.defs[value[0]].kind == "class":
                got = self._member(value[0], name)              # export default class C: C.f()
                if got is not None:
                    return got, "imported module"
            # Python: the module itself, not a file it re-exports another name from (kb.run, kb.fast)
            mods = [t for t in targets if is_module(t, orig)] if lang == "python" else targets
            for t in targets:                                       # a module or class the file binds
                got = None if named or t not in mods else ix.by_qual.get((t, name))
                got = got or ix.by_qual.get((t, f"{orig.rsplit('.', 1)[-1]}.{name}"))
                if got is not None:
                    return got, "imported module"
            # pkg.PublicClient(): pkg's re-export; a Python module's own import of it (a function
            # moved out, imported back) when ``recv`` binds that module
            module = lang == "python" and bool(mods)
            got = self._reexported(mods if module else targets, name, plain=module) if not named else None
            if got is not None:
                return got, "imported module"
            if lang == "python" and targets and not module and "." not in recv and \
                    (cls := self._reexported(targets, orig)) is not None and ix.defs[cls].kind == "class":
                got = self._member(cls, name)       # C.f(), C imported from a module that imports it
                if got is not None:
                    return got, "imported module"
            if named and (cls := self._reexported(targets, orig)) is not None and ix.defs[cls].kind == "class":
                got = self._member(cls, name)                       # Acct.open(), Acct a barrel's re-export
                if got is not None:
                    return got, "imported module"
            if not targets and "." in recv:                         # x.C.f(): a class of a module x binds
                head, cls = recv.rsplit(".", 1)
                for t in self._binding(path, head, line)[1]:
                    got = ix.by_qual.get((t, f"{cls}.{name}"))
                    if got is not None:
                        return got, "imported module"
                if lang == "python":
                    got = self._dotted(path, recv, name, line)
                    if got is not None:
                        return got, "imported module"
            qual = f"{recv}.{name}"
            # geo::Shape::area() inside namespace geo, m::k() inside mod util: geo.Shape.area, util.m.k first
            quals = [f"{s}.{qual}" for s, _ in self._scopes(caller)] if caller is not None else []
            quals.append(qual)
            got = None
            for q in quals:
                got = ix.by_qual.get((path, q))
                if got is None and (lang == "cpp" or q is qual):
                    got = self._in_imports(path, q, line)
                if got is not None:
                    break
            if got is None and lang == "cpp":
                got = next((g for q in quals[:-1] if (g := _unique(ix, ix.quals.get((lang, q), ()))) is not None), None)
            if got is None:
                got = _by_name(ix, ix.quals.get((_family(lang), qual), ()))
            if got is not None:
                return got, "qualified name"
            if lang != "python" and "." not in recv:     # Python's bindings are known exactly (above)
                got = _one(i for t in self.imported.get(path, ()) if recv in _stem(t)
                           and (i := ix.by_qual.get((t, name))) is not None)
                if got is not None:
                    return got, "imported module"
        if name.startswith("__") or _methods(ix, lang, ix.method_names.get((_family(lang), name), ())) != 1:
            return None, ""         # several classes define it: the receiver's type would decide
        near = [*ix.methods.get((path, name), ()),
                *(i for t in self.imported.get(path, ()) for i in ix.methods.get((t, name), ()))]
        got = _one(near) if lang not in _C_FAMILY or _methods(ix, lang, near) != 1 else \
            next((i for i in near if i in ix.declared), near[0])       # the header's: "..., its definition"
        if got is not None and self.hidden.hides(lang, name):
            return None, ""         # a file that failed to parse may declare another (``partialparse``)
        return (got, "method name") if got is not None else (None, "")

    def _type_names(self, cls: str, depth: int = 0) -> list[tuple[str, bool]]:
        """The names of class ``cls`` and of its bases (``INHERIT_DEPTH`` levels), nearest first, as
        ``JvmScope.extension`` matches a receiver against them: with their package (exact), or a
        class of a file that failed to parse by its name as parsed (``Builder``: its enclosing
        class and bases may be lost, so ``fun Taggable.Builder.f()`` may be its)."""
        d = self.ix.defs[cls]
        out = [(d.qual, False) if d.path in self.hidden.paths else (self.jvm.full_name(cls), True)]
        if depth < INHERIT_DEPTH:
            for b in self.bases.get(cls, ()):
                out += [t for t in self._type_names(b, depth + 1) if t not in out]
        return out

    def _local(self, caller: _Def | None, head: str, types: dict | None) -> bool:
        """Whether ``head`` is a variable or parameter of the caller (typed or not: ``val (p, q)``) or
        a field or member of its class: it shadows a package of that name (``util.check()``)."""
        if types and head in types:
            return True
        cls = self._class_of(caller)
        return cls is not None and (head in self.attr_at.get(cls, ()) or self._member(cls, head) is not None)

    def _dotted(self, path: str, recv: str, name: str, line: int) -> str | None:
        """``a.b.f()`` in Python: ``f`` of the module ``a.b`` names (``_modules``), as the module
        defines or imports it; else ``a.C.f()``: the method of a class ``C`` module ``a`` defines
        or imports."""
        ix = self.ix
        mods = self._modules(path, recv, line)
        got = _one(g for t in mods if (g := ix.by_qual.get((t, name))) is not None) or self._reexported(mods, name)
        if got is not None:
            return got
        head, cls = recv.rsplit(".", 1)
        for t in self._modules(path, head, line):
            got = ix.by_qual.get((t, f"{cls}.{name}"))
            if got is None and (c := self._reexported([t], cls)) is not None and ix.defs[c].kind == "class":
                got = self._member(c, name)
            if got is not None:
                return got
        return None

    def base(self, cls: _Def | None, path: str, lang: str, name: str, recv: str) -> tuple[str | None, str]:
        """A base of class ``cls`` (its enclosing scopes are looked in first) as written."""
        got, how = self.call(path, lang, cls, name, recv) if recv else self._named(path, lang, name, 0, cls)
        return (got, how) if got is not None and self.ix.defs[got].kind == "class" else (None, "")


def _own(recv: str, me: str = "") -> str:
    """A receiver as the rules read it: the own object, kept as the code names it
    (``pipeline.callrefs``: Python's ``cls``, ``this``, Rust's ``Self``, a Go method's receiver
    variable ``me``, its ``meta["self"]``), is ``self``."""
    head, dot, rest = recv.partition(".")
    return f"self{dot}{rest}" if head in SELF or (me and head == me) else recv


def _methods(ix: _Index, lang: str, ids: Collection[str]) -> int:
    """How many methods ``ids`` are: a C/C++ declaration in its class (a header's) and the one
    definition of its name (``void A::f() {...}`` in a .cc) are one."""
    return len(ids) if len(ids) < 2 or lang not in _C_FAMILY else len({_defined(ix, i, "")[0] for i in ids})


def _before(typings, limit: int) -> tuple[int, int, str, str] | None:
    """The last of a variable's typings (line, byte position, type, receiver) taking effect before
    byte ``limit`` (they come in position order), or None."""
    got = None
    for t in typings:
        if t[1] >= limit:
            break
        got = t
    return got


def _attributes(r: _Resolver, ix: _Index, refs: list[tuple[dict, dict]]) -> None:
    """Each class's attribute types: its methods' ``self.x = Foo()`` / ``self.x: Foo`` / ``self.x
    = app`` (what the method's ``app`` holds there: ``def __init__(self, app: Flask)``) and its
    body's ``x: Foo``; ``r.attrs`` keeps an attribute's type when every one names the same."""
    seen: dict[str, dict[str, set[tuple[str, str]]]] = {}
    unsure: set[str] = set()
    for n, meta in refs:
        if n["kind"] not in ("method", "class") or "types" not in meta:
            continue
        cls = n["id"] if n["kind"] == "class" else r._class_of(ix.defs.get(n["id"]))
        if cls is None:
            continue
        types = meta["types"]
        if any(v == vartypes.OVERFLOW for v, *_ in types):
            unsure.add(cls)                 # some assignments were not kept: no attribute of it is sure
            continue
        for var, tname, trecv, at, *_ in types:
            attr = var[5:] if var.startswith("self.") else ""       # a class body's fields are self.x too
            if not attr:
                continue
            if tname.startswith("="):       # the method's variable of that name, as typed above
                got = [(t, rc) for v, t, rc, a, *_ in types if v == tname[1:] and a <= at]
                if not got or got[-1][0].startswith("="):
                    continue
                tname, trecv = got[-1]
            seen.setdefault(cls, {}).setdefault(attr, set()).add((tname, trecv))
            r.attr_at.setdefault(cls, {}).setdefault(attr, at)
    r.attrs = {c: {a: next(iter(t)) for a, t in attrs.items() if len(t) == 1}
               for c, attrs in seen.items() if c not in unsure}


def resolve(nodes: list[dict], import_edges: Iterable[dict],
            bindings: dict[str, dict[str, list]], known: Iterable[dict] = (),
            known_bases: Iterable[tuple[str, str]] = (), callers: Collection[str] | None = None,
            kept: Iterable[dict] = ()) -> list[dict]:
    """``calls`` and ``inherits`` edges of ``nodes`` (code nodes with ``meta`` call and base
    records, plus their files), and the ``tests`` edges a Go test's calls make (``by: "use"``,
    ``pipeline.testlinks.used_by_tests``: a Go import lands on every file of the package, what
    the test calls says which it tests); ``import_edges``: the resolved ``imports`` edges (file
    ids); ``bindings``: the names imports bind (``imports.resolve(bindings=)``); ``known``:
    further definitions that may be called but whose own calls are not resolved here (an
    overlay's base); ``known_bases``: their own (class, base) ``inherits`` pairs, which a call
    through an unchanged class's bases follows (an overlay missed ``DataFrame.transform`` ->
    ``Apply.transform``). ``callers``: the paths whose nodes' calls are linked (None: all), with
    ``kept``, the ``calls`` edges of every other caller as they stand (``pipeline.callkeep``): the
    bases and declared return types are read from every node still, the typed attributes from
    the callers' files when they are all Python (a Python class's attributes are its own file's)."""
    ix = _Index([*known, *nodes])
    path_of = {n["id"]: n["path"] for n in nodes if n["kind"] == "file"}
    path_of.update({n["id"]: n["path"] for n in known if n["kind"] == "file"})
    imported: dict[str, list[str]] = defaultdict(list)
    for e in import_edges:
        s, d = path_of.get(e["src"]), path_of.get(e["dst"])
        if s is not None and d is not None:
            imported[s].append(d)
    r = _Resolver(ix, imported, bindings, set(path_of.values()), [*known, *nodes])
    for src, dst in known_bases:
        if src in ix.defs and dst in ix.defs:
            r.bases.setdefault(src, []).append(dst)
    refs = [(n, json.loads(n["meta"])) for n in nodes
            if n.get("meta") and n["kind"] in ("file", *_CODE) and (callers is None or n["path"] in callers)]
    based = typed = returned = refs
    if callers is not None:         # of the other nodes, what the callers' links read (their order kept)
        others = [(n, json.loads(m)) for n in nodes if (m := n.get("meta")) and n["kind"] in ("file", *_CODE)
                  and n["path"] not in callers and ('"bases"' in m or '"returns"' in m or '"types"' in m)]
        based = refs + [(n, m) for n, m in others if "bases" in m]
        returned = refs + [(n, m) for n, m in others if "returns" in m]
        if any(n.get("language") != "python" for n, _ in refs):
            typed = refs + [(n, m) for n, m in others if "types" in m]
    out: list[dict] = []
    for n, meta in based:           # bases first: a method call on self may go through them
        for name, recv in meta.get("bases", ()):
            got, how = r.base(ix.defs.get(n["id"]), n["path"], n.get("language") or "", name, recv)
            if got is not None and got != n["id"]:
                r.bases.setdefault(n["id"], []).append(got)
                out.append({"src": n["id"], "dst": got, "kind": "inherits", "weight": 1.0,
                            "meta": json.dumps({"how": how, "as": _written(name, recv)},
                                               ensure_ascii=False)})
    _attributes(r, ix, typed)
    # declared return types: the parsed nodes' (their meta read above), an overlay base's known ones
    said = [(n, json.loads(n["meta"])) for n in known if '"returns"' in (n.get("meta") or "")]
    for n, meta in (*returned, *said):
        if got := meta.get("returns"):
            r.returns[n["id"]] = (got[0], got[1])
    supers = _classes(ix, r.bases) if ix.arity else None     # what an argument may be passed as (Java overloads)
    for n, meta in refs:
        sites = meta.get("calls")
        if not sites:
            continue
        caller = ix.defs.get(n["id"])
        lang = n.get("language") or ""
        types: dict[str, list[tuple[int, int, str, str]]] = {}
        for var, tname, trecv, at, *eff in meta.get("types", ()):     # (line, position in effect)
            types.setdefault(var, []).append((at, eff[0] if eff else at << 20, tname, trecv))
        found: dict[str, list] = {}
        me = meta.get("self", "")
        if me:
            r.selves[n["id"]] = me      # x := me.Root(): x holds what self.Root returns
        for name, recv, line, *at in sites:     # its byte position (an older parse: its line's), arguments
            got, how = _defined(ix, *r.call(n["path"], lang, caller, name, _own(recv, me), line, types, 0,
                                            at[0] if at else line << 20))
            for got, how in (_by_arity(ix, got, how, at[1], at[2] if len(at) > 2 else "", supers)
                             if got in ix.arity and len(at) > 1 else ((got, how),)):
                if got is None or got == n["id"]:
                    continue
                seen = found.get(got)
                if seen is None:
                    found[got] = [how, _written(name, recv), line, 1]
                else:
                    seen[3] += 1
        for dst, (how, as_, line, k) in found.items():     # json.dumps's text, without its per-call cost
            out.append({"src": n["id"], "dst": dst, "kind": "calls", "weight": float(k),
                        "meta": f'{{"how": {_quoted(how)}, "as": {_quoted(as_)}, "line": {int(line)}}}'})
    out.extend(kept)
    file_id = {p: i for i, p in path_of.items()}
    # a method-name guess (``err.Error()``: cobra's one Error method) is no evidence of what a test tests
    used = {(t, ix.defs[e["dst"]].path) for e in out
            if (t := path_of.get(e["src"]) or ix.defs[e["src"]].path).endswith("_test.go")
            and '"how": "method name"' not in e["meta"]}
    out.extend(tests_edge(file_id[t], file_id[d], "use") for t, d in used_by_tests(used, imported)
               if t in file_id and d in file_id)
    return out


__all__ = ["resolve", "INHERIT_DEPTH", "REEXPORT_DEPTH"]
