"""Shared fixtures: real git repositories and a real index built by the real pipeline (Ray).

`make test` runs the suite on pytest-xdist workers with ``--dist loadgroup``, scheduled by
``pytest_xdist_make_scheduler`` below: a test file's tests run on one worker, in order (several
files' later tests read what a module fixture's earlier test did to it), and the files that start
a local Ray cluster carry ``pytest.mark.xdist_group("ray")``, so one worker runs them, one after
another (a raylet started beside another cluster's start and a busy worker passed Ray's 30 s limit),
sent first (the run's longest unit).
"""

from __future__ import annotations

import functools
import os
import re
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


_RAY_MARK = re.compile(r'^pytestmark\s*=.*\bxdist_group\("ray"\)', re.MULTILINE)


@functools.lru_cache(maxsize=None)
def _in_ray_group(path: Path) -> bool:
    """Whether a test file's ``pytestmark`` line holds ``pytest.mark.xdist_group("ray")``."""
    try:
        return _RAY_MARK.search(path.read_text(encoding="utf-8")) is not None
    except OSError:
        return False


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
            path = nodeid.split("::", 1)[0]
            # the file's own mark, read from its text: under pytest 9.2 xdist 3.8's suffix is never
            # added (it sets ``item._nodeid``; pytest now derives nodeid from ``item._id``), so the
            # Ray files ran as separate units, two at once on two workers
            return "ray" if _in_ray_group(config.rootpath / path) else path

        def _assign_work_unit(self, node) -> None:
            # the Ray group first: its files run in turn on one worker, the run's longest unit
            # (sent last, the other workers would sit idle while it ends)
            if "ray" in self.workqueue:
                self.workqueue.move_to_end("ray", last=False)
            super()._assign_work_unit(node)

    return FileOrGroup(config, log)


def pytest_sessionfinish(session, exitstatus):
    try:
        import ray
    except ImportError:
        return
    if ray.is_initialized():
        ray.shutdown()

