"""A note's tags and targets have one bound, the note rules' (``notes.NoteLimits``): the tools'
argument check refuses past it, and the MCP schema an agent lists publishes it.

A docs-verbatim probe: the schema published `tags` as up to 64 tags of 128 characters, while
remember refused more than 16 tags or a tag over 64 characters."""

from __future__ import annotations

import pytest

from stratum import notes as N
from stratum.errors import InvalidArgument, NoteRejected
from stratum.toolspec import ARGS, check_arg

LIMITS = N.NoteLimits()


def _validate(**kw) -> None:
    N.validate("insight", "a note", kw.pop("about", []), "alice", resolve=lambda a: N.Resolved(a, "h", a), **kw)


def test_tags_take_the_note_rules_bound_and_nothing_past_it():
    spec = ARGS["tags"]
    assert (spec.max_items, spec.max_chars) == (LIMITS.max_tags, LIMITS.max_tag_chars) == (16, 64)
    most = [chr(97 + i) * LIMITS.max_tag_chars for i in range(LIMITS.max_tags)]
    assert check_arg("tags", most) == most          # the most the schema allows passes both checks
    _validate(tags=most)
    with pytest.raises(InvalidArgument, match=r"^tags has 17 entries; the limit is 16$"):
        check_arg("tags", most + ["x"])             # was taken here (64 allowed), refused by the note rules
    with pytest.raises(NoteRejected):
        _validate(tags=most + ["x"])
    with pytest.raises(InvalidArgument, match=r"^tags is 65 characters; the limit is 64 \("):
        check_arg("tags", ["t" * 65])               # was taken here (128 allowed)
    with pytest.raises(NoteRejected):
        _validate(tags=["t" * 65])
    with pytest.raises(InvalidArgument, match="not one string"):
        check_arg("tags", "one")                    # a list still, as every list argument


def test_about_takes_the_note_rules_count():
    assert ARGS["about"].max_items == LIMITS.max_targets == 32
    targets = [f"m{i}.py" for i in range(LIMITS.max_targets)]
    assert check_arg("about", targets) == targets
    _validate(about=targets)
    with pytest.raises(InvalidArgument, match=r"^about has 33 entries; the limit is 32$"):
        check_arg("about", targets + ["x.py"])
    assert ARGS["focus"].max_items == ARGS["supersedes"].max_items == 64    # no rule of their own


def test_the_mcp_schema_publishes_the_note_rules_bound():
    """Needs serving/mcp_server.py's ``_narrowed`` to publish ``spec.max_items`` as ``maxItems``."""
    from serving.mcp_server import build_server

    server = build_server(lambda: None)             # the backend opens with a connection: none here
    props = server._tool_manager.get_tool("remember").parameters["properties"]

    def bounds(name: str) -> tuple:
        prop = props[name]
        items = prop.get("items") or next(p["items"] for p in prop.get("anyOf", []) if "items" in p)
        return prop.get("maxItems"), items.get("maxLength")

    assert bounds("tags") == (16, 64)               # was (64, 128)
    assert bounds("about") == (32, 1024)
    assert bounds("supersedes") == (64, 1024)
