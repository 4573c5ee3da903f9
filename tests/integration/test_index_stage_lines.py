"""Every stage of an index run says when it starts and ends: discover, link and notes were silent
(an operations probe: 49 s without a line on a 40,000-commit repository)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def test_each_stage_of_an_index_run_starts_and_ends_in_the_progress(tmp_path):
    from pipeline.job import index_repository
    from stratum.config import EmbedConfig, IndexConfig
    from tests.gitrepo import Repo

    r = Repo(tmp_path / "repo")
    r.commit("init", {"a.py": "def f():\n    return 1\n", "b.py": "import a\n"})
    seen: list[tuple[str, int, int]] = []
    index_repository(r.path, tmp_path / "store", IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False)),
                     progress=lambda stage, done, total: seen.append((stage, done, total)))
    stages = list(dict.fromkeys(s for s, _, _ in seen))
    assert stages[:3] == ["discover", "parse", "link"] and "history" in stages and "notes" in stages, stages
    for stage in stages:                      # each one's first step starts it and its last ends it
        steps = [(d, t) for s, d, t in seen if s == stage]
        assert steps[0][0] == 0 and steps[-1][0] == steps[-1][1], (stage, steps)
