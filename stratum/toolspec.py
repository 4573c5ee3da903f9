"""The tools' registry: each ``Tools`` method marked ``@tool`` once, in definition order, and what
the adapters derive from it (``tools.TOOLS``, ``TOOL_NAMES``, ``READ_ONLY``, ``WRITING``: the MCP
tool list and read-only hints, the gRPC method map), and ``ARGS``: the closed sets and bounds of the
tools' arguments and what each means (``help``: the MCP schemas' ``description``, one text per
name), which an adapter can publish (the MCP input schemas' enums and minimum/maximum,
the CLI's choices) while the tools still check every value themselves: a bound here is checked by
``tool`` on every call, so no adapter can admit what another refuses. A string argument's longest
value (``max_chars``) is checked there too, by ``check_arg``, which the gRPC server's door
(``serving.convert.check_request``) and the gRPC client (before it builds a request) call as well:
one limit per argument, refused with one code and the same words on every surface (the door gave
``lines`` 1024 characters where get allows 32, and said "kinds has 65 values" where the tool said
"entries": a probe).

A byte that is not UTF-8 in an argument (a lone surrogate: Python's spelling of a command-line byte,
JSON's ``"\\ud800"``) follows one rule there too (``utf8``): free text (``PROSE``) reads it as
U+FFFD; any other string is matched exactly, so it is refused, as ``NoteRejected`` in remember's note
fields (``NOTE_FIELDS``) and ``InvalidArgument`` elsewhere, but for a code target (``CODE_TARGETS``),
which the tools look up to say the index skipped such a name. The gRPC client must apply it before a
request is built (no wire carries one), and the tools answered otherwise: a bad byte in remember's
kind was NoteRejected "unknown note kind" locally and InvalidArgument over gRPC, one in ``lines``
"must be START-END" against "not valid UTF-8", one in ``path_prefix`` was searched locally (probes)."""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any

from stratum import schema as S
from stratum.errors import InvalidArgument, NoteRejected
from stratum.limits import (MAX_BUDGET, MAX_DEPTH, MAX_NAME_CHARS, MAX_PAGE_SIZE, MAX_PAGE_TOKEN_CHARS, MAX_QUERY_CHARS,
                            MAX_SESSION_ID_CHARS, MAX_TARGET_CHARS, MAX_TARGETS, MAX_TRACEBACK_CHARS, check_len,
                            check_list, check_range, query_too_long, typed)
from stratum.notes import NoteLimits, check_text_size
from stratum.notetext import LONE_SURROGATE, check_utf8, clean_text
from stratum.notethreads import searching


@dataclass(frozen=True)
class ToolSpec:
    name: str
    writes: bool            # False: never changes anything (MCP read-only hint)
    agent: bool = True      # one of the agent tools (session management is not)
    appends: bool = False   # appends to the store's delta log (a stopping server waits for one running)


_SPECS: list[ToolSpec] = []


def tool(*, writes: bool, agent: bool = True, appends: bool = False):
    """Mark a ``Tools`` method as a tool (definition order is the tools' order). A reading tool runs
    as a search in flight (``notethreads.searching``): background note work waits between its steps.
    Every argument ``ARGS`` names (a note's text among them) and the session is checked first
    (``check_arg``), given or left to its default, and the tool gets the checked value: a string, a
    list of strings, a number. None given is the argument left out, as on the wire (an unset field, a
    JSON null over MCP): its default, and a required one's is empty ("", no items), so the tool says
    what an empty one lacks; None stays None only where it is the default (budget: the session's).
    Locally `tree(depth=None)` was refused and `get(target=None)` read as "", while the gRPC client
    sent the default and refused the other ("target is required (got None)"): a probe. The bounds are
    the wire's, so a value the local tools took (depth 2**31) is refused as gRPC refuses it (a
    probe), and the tool need not check any of it again."""
    def mark(fn):
        _SPECS.append(ToolSpec(fn.__name__, writes, agent, appends))
        checked = _checked(fn)

        @functools.wraps(fn)
        def call(*args, **kwargs):
            given = list(args)
            for name, at, spec, default in checked:
                if name in kwargs:
                    value = kwargs[name]
                elif at < len(given):
                    value = given[at]
                elif default is inspect.Parameter.empty:
                    continue                # missing: calling ``fn`` raises Python's own TypeError
                else:
                    value = default
                if value is None and default is not inspect.Parameter.empty:
                    if default is None:
                        continue
                    value = default             # None: left out
                value = check_arg(name, value, spec)
                if at < len(given) and name not in kwargs:
                    given[at] = value
                else:
                    kwargs[name] = value
            if writes:
                return fn(*given, **kwargs)
            with searching:
                return fn(*given, **kwargs)
        return call
    return mark


