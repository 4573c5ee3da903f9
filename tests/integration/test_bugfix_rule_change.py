"""A store indexed under one bug-fix rule, then indexed incrementally under another
(``HistoryConfig.bugfix_rule``, or a new ``DEFAULT_BUGFIX_RULE`` after an upgrade): the commits
mined before must be judged by the new rule, not keep the kinds the old one gave them. Real git
repository, the real index job, the real tools."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from stratum import schema as S
from tests.pages import search_all

pytestmark = pytest.mark.slow

CONN = '''"""Pooled connections."""


def release(conn) -> None:
    """Give CONN back to its pool."""
    conn.pool.append(conn)
'''
LOCKED = CONN.replace("    conn.pool.append(conn)", "    with conn.pool_lock:\n        conn.pool.append(conn)")
SUBJECT = "Fix race condition in connection release"
# the words "release", "changelog" and "readme" anywhere excluded, as RELEASE_WORD_RULE did; the
# second rule is the same without that exclusion: the rule change this file is about
WORD_RULE = r"(?i)\A(?![^\n]*\b(changelog|readme|release)\b)[^\n]*?\b(fix(e[sd]|ing)?|bugs?|race condition)\b"
CHORE_RULE = r"(?i)\A(?!\W*releas(e|ed|ing)\W+v?\d)[^\n]*?\b(fix(e[sd]|ing)?|bugs?|race condition)\b"


def _kinds(store) -> dict[str, str]:
    """sha -> kind of each mined node of the published version."""
    from stratum.store import Store

    return {json.loads(n["meta"])["sha"]: n["kind"] for n in Store(store).snapshot().read("nodes").to_pylist()
            if n["kind"] in S.MINED_NOTE_KINDS}


@pytest.fixture(scope="module")
def reindexed(tmp_path_factory):
    """(repo, store, the fix's sha, kinds under the first rule, the second run's report)."""
    from pipeline.job import index_repository
    from stratum.config import EmbedConfig, IndexConfig
    from tests.gitrepo import Repo

    base = tmp_path_factory.mktemp("rule")
    r = Repo(base / "pool")
    r.commit("Pool connections", {"pool/__init__.py": "", "pool/conn.py": CONN})
    fix = r.commit(SUBJECT, {"pool/conn.py": LOCKED})
    r.commit("Release 2.3.3 with bug fixes", {"pool/__init__.py": '__version__ = "2.3.3"\n'})
    cfg = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
    store = base / "store"
    index_repository(r.path, store, replace(cfg, history=replace(cfg.history, bugfix_rule=WORD_RULE)))
    before = _kinds(store)
    r.commit("Size the pool", {"pool/size.py": "SIZE = 4\n"})
    rep = index_repository(r.path, store, replace(cfg, history=replace(cfg.history, bugfix_rule=CHORE_RULE)))
    return r, store, fix, before, rep


def test_mined_nodes_follow_the_new_rule_on_an_incremental_index(reindexed):
    from stratum.tools import Tools
    from tests.gitrepo import git

    repo, store, fix, before, rep = reindexed
    chore = git(repo.path, "log", "--format=%H", "--grep=Release 2.3.3", "--fixed-strings").split()[0]
    assert before[fix] == "change" and before[chore] == "change"
    assert rep.history["incremental"] and rep.history["commits"] == 1       # only the new commit was read
    after = _kinds(store)
    assert after[fix] == "fix" and after[chore] == "change"                 # re-judged, the chore still not a fix
    assert rep.history["mined_fixes"] == 1
    tools = Tools.open([str(store)])
    try:
        s = tools.open_session(author="agent").data["session"]
        items = search_all(tools, s, "race condition connection release", 5)[0]
        hit = next(i for i in items if i.kind in S.MINED_NOTE_KINDS and i.provenance["commit"] == fix)
        assert hit.kind == "fix" and hit.why == "past fix"                  # served as a past fix now
    finally:
        tools.close()


def test_history_summary_counts_fixes_by_the_new_rule(reindexed):
    """The stored commits' is_bugfix is judged again when the settings changed (it kept the old
    rule's verdict until --full: pipeline.history.combine appended the new rows to the stored ones)."""
    from stratum import analysis

    _, store, _, _, _ = reindexed
    assert analysis.summary(store)["bugfix_commits"] == 1
