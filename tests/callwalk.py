"""A real repository indexed in-process (no Ray, no embeddings) and its ``calls`` edges as a user
walks them: the shared fixture of the call-linking tests."""

from __future__ import annotations

from typing import Iterator
from stratum.config import default_store_path


def indexed(root, files: dict[str, str]) -> Iterator[tuple]:
    """(tools, session id) over a repository at ``root`` committing ``files``, indexed by the real
    job; closed after."""
    from pipeline.job import index_repository
    from stratum.config import EmbedConfig, IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    r = Repo(root / "repo")
    r.commit("init", files)
    index_repository(r.path, None, IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False)))
    t = Tools.open([str(default_store_path(r.path))])
    yield t, t.open_session(author="agent").data["session"]
    t.close()


def walk_calls(tools, target: str, direction: str = "out") -> list[tuple[str, str, str, int]]:
    """(path::callee, as, how, line) of each call edge from (or into) the target, sorted."""
    t, sid = tools
    items = t.walk(sid, target, edges=["calls"], direction=direction).items
    return sorted((f"{i.path}::{i.qualname}", i.meta.get("as"), i.meta.get("how"), int(i.meta["line"]))
                  for i in items)
