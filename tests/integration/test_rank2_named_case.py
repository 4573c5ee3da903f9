"""``ShardSignals.named_in`` on a real index: a prose query names a definition only as the code spells it."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

BUILDER = '''"""Building request environments."""


class EnvironBuilder:
    """Builds a WSGI environ."""

    def server_name(self) -> str:
        """The host part of the request."""
        return self.host.split(":")[0]

    def host_header(self) -> str:
        """The host header of the request, with its port."""
        return self.host
'''

SERVING = '''"""A development server."""


def make_environ(host: str) -> dict:
    """The environ of a request: SERVER_NAME and SERVER_PORT from the bound address; an IPv6
    address is not wrapped in brackets here."""
    return {"SERVER_NAME": host, "SERVER_PORT": "80"}
'''


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo

    base = tmp_path_factory.mktemp("named")
    Repo(base / "repo").commit("a builder and a server", {"web/test.py": BUILDER, "web/serving.py": SERVING})
    index_repository(base / "repo", base / "store", IndexConfig(num_cpus=1))
    return base / "store"


def test_an_all_caps_word_does_not_name_a_lower_case_method(store):
    """"IPv6 SERVER_NAME is not wrapped in brackets" names the environ key: ``EnvironBuilder.server_name``
    led the page at 1.06, "named in the query" (a probe on werkzeug). Spelt as the code spells it,
    the method is still named."""
    from stratum.tools import Tools

    tools = Tools.open([str(store)])
    try:
        s = tools.open_session(author="test").data["session"]
        items = tools.search(s, "IPv6 SERVER_NAME is not wrapped in brackets when building the host", page_size=5).items
        assert not any(i.why.startswith("named") for i in items), [(i.qualname, i.why) for i in items]
        named = tools.search(s, "IPv6 server_name is not wrapped in brackets when building the host", page_size=5).items
        assert (named[0].qualname, named[0].why.split(";")[0]) == ("EnvironBuilder.server_name", "named in the query")
        qual = tools.search(s, "EnvironBuilder.server_name drops the port", page_size=5).items
        assert qual[0].qualname == "EnvironBuilder.server_name" and qual[0].why.startswith("named in the query")
    finally:
        tools.close()