def _checked(fn) -> list[tuple[str, int, ArgSpec, Any]]:
    """``fn``'s parameters ``check_arg`` sees: (name, position counting ``self``, spec, default)."""
    params = inspect.signature(fn).parameters.values()
    return [(p.name, i, ARGS.get(p.name, _TEXT), p.default) for i, p in enumerate(params)
            if p.name in ARGS or p.name == "session"]


# Free text: a byte that is not UTF-8 reads as U+FFFD, as a decoder with errors="replace" reads it
# (docs/notes.md): a note's text, a search query, a retract reason.
PROSE = frozenset({"text", "query", "reason"})
# remember's note fields, refused as the note rules refuse them (``notes.validate``: NoteRejected),
# in the words those rules use for them
NOTE_FIELDS = {"kind": "note kind", "about": "target", "tags": "tag", "supersedes": "note id in supersedes"}
# code targets: git allows a file name that is not UTF-8 (the index skips it), and the tools look such
# a target up to say so ("the index skips a name that is not UTF-8", ``Memory.unindexed``); only a
# caller that must send it over a wire (``sending``: the gRPC client) refuses it
CODE_TARGETS = frozenset({"target", "focus"})


def utf8(name: str, value: Any, *, sending: bool = False) -> Any:
    """``value`` (a string or a list of them) under the one rule for a byte that is not UTF-8 (module
    docstring): free text with each lone surrogate as U+FFFD, any other string refused when it holds
    one (``notetext.check_utf8``'s words; remember's note fields as NoteRejected), a code target
    only when ``sending``. Another type is returned as it is, for the type checks to name."""
    if isinstance(value, str) and name in PROSE:
        return LONE_SURROGATE.sub("\ufffd", value)
    if name in CODE_TARGETS and not sending:
        return value
    said, error = NOTE_FIELDS.get(name, name), NoteRejected if name in NOTE_FIELDS else InvalidArgument
    for v in [value] if isinstance(value, str) else value if isinstance(value, (list, tuple, set, frozenset)) else ():
        if isinstance(v, str):
            check_utf8(said, v, error)
    return value


def check_arg(name: str, value: Any, spec: ArgSpec | None = None, *, sending: bool = False) -> Any:
    """``value`` as the tool takes it, else InvalidArgument: a byte that is not UTF-8 first
    (``utf8``), then the bounds of ``spec`` (default: ``ARGS[name]``): a whole number within them,
    a string of at most ``max_chars`` (None: ""), a list of at most ``limits.MAX_TARGETS`` such
    strings (``max_items``: a note's tags and targets, the note rules' count); a closed set's value
    and any other string (a note's text, the session id; None: "") must be text (which word, the
    tool says), within the size its owner bounds (``check_size``). The tools (``tool``), the gRPC door, the gRPC client (``sending``) and the MCP
    server all call this: each refusal has one class and one wording (the client said "text must
    be a string, not int '3'" where the tools said "text must be text": a probe)."""
    spec = ARGS.get(name, _TEXT) if spec is None else spec
    value = utf8(name, value, sending=sending)
    if spec.max_chars is None:
        if spec.minimum is not None or spec.maximum is not None:
            check_range(name, value, spec.minimum, spec.maximum)
        elif value is None:
            return ""
        elif not isinstance(value, str):    # level, direction: which words, the tool's; text: the note rules'
            raise InvalidArgument(f"{name} must be text, got {typed(value)}")
        return check_size(name, value)
    if spec.items:
        return check_list(name, value, spec.max_chars, spec.max_items)
    if name == "query" and isinstance(value, str) and len(value) > spec.max_chars:   # past both limits: the prose
        raise query_too_long(len(value))           # one is named first (it said 32000 to a 39,000 one)
    return check_len(name, value, spec.max_chars)    # it refuses a value that is not text


