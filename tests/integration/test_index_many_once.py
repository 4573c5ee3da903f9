"""Listings of one repository in a multi-repository run (the repository and a folder of it, or the
repository twice) share its store, keyed on the top level: it is indexed once, and each listing
gets that outcome. On Ray two tasks took the one store at once and the second failed
("another index run holds ... lock"), so the run exited 1 for a repository that was indexed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pipeline.many import index_many
from stratum.config import EmbedConfig, IndexConfig
from stratum.store import Store
from tests.gitrepo import Repo

pytestmark = pytest.mark.xdist_group("ray")   # a local Ray cluster: one worker starts them, in turn (tests/conftest.py)

NO_EMBED = IndexConfig(num_cpus=2, embed=EmbedConfig(enabled=False))


def _repo(tmp_path) -> Repo:
    r = Repo(tmp_path / "good")
    body = "".join(f"def f{j}(x):\n    return x + {j}\n" for j in range(40))
    r.commit("one", {**{f"pkg/m{i}.py": body for i in range(60)}, "README.md": "# good\n"})
    return r


def _check(multi, r: Repo, store) -> None:
    assert multi.ok, multi.summary()
    assert [o.repo for o in multi.outcomes] == [str(r.path / "pkg"), str(r.path), str(r.path)]
    assert {o.root for o in multi.outcomes} == {str(r.path)}
    assert all(not o.report["up_to_date"] and o.report["version"] == 1 for o in multi.outcomes)  # one run
    assert Store(store).manifest().version == 1


@pytest.mark.parametrize("ray", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["in-process", "ray"])
def test_one_repository_listed_three_ways_is_indexed_once(tmp_path, ray):
    r = _repo(tmp_path)
    store = str(tmp_path / "stores" / "good")
    multi = index_many([(str(r.path / "pkg"), store), (str(r.path), store), (str(r.path), store)],
                       replace(NO_EMBED, ray=ray))
    _check(multi, r, store)


@pytest.mark.slow
def test_relative_paths_on_ray_are_indexed_and_reported_as_listed(tmp_path, monkeypatch):
    """A Ray task runs in the worker's own working directory: repositories and stores listed by
    relative paths all failed there ("good does not exist", an index-lifecycle probe); they are sent
    absolute and the outcomes still name them as listed."""
    r = _repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    multi = index_many([("good", "stores/good")], replace(NO_EMBED, ray=True))
    assert multi.ok, multi.summary()
    assert [(o.repo, o.store) for o in multi.outcomes] == [("good", "stores/good")]
    assert Store(tmp_path / "stores" / "good").manifest().version == 1 and r.path.is_dir()
