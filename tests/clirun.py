"""`stratum` run in this process as a user types it, and the small indexed repository the CLI
tests start from (each test file wrote both again)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from stratum.config import EmbedConfig, IndexConfig, default_store_path
from tests.gitrepo import Repo

NO_EMBED = IndexConfig(num_cpus=2, embed=EmbedConfig(enabled=False))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `stratum ARGV`; an argparse refusal gives its exit code."""
    from stratum.cli import main

    capsys.readouterr()
    try:
        rc = main(list(argv))
    except SystemExit as e:
        rc = int(e.code or 0)
    out = capsys.readouterr()
    return rc, out.out, out.err


def indexed_repo(path: Path, files: dict[str, str]) -> tuple[Repo, str]:
    """A one-commit repository of ``files`` at ``path``, indexed without embeddings into its own
    ``.stratum``: (the repository, that store's path)."""
    from pipeline.job import index_repository

    r = Repo(path)
    r.commit("init", files)
    index_repository(r.path, None, NO_EMBED)
    return r, str(default_store_path(r.path))


@contextmanager
def session_over(path: Path, files: dict[str, str]) -> Iterator[tuple]:
    """(Tools, an open session id) over ``indexed_repo(path, files)``, closed after: what the
    linking tests' module fixtures open (five files wrote it again)."""
    from stratum.tools import Tools

    _repo, store = indexed_repo(path, files)
    t = Tools.open([store])
    try:
        yield t, t.open_session(author="agent").data["session"]
    finally:
        t.close()