def check_size(name: str, value: str) -> str:
    """``value`` within the size its owner bounds, in the owner's words: the session id's length (the
    sessions', ``SessionRegistry.get``) and a note's text in UTF-8 bytes as stored (the note rules',
    ``notes.validate``: NoteRejected). ``ARGS`` bounds neither (text is there for its ``help``), yet a
    client must refuse them before a request is built: a 1 MiB note through ``Client`` was gRPC's
    "Received message larger than max (1048644 vs. 1048576)" where ``Tools`` said the note limit
    (a probe). The note rules check the text again, with the same ``notes.check_text_size``."""
    if name == "session":
        return check_len("session id", value, MAX_SESSION_ID_CHARS)
    limit = NoteLimits.max_text_bytes
    if name == "text" and len(value) > limit // 4 and len(value.encode("utf-8")) > limit:  # 4 bytes a character at most
        check_text_size(clean_text(value), limit)       # as validate measures it: what would be stored
    return value


@dataclass(frozen=True)
class ArgSpec:
    """What values a tool argument takes, beyond its type: one of ``choices`` (for a list argument,
    each item), an integer from ``minimum`` to ``maximum`` (None: unbounded on that side), or a
    string of at most ``max_chars`` characters (``items``: a list of at most ``max_items`` such
    strings, ``limits.MAX_TARGETS`` unless a rule of its own says fewer: MCP publishes it as
    ``maxItems``). ``help``: what the argument means, one sentence (the MCP schema's
    ``description``); every entry of ``ARGS`` has one."""
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    max_chars: int | None = None
    items: bool = False
    max_items: int = MAX_TARGETS
    help: str = ""

    @property
    def bounded(self) -> bool:
        """Whether ``check_arg`` checks more than the argument's bytes (a number's range, a length)."""
        return self.minimum is not None or self.maximum is not None or self.max_chars is not None


_TEXT = ArgSpec()       # the session id (the sessions bound it); a note's text (the note rules do) is ARGS'
MAX_LINES_CHARS = 32          # get's lines: "START-END", 9 digits each, with spaces around the dash


