"""What a one-identifier query names, from a probe of requests (session 31): ``Session`` (one
capitalised word) was no identifier, and the class sat at rank 35 under the function ``session``; a
path's tail that `get` takes (``pkg/cookies.py``, ``pkg/models.py::Response``) ranked 60-70 or not at
all; the other case style of a name (``requests_cookie_jar``, ``prepareBody``) ranked 19-48; a query
of no letter or digit ("!!!", an emoji) got a confident page of noise. Real git, the real index."""

from __future__ import annotations

import pytest

from stratum.errors import InvalidArgument
from stratum.tools import Tools
from tests.clirun import indexed_repo, run

SESSIONS = '''"""Sessions: a session keeps settings across requests."""


class Session:
    """A session: cookies and settings kept across requests."""

    def send(self, request):
        """Send a request in this session."""
        return request


def session():
    """A new Session (a session for context management; returns a session)."""
    return Session()
'''
COOKIES = '''"""Cookies for a session."""


class RequestsCookieJar:
    """A cookie jar."""


def merge_cookies(jar, cookies):
    """Merge cookies into a session's cookie jar."""
    return jar
'''
MODELS = '''"""Request and response models."""


class Response:
    """A response."""


class PreparedRequest:
    def prepare_body(self, data):
        """Prepare the body of a session request."""
        return data
'''


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return indexed_repo(tmp_path_factory.mktemp("names31") / "repo", {
        "src/pkg/__init__.py": "", "src/pkg/sessions.py": SESSIONS, "src/pkg/cookies.py": COOKIES,
        "src/pkg/models.py": MODELS})[1]


@pytest.fixture()
def tools(store):
    t = Tools.open([store])
    try:
        yield t, t.open_session().data["session"]
    finally:
        t.close()


@pytest.mark.parametrize("query,first", [
    ("Session", "src/pkg/sessions.py::Session"),                      # the class, not session()
    ("session", "src/pkg/sessions.py::session"),                      # a word: by its text, the function
    ("pkg/cookies.py", "src/pkg/cookies.py"),                         # a path's tail, as get takes it
    ("pkg/models.py::Response", "src/pkg/models.py::Response"),
    ("pkg/sessions.py::Session.send", "src/pkg/sessions.py::Session.send"),
    ("sessions.py::Session.send", "src/pkg/sessions.py::Session.send"),
    ("requests_cookie_jar", "src/pkg/cookies.py::RequestsCookieJar"),  # the other case style
    ("prepareBody", "src/pkg/models.py::PreparedRequest.prepare_body"),
])
def test_a_one_identifier_query_puts_what_it_names_first(tools, query, first):
    t, s = tools
    top = t.search(s, query).items[0]
    assert (f"{top.path}::{top.qualname}" if top.qualname else top.path) == first, [i.id for i in t.search(s, query).items]
    assert ("exact name" in (top.why or "")) == (query != "session"), top.why


def test_a_query_of_no_letter_or_digit_is_refused_as_an_empty_one_is(tools, store, capsys):
    t, s = tools
    for q in ("!!!???...", "()[]{}", "\U0001F525\U0001F525", "\u2014", "#"):
        with pytest.raises(InvalidArgument, match="query has no letter or digit to search for"):
            t.search(s, q)
    rc, _, err = run(capsys, "search", "#", "--store", store)
    assert rc == 2 and "no letter or digit" in err, err
    assert not t.search(s, "404").envelope.warnings     # a number is a query: answered, nothing said


def test_a_path_prefix_no_indexed_path_starts_with_is_refused_naming_the_top_folders(tools, store, capsys):
    """`--path nonexist/` answered "0 of 0 items ... that is all", as if the folder held no match (a
    probe), where `--language klingon` was told no such code is here."""
    t, s = tools
    with pytest.raises(InvalidArgument, match=r"no indexed path starts with 'nonexist/'; paths are relative to the "
                                              r"repository root: src/"):
        t.search(s, "session cookie", path_prefix="nonexist/")
    rc, _, err = run(capsys, "search", "session", "--path", "nonexist/", "--store", store)
    assert rc == 2 and "no indexed path starts with" in err, err
    assert t.search(s, "zzqqxx nothing matches", path_prefix="src/pkg/").items == []     # a folder there: no error
