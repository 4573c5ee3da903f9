"""The controller's accounting and prefetch's focus, through the real Tools over a real indexed
repository (and the budget rule once over a real gRPC server).

- A smaller rendering of a node held at the same level (a tree row without the notes a get carried)
  lowered ``budget.used`` with no eviction said: on a flask clone a tree returned 125 tokens and
  ``used`` fell 742 -> 591 (a probe). An answer that returns tokens never lowers ``used`` but by
  the evictions it lists.
- ``prefetch`` set an explicit focus no agent tool clears, so a later full get (the code being
  edited) no longer moved the focus and was the first thing evicted (a probe).
- A refusal's advice names only what the agent's tools can do: a line range was told to ask for a
  lower detail level or a smaller page and to narrow the focus; prefetch told to "close or drop
  nodes" (no agent tool does either).
"""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from serving.client import Client
from serving.server import serve
from stratum.config import EmbedConfig, IndexConfig
from stratum.errors import BudgetExceeded
from stratum.tools import TOOL_NAMES, Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow

NOTE = "the {} functions share one value scaling: keep the step order stable when editing ({})"


def _funcs(prefix: str, n: int, body: int = 3) -> str:
    out = []
    for i in range(n):
        lines = "\n".join(f"    x{j} = value * {j} + {i}  # step {j} of {prefix}_{i}" for j in range(body))
        out.append(f'def {prefix}_{i}(value):\n    """Compute the {prefix} number {i} from value."""\n'
                   f"{lines}\n    return x0\n")
    return "\n\n".join(out)


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    base = tmp_path_factory.mktemp("ctl")
    r = Repo(base / "repo")
    r.commit("init", {"pkg/__init__.py": "", "pkg/a.py": _funcs("alpha", 6), "pkg/b.py": _funcs("beta", 3, 30),
                      **{f"pkg/m{k}.py": _funcs(f"m{k}", 8) for k in range(6)},
                      "pkg/big.py": _funcs("big", 40, 8)})
    index_repository(r.path, base / "store", IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False), ray=False))
    t = Tools.open([str(base / "store")])
    s = t.open_session(author="earlier").data["session"]
    for i in range(3):
        t.remember(s, "insight", NOTE.format("alpha", i), ["pkg/a.py"])
    yield t
    t.close()


def _held(t, s) -> dict[str, tuple[str, int]]:
    return {e["node_id"]: (e["level"], e["tokens"]) for e in t.status(s).data["session"]["entries"]}


def _smaller_rendering_keeps_what_is_held(t):
    s = t.open_session(author="agent", budget=5000).data["session"]
    got = t.get(s, "pkg/a.py", level="summary")
    a = got.items[0]
    assert len(a.notes) == 3                          # the notes it carries are in the agent's context
    used = got.envelope.budget.used
    tree = t.tree(s, "pkg", depth=1)
    row = next(it for it in tree.items if it.id == a.id)
    assert row.tokens < a.tokens and not tree.envelope.evictions   # the tree's row: no notes
    new = sum(it.tokens for it in tree.items if it.id != a.id)
    assert tree.envelope.budget.used == used + new, (used, new, tree.envelope.budget.used)
    assert _held(t, s)[a.id] == ("summary", a.tokens)  # the larger entry stays
    # the same rendering again adds nothing; the ledger is the sum of its entries
    again = t.get(s, "pkg/a.py", level="summary").envelope.budget.used
    assert again == tree.envelope.budget.used == sum(tok for _, tok in _held(t, s).values())


def test_a_smaller_rendering_of_a_held_node_never_lowers_used(tools):
    _smaller_rendering_keeps_what_is_held(tools)


def test_over_grpc_a_smaller_rendering_never_lowers_used(tools):
    server, port = serve(tools, port=0, reload_interval=None)
    try:
        c = Client(f"127.0.0.1:{port}")
        _smaller_rendering_keeps_what_is_held(c)
        c.close()
    finally:
        server.stop(None)


def test_used_falls_only_by_the_evictions_listed(tools):
    """Call after call under a budget that evicts: each answer adds at most what it returns, and
    ``used`` falls only by what its evictions free."""
    s = tools.open_session(author="agent", budget=700).data["session"]
    used = 0
    calls = [lambda: tools.get(s, "pkg/a.py", level="summary"), lambda: tools.get(s, "pkg/m0.py", level="api"),
             lambda: tools.tree(s, "pkg", depth=2, page_size=8), lambda: tools.get(s, "pkg/m1.py", level="api"),
             lambda: tools.tree(s, "pkg", depth=1), lambda: tools.get(s, "pkg/m2.py", level="api"),
             lambda: tools.tree(s, "pkg", depth=1)]
    for call in calls:
        e = call().envelope
        freed = sum(ev.tokens_freed for ev in e.evictions)
        assert used - freed <= e.budget.used <= used - freed + e.tokens_returned, (used, freed, e.budget.used)
        used = e.budget.used
    assert used == sum(tok for _, tok in _held(tools, s).values())


