"""``get --level api`` of a large class is an outline that fits ``apicut.API_CAP``, not a wall.

Probe (session 33, on cobra; flask checked in session 34): ``stratum get src/flask/app.py::Flask --level api`` was one item of 7,321 tokens
(its ~100-line docstring, then every method's signature and whole docstring), cobra's
``command.go::Command`` 7,901 (a struct with 119 methods): one question about a central class
flooded an agent's context. Now such an item is the class's header, the first paragraph of its
doc and one line per member (the index's own summary lines, in source order) as far as the cap
allows, then a line saying how many members are left and how to read them; ``meta.api_cut`` says
so on every surface. A small class's api and every full text are served as before, byte for byte.

Real repositories built with git, indexed by the real pipeline (tree-sitter Python and Go).
"""

from __future__ import annotations

import json

import pytest

from stratum import tokens as T
from stratum.apicut import API_CAP
from tests.gitrepo import indexed_tools

pytestmark = pytest.mark.slow

N_METHODS = 60
LONG_DOC = "\n\n".join(
    ["The engine of the shop: it holds the catalogue, the carts and the rules that price them."]
    + [f"    Paragraph {i} of the engine's story: every rule is kept in a registry, read at checkout,\n"
       f"    and a rule named rule_{i} applies when the cart holds item number {i} or more." for i in range(1, 40)])


def _method(i: int) -> str:
    return (f"    def m{i:02d}(self, cart: dict, rate: float = 0.{i:02d}) -> float:\n"
            f'        """Price step {i}: applies rule_{i} to the cart and returns the new total.\n\n'
            f"        The rule reads the registry, checks the cart's items against threshold {i}\n"
            f"        and rounds the result to cents, as the shop's accountants asked in ticket {i}.\n"
            f'        """\n'
            f"        return sum(cart.values()) * rate\n\n")


BIG = ('"""The shop\'s engine."""\n\n\nclass Engine:\n    """' + LONG_DOC + '\n    """\n\n'
       + "".join(_method(i) for i in range(N_METHODS))
       + '\nclass Small:\n    """A small helper."""\n\n    def one(self) -> int:\n'
         '        """Return one."""\n        return 1\n')

GO_MAIN = ("package shop\n\n// Command is one command of the shop's tool.\n//\n// It runs, prints its help and "
           "holds its flags; the rest of this comment is not the first paragraph.\ntype Command struct {\n"
           "\tName string\n\tArgs []string\n}\n\n"
           + "".join(f"// Step{i:02d} runs step {i} of the command and reports what it did to the caller's writer.\n"
                     f"func (c *Command) Step{i:02d}(w io.Writer, args []string) error {{\n\treturn nil\n}}\n\n"
                     for i in range(40)))
GO_MORE = ("package shop\n\n"
           + "".join(f"// Extra{i:02d} is a helper of the command kept in another file, number {i}.\n"
                     f"func (c *Command) Extra{i:02d}(name string) (string, error) {{\n\treturn name, nil\n}}\n\n"
                     for i in range(30)))
HELPERS = '"""Helpers."""\n\n\n' + "".join(
    f"def helper_{i:03d}(cart: dict, rate: float = 0.1, name: str = 'x{i}') -> float:\n"
    f'    """Helper number {i} prices the cart with its own rule for the shop\'s accountants."""\n'
    f"    return 1.0\n\n\n" for i in range(120))

LONGDOC = ('def explain(rule: str) -> str:\n    """' + "\n".join(
    f"    Line {i} of one long paragraph that says how the rule {i} is read and applied to a cart." for i in range(200))
    + '\n    """\n    return rule\n')


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    files = {"engine.py": BIG, "go.mod": "module example.com/shop\n\ngo 1.22\n",
             "command.go": GO_MAIN, "more.go": GO_MORE, "helpers.py": HELPERS,
             "longdoc.py": LONGDOC,
             "main.py": "from helpers import helper_001\n\n\ndef run():\n    return helper_001({})\n"}
    with indexed_tools(tmp_path_factory.mktemp("apicut"), files) as (t, sid):
        yield t, sid


def _one(resp):
    assert len(resp.items) == 1
    return resp.items[0]


def test_a_large_python_class_is_an_outline_under_the_cap(shop):
    t, sid = shop
    r = t.get(sid, "engine.py::Engine", "api")
    it = _one(r)
    shown = it.meta["members_shown"]
    assert it.meta["api_cut"] is True and it.meta["members_total"] == N_METHODS
    assert 10 <= shown < N_METHODS
    assert it.meta["api_tokens"] > API_CAP                 # what the whole api would have cost
    assert it.tokens <= API_CAP and it.tokens == T.count(it.text) == r.envelope.tokens_returned
    lines = it.text.split("\n")
    assert lines[0] == "class Engine"
    assert "The engine of the shop" in lines[1] and "Paragraph 1 " not in it.text    # the first paragraph only
    assert lines[2].strip().startswith("method Engine.m00: def m00(self, cart: dict, rate: float = 0.00) -> float")
    assert "Price step 0: applies rule_0" in lines[2] and "accountants" not in it.text
    assert [ln.strip().split(":")[0] for ln in lines[2:2 + shown]] == [f"method Engine.m{i:02d}" for i in range(shown)]
    tail = lines[-1]
    assert f"{N_METHODS - shown} more members ({shown} of {N_METHODS} shown)" in tail
    assert "walk engine.py::Engine --edge contains" in tail
    assert f"get engine.py::Engine.m{shown:02d} --level api" in tail
    assert "its doc: the first paragraph only" in tail and "get engine.py::Engine --level full" in tail and "--lines 4-" in tail
    # what the tail says works: the walk lists every member, the member's own api is whole
    listed = t.walk(sid, "engine.py::Engine", edges=["contains"], page_size=100).items
    assert len(listed) == N_METHODS
    m = _one(t.get(sid, f"engine.py::Engine.m{shown:02d}", "api"))
    assert "api_cut" not in m.meta and "accountants asked" in m.text


