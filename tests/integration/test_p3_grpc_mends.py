"""Defects a probe found on a real gRPC server serving two stores (session p3), each checked on a
real server on a loopback port over real git repositories indexed by the real job:

- a note with no targets (``about=[]``) on a server of two stores went to the first store without a
  word, while ``about=["."]`` (the same: the whole repository) was refused as ambiguous.
"""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlaybuilder import builder
from serving.client import Client
from serving.server import serve
from stratum import errors as E
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
NAMES = ("alpha", "beta")


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    """{name: (repository, store path)}: two repositories that share src/app.py, each indexed."""
    base = tmp_path_factory.mktemp("p3")
    out = {}
    for name in NAMES:
        r = Repo(base / name)
        r.commit("init", {"src/app.py": f'def main():\n    """Run {name}."""\n    return 1\n',
                          f"{name}_only.py": "X = 1\n"})
        index_repository(r.path, base / f"{name}_store", CFG)
        out[name] = (r, str(base / f"{name}_store"))
    return out


@pytest.fixture()
def served(repos):
    """A server's address over ``stores`` (store paths), on port 0, stopped after."""
    running = []

    def start(*stores: str) -> str:
        tools = Tools.open(list(stores), overlay_builder=builder(CFG))
        server, port = serve(tools, port=0, reload_interval=None)
        running.append((server, tools))
        return f"127.0.0.1:{port}"
    yield start
    for server, tools in running:
        server.stop(None)
        tools.close()


def test_a_note_with_no_targets_is_refused_as_the_whole_repository_is_on_two_stores(repos, served):
    both = served(repos["alpha"][1], repos["beta"][1])
    with Client(both, timeout=30) as c:
        s = c.open_session(author="agent").data["session"]
        for about in ([], ["."], [""]):
            with pytest.raises(E.InvalidArgument) as e:
                c.remember(s, "insight", f"the whole repository {about}", about)
            assert "name one as repo:target, e.g. alpha:., beta:." in e.value.message, e.value.message
        assert e.value.message.startswith("'' is in 2 of the stores served here (alpha, beta)")
        with pytest.raises(E.InvalidArgument) as none:
            c.remember(s, "insight", "the whole repository, no targets", [])
        assert none.value.message.startswith("a note with no targets is about the whole repository: "
                                             "'.' is in 2 of the stores served here (alpha, beta)"), none.value.message
        nid = c.remember(s, "insight", "beta as a whole", ["beta:."]).data["note_id"]
        assert c.get(s, nid).items[0].repo == "beta"        # named: that store's
    with Client(served(repos["alpha"][1]), timeout=30) as c:      # one store: the whole repository, as before
        s = c.open_session(author="agent").data["session"]
        nid = c.remember(s, "insight", "the one repository as a whole", []).data["note_id"]
        assert c.get(s, nid).items[0].kind == "insight"
