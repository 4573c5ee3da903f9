"""Which callers a re-index links again, and the ``calls`` edges it keeps from the previous version.

Linking every caller's calls again was ~18% of a one-file re-index of a large repository (sympy:
32,000 callers' metas read as JSON, each call site looked up again). A caller in an unchanged file
links as it did when nothing its lookups read changed, which holds when:

- the same files are there (none added or removed: import resolution and module lookups read
  them), and no manifest changed (``files.MANIFESTS``, read by import resolution);
- the previous version was linked by the same linker (``link_key``: the pipeline's own source);
- each changed file is the same to every other file's lookups (``facts``): its definitions (id,
  kind, qualified name, language, an overload's arity and parameters, the prototype and test
  marks), its classes' bases, its functions' declared return types, its methods' typed
  attributes as written (not a Python file's: a Python class's attributes are read by its own
  file's callers alone, linked again anyway), a JavaScript definition's being the module's value
  (``module.exports = function f``, ``export default``), and its imports in their lines' order but
  not their lines (a Python import's scope: the module's or a body's, ``callindex.Scopes``).

A one-line edit in a body keeps all of these, a line added above keeps them too; a name added,
removed or renamed, a changed import or signature does not, and then every caller is linked again,
as before. Otherwise only the changed files' callers are linked (``calls.resolve(callers=)``) and
every other caller's ``calls`` edges are the previous version's. No file changed (a run that merges
notes alone) is the trivial case: no caller is linked and every edge is kept (sympy relinked all
2,054 files for it, 3.2-4.0 s a run).
"""

from __future__ import annotations

import functools
import hashlib
import json
import posixpath
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from pipeline.callindex import CODE, JS_FAMILY, MODULE_VALUE
from pipeline.partialparse import GUARDED, SYNTAX_ERROR

CALL_COLUMNS = ["src", "dst", "kind", "weight", "meta"]     # what ``calls.resolve`` makes an edge of
MOST_CHANGED = 0.25         # of the files changed, beyond which all are linked (comparing would cost as much)


@dataclass
class Kept:
    callers: set[str]           # the paths whose callers are linked again
    edges: list[dict]           # the previous version's ``calls`` edges of every other caller


@functools.lru_cache(maxsize=1)
def link_key() -> str:
    """A hash of the pipeline's own modules and language rules (``languages/``: its queries and import
    readers): edges a previous linker made are kept only by the same one."""
    h = hashlib.blake2b(digest_size=12)
    root = Path(__file__).parent
    for p in sorted(q for pat in ("*.py", "languages/*.py", "languages/*.scm") for q in root.glob(pat)):
        h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def plan(prev_snap, changed: set[str], nodes: list[dict]) -> Kept | None:
    """What to keep (``Kept``) when only the changed files' callers need linking again, else None."""
    from pipeline.files import MANIFESTS

    if prev_snap is None or not prev_snap.has("edges") \
            or ((prev_snap.manifest.report or {}).get("link") or {}).get("key") != link_key() \
            or any(posixpath.basename(p) in MANIFESTS for p in changed):
        return None
    paths = {n["path"] for n in nodes if n["kind"] == "file"}
    if len(changed) > MOST_CHANGED * len(paths):
        return None
    before = prev_snap.read("nodes", columns=["path"], where="kind = 'file'").column("path").to_pylist()
    if len(before) != len(paths) or set(before) != paths:
        return None
    listed = ", ".join("'" + p.replace("'", "''") + "'" for p in sorted(changed))      # SQL's quoting
    cols = ["id", "kind", "path", "qualname", "language", "meta", "start_line", "end_line", "subkind", "signature"]
    old = prev_snap.read("nodes", columns=cols, where=f"path IN ({listed})").to_pylist() if changed else []
    new = [n for n in nodes if n["path"] in changed]
    if any(n["kind"] == "file" and n.get("language") in GUARDED and SYNTAX_ERROR in (n.get("meta") or "")
           for n in (*old, *new)):
        return None     # a broken Kotlin/Scala file's text decides method-name edges (``partialparse``)
    was, now = facts(old), facts(new)
    if was is None or was != now:
        return None
    ids = pa.array([n["id"] for n in new], pa.string())
    tab = prev_snap.read("edges", columns=CALL_COLUMNS, where="kind = 'calls'")
    return Kept(set(changed), tab.filter(pc.invert(pc.is_in(tab["src"], value_set=ids))).to_pylist())


def facts(nodes: list[dict]) -> list[str] | None:
    """What other files' lookups read of these files' code nodes (the module docstring), one sorted
    string a node; None when a file holds two definitions of one qualified name (which one a
    lookup finds follows the nodes' order: not compared, so linked again)."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for n in nodes:
        if n["kind"] in CODE and n.get("language") == "python" and n.get("subkind") != "lambda" \
                and n.get("start_line") is not None and n.get("end_line") is not None:
            spans.setdefault(n["path"], []).append((n["start_line"], n["end_line"]))
    out, seen = [], set()
    for n in nodes:
        if n["kind"] not in ("file", *CODE):
            continue
        key = (n["path"], n["qualname"], n["kind"] == "file")
        if key in seen:
            return None
        seen.add(key)
        meta = json.loads(n.get("meta") or "{}")
        python = n.get("language") == "python"
        if n["kind"] == "file":
            imports = meta.get("imports", ())
            order = {ln: k for k, ln in enumerate(sorted({i.get("line") or 0 for i in imports}))}
            meta = {"imports": [_import(i, python, spans.get(n["path"], ()), order) for i in imports]}
        else:
            meta.pop("calls", None)
            meta.pop("self", None)
            if python or n["kind"] not in ("method", "class"):
                meta.pop("types", None)     # read by its own file's callers alone (``calls._attributes``)
        if n.get("language") in JS_FAMILY and n["kind"] != "file" and "." not in n["qualname"]:
            # the module's own value (``callindex.MODULE_VALUE``: ``module.exports = function f``,
            # ``export default``) is read by its importers' calls (review r2: a default made plain kept them)
            m = MODULE_VALUE.match(n.get("signature") or "")
            meta = {**meta, "_value": None if m is None else bool(m[1])}
        if (n.get("language") == "scala" and n["kind"] == "class") or \
                (n.get("language") == "kotlin" and n["kind"] != "class" and "." in n["qualname"]):
            # an `implicit class` lends its methods; an extension's receiver is read from its signature (``jvmcalls``)
            meta = {**meta, "_sig": n.get("signature")}
        out.append(json.dumps([n["id"], n["kind"], n["qualname"], n.get("language"), meta], sort_keys=True))
    return sorted(out)


def _import(ref: dict, python: bool, spans, order: dict[int, int]) -> dict:
    """An import record with its line's place among the file's import lines, not the line (a line
    added above keeps it; two imports of one name split from one line change which one binds: the
    last line's, review r2); a Python import in a body says so (its scope)."""
    out = {k: v for k, v in ref.items() if k != "line"}
    out["order"] = order[ref.get("line") or 0]
    if python and ref.get("scoped"):
        line = ref.get("line") or 0
        out["in_body"] = any(s <= line <= e for s, e in spans)
    return out


__all__ = ["Kept", "plan", "facts", "link_key", "CALL_COLUMNS"]
