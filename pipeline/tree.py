"""The repo and directory nodes of the hierarchy, and their ``contains`` edges (repo -> dir -> file).

Its own stage beside pipeline.parse (both build on pipeline.nodefields): directories have no
source to parse; their detail levels list their children, one per line, each name spelled
terminal-safe (git allows a newline or an escape in a name: it broke the listing into false lines).
Rebuilt on every index (not kept by parse format), so no store needs a re-parse for it.
"""

from __future__ import annotations

import posixpath
from typing import Any

from pipeline.nodefields import dir_node_id, file_node_id, finish
from pipeline.sourcetext import indent
from stratum.config import ParseConfig
from stratum.notetext import terminal_safe


def tree_nodes(repo: str, paths: list[str] | set[str], cfg: ParseConfig | None = None,
               languages_by_path: dict[str, str | None] | None = None) -> tuple[list[dict], list[dict]]:
    """The repo node, one node per directory, and repo -> dir -> file ``contains`` edges.

    File nodes themselves come from :func:`pipeline.parse.parse_file`; the ids agree
    (``node_id(repo, path, "file", "")``). ``api``/``full`` of a directory list its children.
    """
    cfg = cfg or ParseConfig()
    children: dict[str, set[str]] = {"": set()}
    files_under: dict[str, int] = {"": 0}
    for p in sorted(set(paths)):
        d = posixpath.dirname(p)
        children.setdefault(d, set()).add(p)
        child = d
        while True:
            files_under[child] = files_under.get(child, 0) + 1
            if not child:
                break
            parent = posixpath.dirname(child)
            children.setdefault(parent, set()).add(child + "/")
            child = parent
    name = repo.rstrip("/").rsplit("/", 1)[-1] or repo
    nodes: list[dict] = []
    edges: list[dict] = []
    langs: dict[str, int] = {}
    for p, lang in (languages_by_path or {}).items():
        if lang:
            langs[lang] = langs.get(lang, 0) + 1
    for d in sorted(children):
        kids = sorted(children[d], key=lambda k: (not k.endswith("/"), k))
        listing = "\n".join(terminal_safe(posixpath.basename(k.rstrip("/"))) + ("/" if k.endswith("/") else "")
                            for k in kids)
        shown = terminal_safe(d or name)
        n_dirs = sum(1 for k in kids if k.endswith("/"))
        nid = dir_node_id(repo, d)
        if d:
            summary = f"dir {shown}/ ({_count(len(kids) - n_dirs, 'file')}, {_count(n_dirs, 'dir')}; " \
                f"{_count(files_under[d], 'file')} below)"
            node: dict[str, Any] = {"id": nid, "repo": repo, "kind": "dir", "path": d, "name": posixpath.basename(d),
                    "qualname": "", "parent_id": dir_node_id(repo, posixpath.dirname(d))}
        else:
            lang_s = ", ".join(f"{k} {v}" for k, v in sorted(langs.items(), key=lambda kv: (-kv[1], kv[0])))
            summary = f"repo {name} ({_count(files_under[''], 'file')} in {_count(len(children) - 1, 'dir')}" + \
                (f"; {lang_s})" if lang_s else ")")
            node = {"id": nid, "repo": repo, "kind": "repo", "path": "", "name": name, "qualname": "",
                    "parent_id": None}
        node.update({"summary": summary, "api": f"{shown}/\n{indent(listing, '  ')}",
                     "full": f"{shown}/\n{indent(listing, '  ')}", "subkind": None, "language": None})
        nodes.append(node)
        for k in kids:
            dst = dir_node_id(repo, k.rstrip("/")) if k.endswith("/") else file_node_id(repo, k)
            edges.append({"src": nid, "dst": dst, "kind": "contains"})
    finish(nodes, cfg)
    return nodes, edges


def _count(n: int, word: str) -> str:
    """"1 file", "2 files", "0 dirs"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


__all__ = ["tree_nodes"]
