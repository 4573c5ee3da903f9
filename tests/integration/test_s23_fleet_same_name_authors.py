"""Two identities under one name (a fleet probe: a token server and an open server on one store; a
token "carol" retracting a claimed "carol"'s note was refused with "carol may not retract note X,
written by carol", a contradiction). Refused still (``notes.same_writer``), saying how each was
identified. Real repository, real index job, two real gRPC servers on loopback over one store."""

from __future__ import annotations

import os

import pytest

from serving.auth import ServerSecurity, TokenFile
from serving.client import Client
from serving.server import serve
from stratum import errors as E

pytestmark = pytest.mark.slow
TOKEN = "carol-token-5e1f0a9c3b77"


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """(token server address, open server address) over one store."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    tmp = tmp_path_factory.mktemp("samename")
    r = Repo(tmp / "repo")
    r.commit("initial", {"shop/pricing.py": "def discount(total, pct):\n    return total * (1 - pct / 100)\n"})
    store = tmp / "store"
    index_repository(r.path, store, IndexConfig(num_cpus=1, ray=False))
    tokens = tmp / "tokens"
    tokens.write_text(f"{TOKEN} carol\n")
    os.chmod(tokens, 0o600)
    running = []
    for security in (ServerSecurity(tokens=TokenFile(tokens)), None):
        tools = Tools.open([str(store)])
        server, port = serve(tools, port=0, reload_interval=None, **({"security": security} if security else {}))
        running.append((server, tools, f"127.0.0.1:{port}"))
    yield [addr for _, _, addr in running]
    for server, tools, _ in running:
        server.stop(None)
        tools.close()


def test_a_refusal_between_two_carols_says_how_each_was_identified(servers):
    proven, open_ = servers
    with Client(proven, timeout=60, token=TOKEN) as a, Client(open_, timeout=60) as b:
        sa, sb = a.open_session().data["session"], b.open_session(author="carol").data["session"]
        mine = a.remember(sa, "failure", "discount went negative above 100 percent", ["shop/pricing.py::discount"])
        claimed = b.remember(sb, "failure", "a claimed carol's note", ["shop/pricing.py::discount"])
        with pytest.raises(E.PermissionDenied) as e:
            a.retract(sa, claimed.data["note_id"])
        said = str(e.value)
        assert "written by carol (claimed, unauthenticated); you are carol (token)" in said, said
        with pytest.raises(E.PermissionDenied) as e:
            b.retract(sb, mine.data["note_id"])
        said = str(e.value)
        assert "written by carol (authenticated); you are carol (claimed, unauthenticated)" in said, said
        assert "only its author or a maintainer may" in said