# By parameter name: a name means the same thing in every tool that takes it (page_size in tree,
# search and walk), and so does its ``help``. Each bound is a constant the tools check against, never
# a copy of it; that the tools' own checks accept exactly these is tested
# (tests/integration/test_mcp_schema.py), and that each MCP schema property carries its ``help``.
ARGS: dict[str, ArgSpec] = {
    "level": ArgSpec(choices=S.LEVELS, help=(                # get
        "Detail: summary (one line), api (signatures and docstrings: what a caller needs; the default; "
        "a large class or file: an outline of its members, saying how to read the rest) or full (source).")),
    "kinds": ArgSpec(choices=S.SEARCH_KINDS, max_chars=MAX_NAME_CHARS, items=True, help=(   # search's filter
        'Only results of these kinds (default: all); "file" alone lists each file once, ranked by its code, '
        "notes and history.")),
    "kind": ArgSpec(choices=S.AGENT_NOTE_KINDS, max_chars=MAX_NAME_CHARS, help=(   # remember (notes.validate)
        "The note's kind: rca (the cause of a failure and where it is), failure (an approach that did not "
        "work, and why) or insight.")),
    "edges": ArgSpec(choices=S.WALK_EDGE_KINDS, max_chars=MAX_NAME_CHARS, items=True, help=(   # walk
        'Edge kinds to follow (default: all); "notes" lists every note about the node (its incoming about '
        "edges).")),
    "direction": ArgSpec(choices=S.DIRECTIONS, help=(        # walk
        "out: what the node imports, calls, contains (the default); in: who imports, calls or tests it, "
        "notes about it; both: either.")),
    "page_size": ArgSpec(minimum=1, maximum=MAX_PAGE_SIZE, help=(  # limits.check_page
        "The most items a page holds (default: the tool's own); a search's first page may end early where "
        "the evidence drops.")),
    "depth": ArgSpec(minimum=1, maximum=MAX_DEPTH, help=(    # tree (checked by ``tool``)
        "How many levels below PATH to list: 1 is PATH and its children (default 2).")),
    "budget": ArgSpec(minimum=1, maximum=MAX_BUDGET, help=(  # prefetch, open_session: tokens (``tool``)
        "Tokens: the most a prefetch adds (default: the session's free room), or a session's context budget "
        "(default: the server's).")),
    # strings (a list's: each item), checked by ``tool``; a session id is the sessions' own
    # (``sessions.SessionRegistry``), a note's text the note rules' (``notes.validate``)
    "target": ArgSpec(max_chars=MAX_TARGET_CHARS, help=(     # get, walk, pin, unpin
        "The node: a node id, a path, path::Qualified.name, or path:LINE (the function or class around that "
        "line); repo:target names one store's.")),
    "path": ArgSpec(max_chars=MAX_TARGET_CHARS, help=(       # tree
        'The directory or file to list ("": the whole repository; repo:path names one store\'s).')),
    "query": ArgSpec(max_chars=MAX_TRACEBACK_CHARS, help=(   # search: a pasted traceback (its text: MAX_QUERY_CHARS)
        f"What to find, by meaning and keyword (identifiers work), up to {MAX_QUERY_CHARS:,} characters, or "
        f"a pasted traceback or failure up to {MAX_TRACEBACK_CHARS:,}.")),
    "path_prefix": ArgSpec(max_chars=MAX_TARGET_CHARS, help=(  # search
        "Only results under this directory or file path (repo:path searches one store).")),
    "language": ArgSpec(max_chars=MAX_NAME_CHARS, help=(     # search
        "Only code in this language, as the index names it (e.g. python).")),
    "lines": ArgSpec(max_chars=MAX_LINES_CHARS, help=(       # get (linerange.parse)
        'Only these source lines, by file line number: "START-END" (e.g. "120-160"), "START" one line, '
        '"START-" to the end; default: all.')),
    "page_token": ArgSpec(max_chars=MAX_PAGE_TOKEN_CHARS, help=(   # tree, search, walk (envelope.PageTokens)
        "The previous answer's next_page_token, for the next page (send the same other arguments); empty "
        "for the first page.")),
    # remember: a note's targets and tags, at the note rules' bounds (``notes.NoteLimits``, which
    # ``notes.validate`` checks too): the schema said 64 tags of 128 characters, remember took 16 of 64
    "about": ArgSpec(max_chars=MAX_TARGET_CHARS, items=True, max_items=NoteLimits.max_targets, help=(
        'The code the note is about: node ids, paths, path::symbol or path:LINE ("" or "." for the whole '
        "repository).")),
    "tags": ArgSpec(max_chars=NoteLimits.max_tag_chars, items=True, max_items=NoteLimits.max_tags, help=(
        "Labels for the note; a keyword search finds the note by them too.")),
    "supersedes": ArgSpec(max_chars=MAX_TARGET_CHARS, items=True, help=(   # remember
        "Ids of earlier notes this one replaces (they become superseded); only their author or a maintainer "
        "may.")),
    "focus": ArgSpec(max_chars=MAX_TARGET_CHARS, items=True, help=(        # prefetch
        "The files you are about to edit (paths or node ids): their imports, tests and co-changing files are "
        "warmed.")),
    # remember's text: no bound here (the note rules' size, ``check_size``), only what it means
    "text": ArgSpec(help=(
        f"The note itself: what happened, where and why, for later sessions (at most "
        f"{NoteLimits.max_text_bytes // 1024} KiB as UTF-8).")),
    "author": ArgSpec(max_chars=MAX_NAME_CHARS, help=(       # open_session
        "Who the session's notes are by (default: the model, else the caller); an authenticated caller "
        "writes as itself.")),
    "model": ArgSpec(max_chars=MAX_NAME_CHARS, help=(        # open_session
        "The model the agent runs, kept in its notes' provenance.")),
    "policy": ArgSpec(max_chars=MAX_NAME_CHARS, help=(       # open_session
        "How the session's context evicts: score or lru (default: the server's).")),
    "branch": ArgSpec(max_chars=MAX_TARGET_CHARS, help=(     # open_session
        "Answer for this branch: the indexed version plus an overlay of what the branch changed.")),
    "commit": ArgSpec(max_chars=MAX_TARGET_CHARS, help=(     # open_session
        "Answer for this commit: the indexed version plus an overlay of what differs (not with branch).")),
    "worktree": ArgSpec(max_chars=MAX_TARGET_CHARS, help=(   # open_session
        "Answer for this worktree (a path), its uncommitted edits too.")),
    "note_id": ArgSpec(max_chars=MAX_TARGET_CHARS, help=(    # retract, confirm
        "The note's id: the full id, or a short one as an answer prints it.")),
    "reason": ArgSpec(max_chars=MAX_TARGET_CHARS, help=(     # retract
        "Why the note is withdrawn, kept with its tombstone.")),
}


__all__ = ["ToolSpec", "tool", "ArgSpec", "ARGS", "check_arg", "check_size", "utf8", "PROSE", "NOTE_FIELDS", "CODE_TARGETS",
           "MAX_LINES_CHARS"]
