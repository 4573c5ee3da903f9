"""JavaScript/TypeScript bare specifiers that name the repository's own code (the rules are listed
in ``pipeline.imports``, which resolves every language and builds the edges). Pure: paths and the
text of ``package.json``, ``tsconfig.json`` and ``jsconfig.json`` files only.

A TypeScript monorepo imports its packages by name (vue-core: ``import {hasOwn} from
'@vue/shared'`` in 445 places); read as outside modules they left no import edge between packages,
and so no calls or tests edge across them. As TypeScript resolves, first a config's
``compilerOptions.paths`` (``"@vue/*": ["./packages/*/src"]``, one ``*``; the config nearest the
importer first, ``extends`` followed), then its ``baseUrl``, then a workspace package: any
``package.json`` with a ``name`` (the shallowest when several say one name), its entry read from
``source``/``types``/``module``/``exports["."]``/``main`` and ``src/index.*``, TypeScript source
first (a checked-in ``index.js`` that only loads ``dist/`` is no source: vue's ``main``), a build
folder read as ``src/`` (``dist/index.mjs`` -> ``src/index.ts``); ``@a/b/x`` -> the package's
``exports["./x"]`` (``./*`` patterns too) or its file ``x``. A ``package.json`` under
``node_modules`` names no package of ours; one in a test, fixture or example folder serves that
folder's files alone. The texts are those ``pipeline.files.read_manifests``
reads (the names ``files.MANIFESTS`` lists). A config or
``package.json`` that does not parse (JSON with comments and trailing commas does) is skipped with
a warning, never failing the index.
"""

from __future__ import annotations

import json
import logging
import posixpath
import re
from collections.abc import Callable, Iterator

from pipeline.relpaths import join as _join, norm as _norm, parent as _dir

log = logging.getLogger(__name__)

CONFIGS = ("tsconfig.json", "jsconfig.json")     # the configs an importer's folders are searched for
_TS_SOURCE = (".ts", ".tsx", ".mts", ".cts")
_DECLARATION = (".d.ts", ".d.mts", ".d.cts")
_BUILD_DIRS = {"dist", "lib", "build", "out", "esm", "cjs", "es", "types"}   # read as ``src/`` too
_ENTRY_FIELDS = ("source", "types", "typings", "module", "main")
_EXTENDS_DEPTH = 8
_TEST_AREAS = {"test", "tests", "__tests__", "spec", "e2e", "fixtures", "__fixtures__", "fixture",
               "__mocks__", "examples", "example", "playground", "testdata", "test-fixtures"}
# JSON with comments and trailing commas, as tsconfig allows: what the scanner stops at, and a string
_SPECIAL = re.compile(r'["/,}\]]')
_STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def loads_jsonc(text: str) -> object:
    """JSON with ``//`` and ``/* */`` comments and trailing commas (tsconfig's dialect); ValueError
    when it does not parse (as ``json.loads``; nesting past the recursion limit too). One pass, in
    time linear in the text: a regex per comment or string rescanned the rest of the text for each
    ``/*`` with no ``*/`` (a review: 220 KB of them took 60 s)."""
    text = text.lstrip("\ufeff")
    out: list[str] = []
    last = -1                       # out's last piece that is not whitespace (a comma there: trailing)
    i, n = 0, len(text)
    while i < n:
        m = _SPECIAL.search(text, i)
        k = m.start() if m is not None else n
        if k > i:
            out.append(text[i:k])
            if not text[i:k].isspace():
                last = len(out) - 1
        if m is None:
            break
        c = text[k]
        if c == '"':
            sm = _STRING.match(text, k)
            if sm is None:
                raise ValueError(f"an unterminated string at character {k}")
            out.append(sm.group())
            last, i = len(out) - 1, sm.end()
        elif c == "/" and text.startswith("//", k):
            j = text.find("\n", k)
            i = n if j < 0 else j
        elif c == "/" and text.startswith("/*", k):
            j = text.find("*/", k + 2)
            if j < 0:
                raise ValueError(f"an unterminated /* comment at character {k}")
            i = j + 2
        else:                       # , } ] or a lone /
            if c in "}]" and last >= 0 and out[last] == ",":
                out[last] = ""
            out.append(c)
            last, i = len(out) - 1, k + 1
    try:
        return json.loads("".join(out))
    except RecursionError as e:
        raise ValueError(f"nested too deep ({e})") from None


def is_js_manifest(name: str) -> bool:
    """A file name this module reads: ``package.json``, a tsconfig or jsconfig (``tsconfig.base.json``)."""
    return name == "package.json" or (name.startswith(("tsconfig", "jsconfig")) and name.endswith(".json"))


def _strings(v: object) -> Iterator[str]:
    """The paths an ``exports`` value names, in order (conditions and fallbacks flattened); a stack,
    not recursion: a deeply nested value must not fail the index."""
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            yield x
        elif isinstance(x, list):
            stack.extend(reversed(x))
        elif isinstance(x, dict):
            stack.extend(reversed(list(x.values())))


