"""The session's ledger after a re-index: a held node's new version is new content.

A session read ``hooks.py::default_hooks`` at full (130 tokens); a commit shortened it and the store
was re-indexed. The next ``get --level full`` returned the new 119-token text marked
``already_in_context: "full"`` and charged nothing, and so did ``get --level api`` after the old full:
the agent was told it held code it had never seen (a probe). The controller compared level and size,
never the version; an entry now remembers the node's content hash it holds.
"""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow

CFG = IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False), ray=False)
TARGET = "pkg/hooks.py::default_hooks"
HEAD = "HOOKS = ['response']\n\n\n"
TAIL = "\n\ndef dispatch_hook(key, hooks, data):\n    \"\"\"Dispatch a hook.\"\"\"\n    return data\n"


def _hooks(n: int) -> str:
    body = "\n".join(f"    hooks.setdefault('event_{i}', [])  # the event number {i} gets its list" for i in range(n))
    return f'def default_hooks():\n    """The {n} hooks every session starts with."""\n    hooks = {{}}\n{body}\n    return hooks\n'


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Tools over a store; sessions that read TARGET at full (and lines 1-3 of its file); then TARGET
    shortened and re-indexed. Each test takes its own session (one index for them all)."""
    base = tmp_path_factory.mktemp("ledger")
    r = Repo(base / "repo")
    r.commit("init", {"pkg/__init__.py": "", "pkg/hooks.py": HEAD + _hooks(8) + TAIL})
    index_repository(r.path, str(base / "store"), CFG)
    t = Tools.open([str(base / "store")])
    sessions = []
    for _ in range(4):
        sid = t.open_session(budget=8000).data["session"]
        sessions.append((sid, t.get(sid, TARGET, level="full").items[0], t.get(sid, "pkg/hooks.py", lines="1-3")))
    t.get(sessions[3][0], "pkg/hooks.py", level="api")
    r.commit("shorter", {"pkg/hooks.py": HEAD + _hooks(6) + TAIL})
    index_repository(r.path, str(base / "store"), CFG)
    t.reload()
    yield t, sessions
    t.close()


def _entry(t, sid, node_id):
    return next(e for e in t.status(sid).data["session"]["entries"] if e["node_id"] == node_id)


def test_a_shortened_function_read_again_is_new_content_charged_whole(store):
    t, sid, old, _ = store[0], *store[1][0]
    used = t.status(sid).envelope.budget.used
    now = t.get(sid, TARGET, level="full")
    it = now.items[0]
    assert 0 < it.tokens < old.tokens and "event_7" not in it.text          # the new, shorter text
    assert "already_in_context" not in it.meta                              # not said to be held
    assert now.envelope.budget.used == used + it.tokens                     # charged what it returned
    assert _entry(t, sid, it.id)["tokens"] == old.tokens + it.tokens        # the agent holds both
    # the same version again: held, nothing charged (as before)
    again = t.get(sid, TARGET, level="full")
    assert again.items[0].meta["already_in_context"] == "full"
    assert again.envelope.budget.used == now.envelope.budget.used


def test_a_lower_level_of_the_new_version_after_the_old_full_is_charged(store):
    t, sid, old, _ = store[0], *store[1][1]
    used = t.status(sid).envelope.budget.used
    api = t.get(sid, TARGET, level="api")
    it = api.items[0]
    assert "already_in_context" not in it.meta and it.tokens > 0
    assert api.envelope.budget.used == used + it.tokens
    # then the new version's full: it adds what the new api did not hold (the old full is another text)
    full = t.get(sid, TARGET, level="full").items[0]
    assert "already_in_context" not in full.meta
    assert t.status(sid).envelope.budget.used == used + full.tokens
    assert _entry(t, sid, it.id)["level"] == "full"


def test_unchanged_lines_of_a_changed_file_stay_held(store):
    t, sid, _, lines = store[0], *store[1][2]
    used = t.status(sid).envelope.budget.used
    again = t.get(sid, "pkg/hooks.py", lines="1-3")
    assert again.items[0].text == lines.items[0].text
    assert again.items[0].meta["already_in_context"] == "full" and again.envelope.budget.used == used


def test_a_prefetch_warms_the_new_version_of_a_file_held(store):
    """The plan skipped a file held at api whatever its version: the agent kept the old api."""
    t, (sid, _, _) = store[0], store[1][3]
    used = t.status(sid).envelope.budget.used
    r = t.prefetch(sid, ["pkg/hooks.py"], budget=2000)
    it = next(it for it in r.items if it.path == "pkg/hooks.py" and it.kind == "file")
    assert it.level == "api" and "The 6 hooks" in it.text and "already_in_context" not in it.meta
    assert r.envelope.budget.used == used + sum(i.tokens for i in r.items)
