"""The page-safe envelope carried by every tool response, and signed next-page tokens.

A retrieval answer that silently stops after top-k leaves the model unable to tell whether it has
seen everything. Every response therefore says what it returned, what remains (total or a lower
bound, page i of n, has_more, a hint of the next page), and what it cost against the session
budget, plus any evictions the controller made to fit it.

Page tokens are opaque: an HMAC-signed blob binding the tool, its arguments, the offset, the
dataset version, the session and when it was issued. A tampered token, a token from another
session, one from an older published version, or one older than its time to live (default 1 h: a
token is for paging through one answer, not a bookmark) is refused with InvalidPageToken.

``Budget`` and ``Eviction`` are the one budget and eviction type: the controller returns them and
the adapters put them on the wire as they are.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

from stratum.errors import InvalidPageToken
from stratum.limits import MAX_PAGE_TOKEN_CHARS
from stratum.notetrust import session_label

PAGE_TOKEN_TTL = 3600.0       # seconds a next-page token stays valid


@dataclass
class Budget:
    """A session's token budget (the controller's reserve is its own: ``Controller.reserve``)."""

    limit: int
    used: int
    remaining: int


@dataclass
class Eviction:
    """One context entry given up by one admission: demoted to a lower level, or dropped ("cold")."""

    node_id: str
    from_level: str
    to_level: str            # "summary" / "api", or "cold" when removed from context
    tokens_freed: int
    reason: str
    label: str = ""          # "kind path::qualname" (a note: its label): what left, readable without a get


@dataclass
class Item:
    id: str
    kind: str
    path: str
    name: str = ""
    qualname: str = ""
    level: str = "summary"
    text: str = ""
    tokens: int = 0
    score: float | None = None
    language: str = ""
    start_line: int = 0
    end_line: int = 0
    edge: str = ""            # walk: the edge kind that led here
    direction: str = ""       # walk: out / in
    warnings: list[str] = field(default_factory=list)   # e.g. a stale note
    meta: dict = field(default_factory=dict)
    # notes only: where the note came from, and how far to trust it. A note is data written by
    # another agent (or mined from history), never an instruction.
    provenance: dict = field(default_factory=dict)   # author, authenticated, model, session, commit, written_at, source (agent|mined)
    trust: str = ""           # notes: "authenticated", "unauthenticated", "mined", "quarantined"; code: ""
    why: str = ""             # search: which signals put the item here, e.g. "text 0.031; note rca 1a2b lifts; cochange with x.py"
    notes: list[dict] = field(default_factory=list)  # get/walk/prefetch: active notes about this node, one summary line each
    repo: str = ""            # several stores served together: the repository the item is from ("" with one)
    # Not a field, never served: which version of its node the item renders (the node's content hash;
    # "" unknown), for the session's ledger: another version of a node held is new content
    # (``Controller.admit``), where a re-indexed function was said to be "already in context".
    content_version = ""


@dataclass
class Envelope:
    returned: int
    total: int
    total_is_lower_bound: bool
    page: int                 # 1-based
    pages: int                # 0 when only a lower bound is known
    has_more: bool
    next_page_token: str
    tokens_returned: int
    budget: Budget
    evictions: list[Eviction] = field(default_factory=list)
    next_hint: str = ""
    version: int = 0          # published store version the answer was read from
    warnings: list[str] = field(default_factory=list)
    # freshness: the commit the answer reflects (the indexed commit of the stores it draws on: its
    # items', else those it was asked of; "" when they differ or none is a git repository), per
    # repository in ``commits``; ``stale`` when one of those repositories moved past it or has
    # uncommitted changes touching what was returned (``warnings`` name them). status: every store
    commit: str = ""
    commits: dict[str, str] = field(default_factory=dict)
    stale: bool = False


@dataclass
class Response:
    envelope: Envelope
    items: list[Item] = field(default_factory=list)
    data: dict = field(default_factory=dict)     # tool-specific extras (status, note id, ...)

    def to_dict(self) -> dict:
        return asdict(self)


class PageTokens:
    """Signs and checks next-page tokens with a per-server secret; ``ttl`` seconds of validity on
    the ``clock`` (wall time, so a CLI token survives from one process to the next)."""

    def __init__(self, secret: bytes, *, ttl: float = PAGE_TOKEN_TTL, clock: Callable[[], float] = time.time):
        self._key = secret
        self.ttl = ttl
        self._clock = clock

    def issue(self, *, tool: str, args: dict, offset: int, version: int, session: str, page: int = 0,
              notes: int = 0) -> str:
        """A token for the page starting at ``offset`` (``page``: its number, when the offset alone
        cannot tell it: pages cut by the budget leave the grid of page_size; ``notes``: the stamp of
        the unmerged notes the list was ranked with, ``Memory.notes_stamp``)."""
        fields = {"t": tool, "a": _digest(args), "o": offset, "v": version, "s": session_label(session),
                  "i": int(self._clock())}
        if page:
            fields["p"] = page
        if notes:
            fields["n"] = notes
        if isinstance(version, StoresVersion) and len(version.parts) <= MAX_NAMED_STORES:
            fields["vs"] = [v for _, v in version.parts]      # which store moved, said if it goes stale
        body = json.dumps(fields, separators=(",", ":")).encode()
        sig = hmac.new(self._key, body, hashlib.sha256).digest()[:12]
        return base64.urlsafe_b64encode(body + sig).decode().rstrip("=")

    def check(self, token: str, *, tool: str, args: dict, version: int, session: str) -> int:
        """The offset the token points at (an ``Offset``, which knows its page number when the token
        carried one, and the notes stamp it was issued with); InvalidPageToken if it was not issued
        for this call."""
        if not isinstance(token, str) or len(token) > MAX_PAGE_TOKEN_CHARS:
            raise InvalidPageToken(f"page token is malformed (tokens are at most {MAX_PAGE_TOKEN_CHARS} characters)")
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            body, sig = raw[:-12], raw[-12:]
        except (ValueError, TypeError):
            raise InvalidPageToken("page token is malformed") from None
        if len(raw) <= 12 or not hmac.compare_digest(sig, hmac.new(self._key, body, hashlib.sha256).digest()[:12]):
            raise InvalidPageToken("page token was tampered with or issued by another server")
        d = json.loads(body)
        if not hmac.compare_digest(str(d["s"]), session_label(session)):   # a token is readable: never the id
            raise InvalidPageToken("page token belongs to another session")
        age = self._clock() - d.get("i", 0)
        if age > self.ttl:
            raise InvalidPageToken(f"page token expired: issued {span(age)} ago, tokens last "
                                   f"{span(self.ttl)}; repeat the query without a token")
        if d["t"] != tool:
            raise InvalidPageToken(f"page token was issued by {d['t']}, not {tool}: pass it back to {d['t']} "
                                   "with the same arguments, or drop it")
        if d["a"] != _digest(args):
            raise InvalidPageToken(f"page token was issued for a different {d['t']} call; repeat the "
                                   "same arguments or drop the token")
        if d["v"] != version:
            raise InvalidPageToken(_stale(d, version))
        return Offset(int(d["o"]), int(d.get("p", 0)), int(d.get("n", 0)))


MAX_NAMED_STORES = 32        # stores whose versions a token carries to name the one that moved (length bound)


class StoresVersion(int):
    """Several stores' combined version (``ShardSet.version``: a hash) that knows each store's
    (repo, version), so a stale page token can say which store published (a fleet probe: "issued at
    store version 115008268024779, now 279701134726215" named neither, on a server whose hooks
    re-index several repositories)."""

    parts: tuple[tuple[str, int], ...]

    def __new__(cls, value: int, parts: tuple[tuple[str, int], ...]) -> "StoresVersion":
        v = super().__new__(cls, value)
        v.parts = parts
        return v

    def __reduce__(self) -> tuple:      # copies and pickles keep the parts (``dataclasses.asdict`` deep-copies)
        return (StoresVersion, (int(self), self.parts))


def _stale(d: dict, version: int) -> str:
    """Why a token of another version is refused: the stores that published since, when it can tell."""
    was, parts = d.get("vs"), getattr(version, "parts", ())
    if isinstance(was, list) and parts and len(was) == len(parts):
        moved = [f"{repo!r} (version {old} -> {new})" for (repo, new), old in zip(parts, was) if old != new]
        if moved:
            return (f"page token is stale: store {', '.join(moved)} published a new version since it was "
                    "issued; repeat the query without a token")
    return (f"page token is stale: it was issued at store version {d['v']}, now {int(version)}; repeat the "
            "query without a token")


class Offset(int):
    """An offset into a tool's whole list that knows which page it starts (0: count it from the
    offset and the page size)."""

    page: int
    notes: int                      # the notes stamp the list was ranked with (``Memory.notes_stamp``)

    def __new__(cls, offset: int, page: int = 0, notes: int = 0) -> "Offset":
        o = super().__new__(cls, offset)
        o.page = page
        o.notes = notes
        return o


def span(seconds: float) -> str:
    """A time as a person reads it: ``90 s``, ``60 min``, ``2 h`` (page tokens, sessions)."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:g} h"


def _digest(args: dict) -> str:
    return hashlib.sha1(json.dumps(args, sort_keys=True, default=str).encode()).hexdigest()[:16]


def paged(total: int, offset: int, page_size: int, lower_bound: bool = False,
          returned: int | None = None) -> tuple[int, int]:
    """(page number, pages) for an offset; pages is 0 when only a lower bound on total is known.
    The page number is the offset's own (``Offset.page``) when it has one, else counted in pages of
    ``page_size``; with ``returned``, pages are this one and what remains after it, in pages of
    ``page_size`` (after a page cut by the budget, the offset is off that grid)."""
    size = max(page_size, 1)
    page = getattr(offset, "page", 0) or -(-offset // size) + 1
    if lower_bound:
        return page, 0
    if returned is not None:
        return page, page + -(-max(0, total - offset - returned) // size)
    return page, max(1, -(-total // size))


__all__ = ["span", "Budget", "Eviction", "Item", "Envelope", "Response", "PageTokens", "Offset", "StoresVersion", "PAGE_TOKEN_TTL",
           "paged"]