def _scope(folder: str) -> str:
    """The folder whose files a package in ``folder`` serves: a test's, fixture's or example's
    package (``test/fixtures/app/package.json`` named ``react``) only its own test area's
    (``test``), lest it take the name from the package the code means; any other, every file."""
    parts = folder.split("/")
    for i, seg in enumerate(parts):
        if seg in _TEST_AREAS:
            return "/".join(parts[:i + 1])
    return ""


def _rank(path: str) -> int:
    """TypeScript source before JavaScript before a declaration file."""
    if path.endswith(_DECLARATION):
        return 2
    return 0 if path.endswith(_TS_SOURCE) else 1


class _Config:
    """One tsconfig/jsconfig's own ``paths``, ``baseUrl`` and ``extends``."""

    def __init__(self, path: str, data: dict):
        opts = data.get("compilerOptions")
        opts = opts if isinstance(opts, dict) else {}
        here = _dir(path)
        base = opts.get("baseUrl")
        self.base_url = _norm(_join(here, base)) if isinstance(base, str) else None
        paths = opts.get("paths")
        self.paths: dict[str, list[str]] | None = None
        if isinstance(paths, dict):
            self.paths = {k: [t for t in v if isinstance(t, str)] for k, v in paths.items()
                          if isinstance(k, str) and isinstance(v, list)}
        self.paths_dir = here                  # where paths resolve without a baseUrl
        ext = data.get("extends")
        self.extends = [e for e in (ext if isinstance(ext, list) else [ext]) if isinstance(e, str)]


