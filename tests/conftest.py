"""Shared fixtures: real git repositories and a real index built by the real pipeline (Ray).

`make test` runs the suite on pytest-xdist workers with ``--dist loadgroup``, scheduled by
``pytest_xdist_make_scheduler`` below: a test file's tests run on one worker, in order (several
files' later tests read what a module fixture's earlier test did to it), and the files that start
a local Ray cluster carry ``pytest.mark.xdist_group("ray")``, so one worker runs them, one after
another (a raylet started beside another cluster's start and a busy worker passed Ray's 30 s limit).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("RAY_TMPDIR", str(ROOT / ".tmp" / "ray"))
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
Path(os.environ["RAY_TMPDIR"]).mkdir(parents=True, exist_ok=True)

# The MCP SDK's stdio client binds ``errlog=sys.stderr`` when its module is first imported: first
# imported inside a test under capsys, it kept that test's closed stream and the next MCP stdio test
# failed with "I/O operation on closed file" (an order-dependent failure). Import it here, at the
# real stderr.
import mcp.client.stdio  # noqa: E402,F401


@pytest.fixture(scope="session")
def sample_repo(tmp_path_factory):
    from tests.gitrepo import sample_python_repo

    return sample_python_repo(tmp_path_factory.mktemp("repo") / "shop")


@pytest.fixture(scope="session")
def indexed_store(sample_repo, tmp_path_factory):
    """(repo path, store path, run report) of the sample repository indexed with the real pipeline."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig

    store = tmp_path_factory.mktemp("store") / "s"
    report = index_repository(sample_repo.path, store, IndexConfig(num_cpus=2))
    return sample_repo.path, store, report


@pytest.hookimpl(optionalhook=True)        # pytest without xdist: no such hook, and no error
def pytest_xdist_make_scheduler(config, log):
    """xdist's ``loadgroup`` sends each ungrouped test anywhere (a module's tests split over the
    workers, and an order-dependent module failed); this one keeps a file together and a group
    (``xdist_group``) together."""
    if config.getvalue("dist") != "loadgroup":      # `--dist each`, `load`...: xdist's own (a review)
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FileOrGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.rfind("@") > nodeid.rfind("]"):       # "...::test@ray": loadgroup's suffix
                return nodeid.rsplit("@", 1)[-1]
            return nodeid.split("::", 1)[0]

    return FileOrGroup(config, log)


def pytest_sessionfinish(session, exitstatus):
    try:
        import ray
    except ImportError:
        return
    if ray.is_initialized():
        ray.shutdown()
