"""Go: a type's methods declared in other files of its package (the link stage's step).

A Go package is every file of one folder with one ``package`` clause, and a method may be declared
in any of them: cobra's ``Command`` has 154 methods, 38 of them in ``completions.go``,
``flag_groups.go`` ... The parse is per file, so it hangs a method under its type only within the
type's file; a method elsewhere is its own file's child (``Command.GenBashCompletion``). This step
joins them: a ``contains`` edge from the type to each such method (the method keeps its file as
parent: its path and lines are its file's), and the type's ``api`` lists them after its own
members, under a ``// <path>`` line per file.

The type's api is rewritten on every index, reused or not: its meta's ``api_own`` is how many
characters of it the parse wrote, so the lines a previous run added are cut off first.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import defaultdict

from stratum.tokens import encoding

_PACKAGE = re.compile(r"^package[ \t]+(\w+)", re.M)
OWN = "api_own"                 # meta: the length of the api the parse wrote


def _indent(text: str) -> str:
    return "\n".join("    " + ln if ln.strip() else ln for ln in text.split("\n"))


def package_methods(nodes: list[dict], token_encoding: str) -> list[dict]:
    """The ``contains`` edges from each Go type to its methods in other files of its package; each
    such type's ``api`` (and ``api_tokens``) gets those methods' signatures and docs. ``nodes``: a
    whole version's records (parsed and reused), changed in place."""
    files: dict[str, tuple[str, str]] = {}        # path -> (folder, package)
    file_ids: dict[str, str] = {}
    for n in nodes:
        if n["kind"] == "file" and n.get("language") == "go":
            pkg = _PACKAGE.search(n.get("full") or "")
            files[n["path"]] = (posixpath.dirname(n["path"]), pkg.group(1) if pkg else "")
            file_ids[n["path"]] = n["id"]
    types: dict[tuple[str, str, str], dict] = {}
    methods: list[dict] = []
    for n in sorted((n for n in nodes if n.get("language") == "go" and n["path"] in files),
                    key=lambda n: (n["path"], n.get("start_line") or 0)):
        qual = n["qualname"]
        if n["kind"] == "class" and "." not in qual and "#" not in qual:
            types.setdefault((*files[n["path"]], qual), n)
        elif n["kind"] == "method" and qual.count(".") == 1 and n.get("parent_id") == file_ids[n["path"]]:
            methods.append(n)
    elsewhere: dict[str, list[dict]] = defaultdict(list)
    edges = []
    for m in methods:
        t = types.get((*files[m["path"]], m["qualname"].split(".", 1)[0]))
        if t is not None and t["path"] != m["path"]:
            elsewhere[t["id"]].append(m)
            edges.append({"src": t["id"], "dst": m["id"], "kind": "contains"})
    enc = None
    for t in types.values():
        meta = json.loads(t.get("meta") or "{}")
        got = elsewhere.get(t["id"])
        if not got and OWN not in meta:
            continue
        api = t["api"] or ""
        api = api[:meta.pop(OWN, len(api))]
        if got:
            meta[OWN] = len(api)
            by_file: dict[str, list[dict]] = defaultdict(list)
            for m in got:
                by_file[m["path"]].append(m)
            api += "".join(f"\n    // {path}" + "".join("\n" + _indent(m["api"] or m["signature"] or "")
                                                       for m in ms)
                           for path, ms in sorted(by_file.items()))
        t["meta"] = json.dumps(meta, ensure_ascii=False, separators=(",", ":")) if meta else None
        t["api"] = api
        enc = enc or encoding(token_encoding)
        t["api_tokens"] = len(enc.encode_ordinary(api)) if api else 0
    return edges


__all__ = ["package_methods", "OWN"]