class JsWorkspace:
    """Bare specifiers -> repository files. ``find``: a repository path as a relative import
    would be written (``a/b``) -> the file it lands on (extensions, ``index.*``), else None."""

    def __init__(self, manifests: dict[str, str], find: Callable[[str], str | None]):
        self.find = find
        self.configs: dict[str, _Config] = {}
        # name -> (folder, package.json, the folder whose files it serves), shallowest first
        self.packages: dict[str, list[tuple[str, dict, str]]] = {}
        for mpath, text in sorted(manifests.items(), key=lambda kv: (kv[0].count("/"), kv[0])):
            base = posixpath.basename(mpath)
            if "node_modules" in mpath.split("/") or not is_js_manifest(base):
                continue
            try:
                data = loads_jsonc(text)
            except ValueError as e:
                log.warning("%s does not parse (%s); its aliases and package name are not read", mpath, e)
                continue
            if not isinstance(data, dict):
                log.warning("%s is not a JSON object; skipped", mpath)
                continue
            if base == "package.json":
                name = data.get("name")
                if isinstance(name, str) and name:
                    self.packages.setdefault(name, []).append((_dir(mpath), data, _scope(_dir(mpath))))
            else:
                self.configs[mpath] = _Config(mpath, data)
        self._near: dict[str, list[tuple[dict[str, list[str]] | None, str, str | None]]] = {}

    # -- configs ----------------------------------------------------------------------------
    def _effective(self, path: str, seen: tuple[str, ...] = ()
                   ) -> tuple[dict[str, list[str]] | None, str, str | None]:
        """(paths, the folder they resolve from, baseUrl) of a config, ``extends`` followed (its
        own settings over what it extends, as TypeScript merges them)."""
        c = self.configs[path]
        paths, paths_dir, base_url = None, c.paths_dir, None
        if len(seen) < _EXTENDS_DEPTH:
            for e in c.extends:                # later ones override earlier ones
                parent = self._config_file(_dir(path), e)
                if parent is not None and parent not in seen:
                    p, pd, b = self._effective(parent, (*seen, path))
                    if p is not None:
                        paths, paths_dir = p, pd
                    base_url = b if b is not None else base_url
        if c.base_url is not None:
            base_url = c.base_url
        if c.paths is not None:
            paths, paths_dir = c.paths, c.paths_dir
        return paths, (base_url if base_url is not None else paths_dir), base_url

    def _config_file(self, here: str, spec: str) -> str | None:
        """The config an ``extends`` names: a relative path, or a file of a workspace package."""
        if spec.startswith(("./", "../", "/")):
            p = _norm(_join(here, spec.lstrip("/") if spec.startswith("/") else spec))
        else:
            got = self._package_of(here, spec)
            p = _norm(_join(got[0], got[2])) if got else None
        if p is None:
            return None
        for c in (p, p + ".json", _join(p, "tsconfig.json")):
            if c in self.configs:
                return c
        return None

    def _nearest(self, folder: str) -> list[tuple[dict[str, list[str]] | None, str, str | None]]:
        """The settings of each config in ``folder`` and the folders above it, nearest first."""
        got = self._near.get(folder)
        if got is None:
            own = [self._effective(c) for c in (_join(folder, n) for n in CONFIGS) if c in self.configs]
            got = own + (self._nearest(_dir(folder)) if folder else [])
            self._near[folder] = got
        return got

    def _alias(self, spec: str, paths: dict[str, list[str]], base: str) -> str | None:
        """``spec`` through one config's ``paths``: an exact key first, else the ``*`` pattern with
        the longest prefix; its targets tried in order."""
        best: tuple[int, str, str] | None = None            # (prefix length, key, what * stands for)
        for key in paths:
            if "*" not in key:
                if key == spec:
                    best = (len(key) + 1, key, "")
                    break
                continue
            pre, _, suf = key.partition("*")
            if spec.startswith(pre) and spec.endswith(suf) and len(spec) >= len(pre) + len(suf):
                if best is None or len(pre) > best[0]:
                    best = (len(pre), key, spec[len(pre):len(spec) - len(suf)])
        if best is None:
            return None
        for target in paths[best[1]]:
            p = _norm(_join(base, target.replace("*", best[2], 1)))
            f = self.find(p) if p is not None else None
            if f is not None:
                return f
        return None

    # -- packages ---------------------------------------------------------------------------
    def _package_of(self, where: str, spec: str) -> tuple[str, dict, str] | None:
        """(folder, package.json, the subpath) of the workspace package a specifier names (the
        longest name: ``@a/b`` of ``@a/b/x``), the shallowest of that name serving the folder
        ``where`` (``_scope``)."""
        parts = spec.split("/")
        for k in range(min(len(parts), 2), 0, -1):
            for folder, data, scope in self.packages.get("/".join(parts[:k]), ()):
                if not scope or where == scope or where.startswith(scope + "/"):
                    return folder, data, "/".join(parts[k:])
        return None

    def _landings(self, folder: str, targets: Iterator[str]) -> list[str]:
        """The files ``targets`` (a manifest's paths) land on, each also read from ``src/`` in
        place of a build folder (``dist/index.js`` -> ``src/index.ts``)."""
        out = []
        for t in targets:
            p = _norm(_join(folder, t))
            if p is None:
                continue
            tries = [p]
            rel = posixpath.relpath(p, folder) if folder else p
            head, _, rest = rel.partition("/")
            if rest and head in _BUILD_DIRS:
                stem = rest
                for e in (*_DECLARATION, ".js", ".mjs", ".cjs", ".jsx"):
                    if stem.endswith(e):
                        stem = stem[:-len(e)]
                        break
                tries.append(_join(folder, "src", stem))
            for c in tries:
                f = self.find(c)
                if f is not None and f not in out:
                    out.append(f)
        return out

    def _entry(self, folder: str, data: dict) -> str | None:
        """A package's main module: TypeScript source its fields name, else ``src/index.ts``/
        ``index.ts``, else JavaScript its fields name, else ``src/index.js``/``index.js``, else a
        declaration file."""
        exports = data.get("exports")
        dot = exports.get(".") if isinstance(exports, dict) and any(k.startswith(".") for k in exports) \
            else exports
        named = [data.get(f) for f in _ENTRY_FIELDS[:4]] + [dot, data.get("main")]
        hits = self._landings(folder, (s for v in named for s in _strings(v)))
        usual = [f for f in (self.find(_join(folder, "src", "index")), self.find(_join(folder, "index")))
                 if f is not None]
        for rank in (0, 1, 2):
            for f in [h for h in hits if _rank(h) == rank] + [u for u in usual if _rank(u) == rank]:
                return f
        return None

    def _subpath(self, folder: str, data: dict, sub: str) -> str | None:
        """``@a/b/x``: the package's ``exports["./x"]`` (or a ``./*`` pattern), else its file ``x``."""
        exports = data.get("exports")
        if isinstance(exports, dict):
            key = "./" + sub
            targets = exports.get(key)
            if targets is None:
                for k, v in exports.items():
                    pre, star, suf = k.partition("*")
                    if star and key.startswith(pre) and key.endswith(suf) and len(key) >= len(pre) + len(suf):
                        mid = key[len(pre):len(key) - len(suf)]
                        targets = [s.replace("*", mid) for s in _strings(v)]
                        break
            hits = self._landings(folder, _strings(targets))
            if hits:
                return min(hits, key=_rank)
        p = _norm(_join(folder, sub))
        return self.find(p) if p is not None else None

    # -- resolve ----------------------------------------------------------------------------
    def resolve(self, importer: str, spec: str) -> str | None:
        """The repository file a bare specifier written in ``importer`` names, else None (outside)."""
        if not spec or spec.startswith("node:"):
            return None
        for paths, base, _ in self._nearest(_dir(importer)):
            if paths:
                f = self._alias(spec, paths, base)
                if f is not None:
                    return f
        for _, _, base_url in self._nearest(_dir(importer)):
            if base_url is not None:
                p = _norm(_join(base_url, spec))
                f = self.find(p) if p is not None else None
                if f is not None:
                    return f
                break                          # the nearest baseUrl only
        got = self._package_of(_dir(importer), spec)
        if got is None:
            return None
        folder, data, sub = got
        return self._subpath(folder, data, sub) if sub else self._entry(folder, data)


__all__ = ["JsWorkspace", "loads_jsonc", "is_js_manifest", "CONFIGS"]