def test_prefetch_hints_the_focus_and_a_full_get_moves_it(tools):
    s = tools.open_session(author="agent", budget=1500).data["session"]
    pre = tools.prefetch(s, ["pkg/a.py"], budget=300)
    a_id = next(it.id for it in pre.items if it.path == "pkg/a.py" and it.kind == "file")
    assert tools.status(s).data["session"]["focus"] == {"files": [a_id], "source": "prefetch"}
    edit = tools.get(s, "pkg/b.py::beta_0", level="full").items[0]          # the code being edited
    focus = tools.status(s).data["session"]["focus"]
    assert focus["source"] == "inferred" and focus["files"] != [a_id]
    evicted = []
    for k in range(6):                                                     # reading around it, not editing
        evicted += tools.get(s, f"pkg/m{k}.py", level="api").envelope.evictions
    assert evicted and edit.id not in {e.node_id for e in evicted}
    assert _held(tools, s)[edit.id][0] == "full"
    b_id = tools.get(s, "pkg/b.py", level="summary").items[0].id
    assert tools.status(s).data["session"]["focus"] == {"files": [b_id], "source": "inferred"}


def test_a_later_prefetch_replaces_the_focus_until_the_next_full_get(tools):
    s = tools.open_session(author="agent", budget=5000).data["session"]
    tools.get(s, "pkg/b.py::beta_1", level="full")
    b_id = tools.status(s).data["session"]["focus"]["files"]
    pre = tools.prefetch(s, ["pkg/a.py"], budget=300)
    a_id = next(it.id for it in pre.items if it.path == "pkg/a.py" and it.kind == "file")
    assert tools.status(s).data["session"]["focus"] == {"files": [a_id], "source": "prefetch"}
    tools.get(s, "pkg/m3.py", level="api")                                 # not at full: the hint stays
    assert tools.status(s).data["session"]["focus"]["source"] == "prefetch"
    tools.get(s, "pkg/b.py::beta_2", level="full")
    assert tools.status(s).data["session"]["focus"] == {"files": b_id, "source": "inferred"}


BAD_ADVICE = ("smaller page", "narrow", "close or drop", "lower detail level")


def test_a_line_range_that_does_not_fit_is_told_to_read_fewer_lines(tools):
    s = tools.open_session(author="agent", budget=1000).data["session"]
    with pytest.raises(BudgetExceeded) as ei:
        tools.get(s, "pkg/big.py", lines="1-200")
    msg = ei.value.message
    assert "shorter line range" in msg and not any(b in msg for b in BAD_ADVICE + ("unpin",)), msg
    tools.get(s, "pkg/b.py::beta_0", level="full")
    tools.pin(s, "pkg/b.py::beta_0")
    with pytest.raises(BudgetExceeded) as ei:
        tools.get(s, "pkg/big.py", lines="1-200")
    msg = ei.value.message
    assert "unpin" in msg and "shorter line range" in msg and not any(b in msg for b in BAD_ADVICE), msg
    with pytest.raises(BudgetExceeded) as ei:                 # a whole file at full has lower levels
        tools.get(s, "pkg/big.py", level="full")
    assert "lower detail level" in ei.value.message and "smaller page" not in ei.value.message


def test_a_page_whose_first_item_does_not_fit_is_not_told_to_ask_a_smaller_page(tools):
    s = tools.open_session(author="agent", budget=10).data["session"]
    with pytest.raises(BudgetExceeded) as ei:
        tools.tree(s, "pkg", depth=1)
    msg = ei.value.message
    assert "not even the first item" in msg and not any(b in msg for b in BAD_ADVICE), msg
    assert "larger budget" in msg


def test_a_capped_prefetch_names_only_the_agents_tools(tools):
    s = tools.open_session(author="agent", budget=1000).data["session"]
    tools.get(s, "pkg/b.py::beta_0", level="full")
    w = " ".join(tools.prefetch(s, ["pkg/a.py"], budget=900).envelope.warnings)
    assert "free room" in w and not any(b in w for b in BAD_ADVICE), w
    assert "get what else you need" in w and "unpin" in w and {"get", "unpin"} <= set(TOOL_NAMES)
