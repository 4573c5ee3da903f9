"""`make demo`: index this project's own checkout (with its git history) and answer agent-style
queries from the store, the way an agent session would: status, tree, search, get, walk (imports,
tests, co-change), remember a note, and find it again from a fresh session (by words, and on the
frame of a pasted traceback).

Run: ``python -m stratum.demo [REPO] [--store PATH]`` (defaults: this checkout, its store in .git/stratum/).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _show(title: str, resp) -> None:
    from stratum.cli.query import render

    print(f"\n$ {title}")
    print(render(resp))


def main(argv: list[str] | None = None) -> int:
    from pipeline import gitio, overlay
    from pipeline.job import index_repository
    from stratum.cli.index import Progress
    from stratum.config import IndexConfig, default_store_path
    from stratum.tools import Tools

    ap = argparse.ArgumentParser(prog="stratum-demo")
    ap.add_argument("repo", nargs="?", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--store", default=None)
    a = ap.parse_args(argv)
    root = gitio.repo_root(a.repo)
    store = a.store or str(default_store_path(root))

    print(f"== indexing {root} into {store}")
    bar = Progress()
    rep = index_repository(root, store, IndexConfig(num_cpus=None), progress=bar)
    bar.close()
    print(rep.summary())

    tools = Tools.open([store], freshness=gitio.freshness, overlay_builder=overlay.builder())
    s1 = tools.open_session(author="demo-agent-1", budget=16000).data["session"]
    _show("status", tools.status(s1))
    _show("tree --depth 1", tools.tree(s1, "", depth=1, page_size=15))
    q = "publish a new store version with an atomic manifest switch"
    first = tools.search(s1, q, page_size=5)
    _show(f'search "{q}"', first)
    if first.envelope.has_more:
        _show("search ... --page-token <next>", tools.search(s1, q, page_size=5,
                                                           page_token=first.envelope.next_page_token))
    _show("get stratum/store.py::Store.publish --level api", tools.get(s1, "stratum/store.py::Store.publish", "api"))
    _show("walk stratum/store.py --edge imports --direction in", tools.walk(s1, "stratum/store.py", ["imports"], "in", page_size=8))
    _show("walk stratum/tools.py --edge cochange", tools.walk(s1, "stratum/tools.py", ["cochange"], page_size=5))
    _show("walk stratum/store.py::Store.publish --edge calls --direction in",
          tools.walk(s1, "stratum/store.py::Store.publish", ["calls"], "in", page_size=5))
    note = tools.remember(s1, "rca", "Readers that see a half-written version: the cause is in "
                          "Store.publish, which must write the manifest with one atomic rename "
                          "(os.replace) after the datasets are written.", about=["stratum/store.py::Store.publish"],
                          tags=["demo"])
    _show("remember rca --about stratum/store.py::Store.publish", note)

    s2 = tools.open_session(author="demo-agent-2", budget=16000).data["session"]
    _show('(fresh session) search "readers see a half-written index version"',
          tools.search(s2, "readers see a half-written index version", page_size=3))
    _show("(fresh session) walk stratum/store.py::Store.publish --edge notes",
          tools.walk(s2, "stratum/store.py::Store.publish", ["notes"]))
    # the error as an agent would paste it, from an installed copy: the frame names Store.publish,
    # and its item carries the note session 1 left there
    line = tools.get(s2, "stratum/store.py::Store.publish", "summary").items[0].start_line
    trace = ("Traceback (most recent call last):\n"
             f'  File "/srv/venv/lib/python3.11/site-packages/stratum/store.py", line {line}, in publish\n'
             "OSError: [Errno 28] No space left on device")
    _show(f"(fresh session) search '<a traceback through site-packages/stratum/store.py:{line}>'",
          tools.search(s2, trace, page_size=3))
    tools.close()
    print("\nThe note is in the delta log now; the next `stratum index` merges it into the store.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

__all__ = ["main"]
