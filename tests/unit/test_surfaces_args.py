"""The one check of a tool argument (``toolspec.check_arg``, run by ``@tool`` on every call and by
the gRPC client before a request is built) and how an error message shows a value (``limits.echo``).

``@tool`` hands the tool the checked value, given or default (a list for a sequence, "" for None), so
the tools do not check a length or a range a second time; a byte that is not UTF-8 gets one answer
whatever the surface; and a message spells such a byte as the rest of the project does (``\\xe9``,
as git, the history and the CLI's names spell it), where it showed '?'."""

from __future__ import annotations

import pickle

import pytest

from stratum import toolspec
from stratum.errors import InvalidArgument, NoteRejected
from stratum.limits import ECHO_CHARS, check_len, echo


@pytest.fixture()
def remember():
    """A function marked as a writing tool with remember's parameters (the registry left as it was)."""
    before = list(toolspec._SPECS)
    try:
        @toolspec.tool(writes=True)
        def remember(self, session: str, kind: str, text: str, about, tags=(), supersedes=()):
            return dict(session=session, kind=kind, text=text, about=about, tags=tags, supersedes=supersedes)
    finally:
        toolspec._SPECS[:] = before
    return remember


def test_the_tool_gets_each_argument_checked_given_or_default(remember):
    got = remember(None, "s1", "insight", "log said caf\udce9", ("a.py",), tags=None)
    assert got == dict(session="s1", kind="insight", text="log said caf\ufffd", about=["a.py"], tags=[],
                       supersedes=[])
    got = remember(None, "s1", "insight", "t", ["a.py"], ("x",), supersedes=("n1",))    # positional too
    assert got["tags"] == ["x"] and got["supersedes"] == ["n1"]


@pytest.mark.parametrize("kw, cls, said", [
    ({"kind": "caf\udce9"}, NoteRejected, "note kind 'caf\\xe9' holds a byte that is not valid UTF-8"),
    ({"about": ["a.py", "b\ud800"]}, NoteRejected, "target 'b\\ud800' holds a byte that is not valid UTF-8"),
    ({"tags": ["caf\udce9"]}, NoteRejected, "tag 'caf\\xe9' holds a byte"),
    ({"session": "s\udce9"}, InvalidArgument, "session 's\\xe9' holds a byte"),
    ({"about": "a.py"}, InvalidArgument, "about must be a list of strings, not one string"),
    ({"kind": "k" * 129}, InvalidArgument, "kind is 129 characters; the limit is 128"),
])
def test_a_refused_argument_is_refused_before_the_tool_runs(remember, kw, cls, said):
    args = {"session": "s1", "kind": "insight", "text": "t", "about": ["a.py"], **kw}
    with pytest.raises(cls) as ei:
        remember(None, **args)
    assert type(ei.value) is cls and ei.value.message.startswith(said), ei.value.message


def test_check_arg_is_the_one_rule_of_every_argument():
    assert toolspec.check_arg("query", "caf\udce9") == "caf\ufffd"            # free text: U+FFFD
    assert toolspec.check_arg("lines", None) == ""
    assert toolspec.check_arg("focus", ("a", "b")) == ["a", "b"]
    # a code target may name a file git holds under such a name: the tools say the index skipped it;
    # the gRPC client, which cannot send it, refuses it
    assert toolspec.check_arg("target", "app/caf\udce9.py") == "app/caf\udce9.py"
    with pytest.raises(InvalidArgument, match=r"^target 'app/caf\\xe9\.py' holds a byte that is not valid UTF-8"):
        toolspec.check_arg("target", "app/caf\udce9.py", sending=True)
    for name, value, said in (("lines", "9\udce9-3", "lines '9\\xe9-3' holds a byte that is not valid UTF-8"),
                              ("lines", 93, "lines must be text"), ("level", 3, "level must be text"),
                              ("page_size", 2**31, "page_size must be between 1 and 200, got 2147483648"),
                              ("depth", True, "depth must be a whole number, got True (bool)")):
        with pytest.raises(InvalidArgument) as ei:
            toolspec.check_arg(name, value)
        assert ei.value.message.startswith(said), ei.value.message


def test_echo_spells_a_byte_as_the_project_does_and_quotes_as_repr():
    cafe = echo("caf\udce9")
    assert cafe == "caf\\xe9" and f"{cafe!r}" == "'caf\\xe9'"       # as messages quote it, not 'caf\\xe9'
    assert echo("a\x1bb\u202ec") == "a\\x1bb\\u202ec" and echo("x\ud800") == "x\\ud800"
    # a real backslash is doubled when quoted, as repr doubles it: it cannot pass for a spelled byte
    assert f"{echo('caf' + chr(92) + 'xe9')!r}" == repr("caf" + chr(92) + "xe9")
    assert repr(echo("it's")) == repr("it's") and repr(echo("plain")) == "'plain'"
    assert repr([echo("caf\udce9")]) == "['caf\\xe9']"          # inside a list too (check_kinds says so)
    long = "x" * (ECHO_CHARS + 5)
    assert echo(long) == "x" * ECHO_CHARS + "..." and repr(echo(long)) == repr("x" * ECHO_CHARS + "...")
    e = echo("caf\udce9")
    assert pickle.loads(pickle.dumps(e)) == e and repr(pickle.loads(pickle.dumps(e))) == repr(e)
    with pytest.raises(InvalidArgument, match=r"^kind is 200 characters; the limit is 128 \('k+\.\.\.'\)$"):
        check_len("kind", "k" * 200, 128)