def test_a_function_with_one_endless_doc_paragraph_keeps_its_start(shop):
    t, sid = shop
    it = _one(t.get(sid, "longdoc.py::explain"))
    assert it.meta["api_cut"] is True and it.meta["members_total"] == 0 and it.tokens <= API_CAP
    lines = it.text.split("\n")
    assert lines[0] == "def explain(rule: str) -> str" and lines[1].strip().startswith("Line 0 of one long")
    n = len(lines) - 2
    assert 5 < n < 200 and "more member" not in lines[-1]
    assert f"its doc: its first {n} lines only" in lines[-1] and "get longdoc.py::explain --level full" in lines[-1]


def test_the_tool_description_names_the_cap():
    from stratum.tools import Tools

    assert f"over {API_CAP:,} tokens" in (Tools.get.__doc__ or "")


def test_a_small_class_and_the_full_text_are_unchanged(shop):
    t, sid = shop
    small = _one(t.get(sid, "engine.py::Small", "api"))
    assert small.text == ("class Small\n    A small helper.\n    def one(self) -> int\n        Return one.")
    assert "api_cut" not in small.meta and small.tokens == T.count(small.text)
    full = _one(t.get(sid, "engine.py::Engine", "full"))
    start = BIG.index("class Engine")
    assert full.text == BIG[start:BIG.index("\nclass Small")].rstrip("\n")
    assert "api_cut" not in full.meta and "Paragraph 39" in full.text
    f = _one(t.get(sid, "engine.py"))           # a file whose outline fits: as stored
    assert "api_cut" not in f.meta and f.text.startswith("# engine.py")


def test_a_go_struct_with_methods_in_two_files_is_an_outline(shop):
    t, sid = shop
    it = _one(t.get(sid, "command.go::Command"))          # api: the default level
    total, shown = it.meta["members_total"], it.meta["members_shown"]
    assert it.meta["api_cut"] is True and total == 70 and 10 <= shown < 40
    assert it.tokens <= API_CAP
    lines = it.text.split("\n")
    assert lines[0].startswith("type Command struct")
    assert "Command is one command of the shop's tool." in it.text and "not the first paragraph" not in it.text
    steps = [ln.strip() for ln in lines if ln.strip().startswith("method ")]
    assert steps[0].startswith("method Command.Step00: func (c *Command) Step00(w io.Writer, args []string) error")
    assert len(steps) == shown and all("Step" in s for s in steps)       # its own file's first, in order
    assert f"{total - shown} more members ({shown} of {total} shown)" in lines[-1]
    assert f"get command.go::Command.Step{shown:02d} --level api" in lines[-1]
    listed = t.walk(sid, "command.go::Command", edges=["contains"], page_size=100).items
    assert sorted(i.path for i in listed) == ["command.go"] * 40 + ["more.go"] * 30


def test_a_file_outline_over_the_cap_is_cut_in_get_and_in_prefetch(shop):
    t, _ = shop
    sid = t.open_session(author="agent").data["session"]
    it = _one(t.get(sid, "helpers.py"))
    assert it.meta["api_cut"] is True and it.meta["members_total"] == 120 and it.tokens <= API_CAP
    assert it.text.startswith("# helpers.py\n    Helpers.\n    function helper_000: def helper_000(")
    assert "get helpers.py::helper_0" in it.text.split("\n")[-1]
    fresh = t.open_session(author="agent").data["session"]
    served = {i.path: i for i in t.prefetch(fresh, ["main.py"]).items}
    assert served["helpers.py"].level == "api"        # the neighbour, as get serves it
    assert served["helpers.py"].text == it.text and served["helpers.py"].meta == it.meta


def test_a_prefetch_plans_a_large_neighbour_at_its_outlines_cost(shop):
    """A budget that holds the outline but not the whole api: the neighbour comes at api level, cut
    (the controller planned with the whole api's cost and served it at summary)."""
    t, _ = shop
    sid = t.open_session(author="agent").data["session"]
    whole = _one(t.get(sid, "helpers.py")).meta["api_tokens"]
    assert whole > 2 * API_CAP
    fresh = t.open_session(author="agent").data["session"]
    served = {i.path: i for i in t.prefetch(fresh, ["main.py"], budget=API_CAP + 600).items}
    assert served["helpers.py"].level == "api" and served["helpers.py"].meta["api_cut"] is True
    assert sum(i.tokens for i in served.values()) <= API_CAP + 600


def test_every_surface_says_it_was_cut(shop):
    from serving.client import Client
    from serving.mcp_server import render as mcp_render
    from serving.server import serve
    from stratum.cli.query import render as cli_render

    t, _ = shop
    local = t.get(t.open_session(author="agent").data["session"], "engine.py::Engine", "api")    # held nothing
    server, port = serve(t, port=0, reload_interval=None)
    try:
        c = Client(f"127.0.0.1:{port}", timeout=60)
        remote_sid = c.open_session(author="agent").data["session"]
        remote = _one(c.get(remote_sid, "engine.py::Engine", "api"))
        c.close()
    finally:
        server.stop(None)
    mine = _one(local)
    assert remote.text == mine.text and remote.tokens == mine.tokens and remote.meta == mine.meta
    mcp = json.loads(mcp_render(local))["items"][0]
    assert mcp["meta"]["api_cut"] is True and mcp["meta"]["members_shown"] == mine.meta["members_shown"]
    shown = cli_render(local)
    assert f"[api, {mine.tokens} tokens]" in shown and "more members" in shown
