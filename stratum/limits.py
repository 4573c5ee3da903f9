"""Request limits: the one place that says how large an argument may be, checked before use.

Every adapter and tool reads these; a value over a limit is an InvalidArgument whose message quotes
at most ``ECHO_CHARS`` of the input (a 500 KB id must not come back in an error header).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from stratum.errors import InvalidArgument

MAX_QUERY_CHARS = 2000        # search text (a paragraph; longer queries dilute BM25 and the vector)
MAX_TRACEBACK_CHARS = 32000   # a search query that is a pasted traceback (a whole pytest failure is often
                              # 3-10 KB): its frames are read, its text lists read ``tracebacks.condensed``
MAX_TARGET_CHARS = 1024       # a node id, path or path::Qualified.name
MAX_TARGETS = 64              # targets in one call (focus, about)
MAX_SESSION_ID_CHARS = 64     # server-issued ids are 32 hex characters
MAX_NAME_CHARS = 128          # author, model, identity names
MAX_PAGE_SIZE = 200
MAX_PAGE_TOKEN_CHARS = 1024
MAX_DEPTH = 2**31 - 1         # tree depth: the wire's field is an int32 (proto/stratum/v1/stratum.proto)
MAX_BUDGET = 2**63 - 1        # a token budget (a session's, a prefetch's): the wire's field is an int64
ECHO_CHARS = 80               # how much of a bad value an error message may repeat


def echo(value: object) -> str:
    """A short, printable prefix of a value for an error message. A character that cannot be shown is
    spelled out as everywhere else (``notetext.terminal_safe``, git, the history): a byte that is not
    UTF-8 (a lone surrogate, as Python hands such a byte over) as that byte, ``caf\\xe9``, another
    as Python spells it (``\\x1b``, ``\\u202e``, ``\\ud800``). Each was ``?``: ``caf\\xe9`` and
    ``caf\\xe8`` read alike, and neither as the name the user typed. Quoted (``{echo(v)!r}``, as most
    messages quote it) it reads as Python quotes a string: a real backslash doubled, the spelled
    byte not (``'caf\\xe9'``, never ``'caf\\\\xe9'``)."""
    s = str(value)
    cut = "..." if len(s) > ECHO_CHARS else ""
    return _Echo(_spelled(s[:ECHO_CHARS]) + cut, _quoted(s[:ECHO_CHARS], cut))


class _Echo(str):
    """A spelled value whose ``repr`` is its quoted spelling (``echo``): the text is already
    printable, and repr's escaping would double the backslash of each spelled character."""

    _quoted: str

    def __new__(cls, text: str, quoted: str | None = None) -> "_Echo":
        self = super().__new__(cls, text)
        self._quoted = quoted if quoted is not None else str.__repr__(text)
        return self

    def __repr__(self) -> str:
        return self._quoted


def _spell(ch: str) -> str:
    o = ord(ch)
    if 0xDC80 <= o <= 0xDCFF:           # a byte that was not UTF-8 (surrogateescape), as git spells it
        return f"\\x{o - 0xDC00:02x}"
    return str.__repr__(ch)[1:-1]       # \x1b, \n, \u202e, \ud800: as Python spells it


def _spelled(s: str) -> str:
    return s if s.isprintable() else "".join(ch if ch.isprintable() else _spell(ch) for ch in s)


def _quoted(s: str, cut: str) -> str:
    """``s`` (+ ``cut``) quoted as ``repr`` quotes a string, unprintable characters spelled by ``_spell``."""
    q = '"' if "'" in s and '"' not in s else "'"
    body = "".join("\\" + ch if ch in ("\\", q) else ch if ch.isprintable() else _spell(ch) for ch in s)
    return q + body + cut + q


def query_too_long(sent: int, limit: int = MAX_QUERY_CHARS) -> InvalidArgument:
    """The refusal of a search query of ``sent`` characters, naming both limits: the prose one
    (``limit``) and a pasted traceback's; one wording for the tool's bound and the paste's reading."""
    return InvalidArgument(f"query is {sent} characters; the limit is {limit} "
                           f"(a pasted traceback may be up to {MAX_TRACEBACK_CHARS})")


def typed(value: object) -> str:
    """A value of the wrong type as a refusal names it: its start and its type (``0 (int)``), JSON's
    ``null`` for None (what an MCP client sent)."""
    return "null" if value is None else f"{echo(repr(value))} ({type(value).__name__})"


def check_len(what: str, value: str | None, limit: int) -> str:
    """``value`` (None: left out, so empty) when it is text of at most ``limit`` characters;
    InvalidArgument otherwise. Any other type is refused by name: 0, false, [] and {} were read as
    "" (``value or ""``), so `search` with path_prefix 0 searched everything (a probe)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidArgument(f"{what} must be text, got {typed(value)}")
    if len(value) > limit:
        raise InvalidArgument(f"{what} is {len(value)} characters; the limit is {limit} ({echo(value)!r})")
    return value


def check_range(what: str, value: object, least: int | None, most: int | None) -> None:
    """A whole number (a bool is not one) from ``least`` to ``most`` (None: unbounded on that side).
    Another type is told so, not given the range (1.5 was "must be at least 0, got 1.5")."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{what} must be a whole number, got {echo(repr(value))} ({type(value).__name__})")
    if (least is not None and value < least) or (most is not None and value > most):
        said = (f"between {least} and {most}" if least is not None and most is not None
                else f"at least {least}" if least is not None else f"at most {most}")
        raise InvalidArgument(f"{what} must be {said}, got {echo(value)}")


def check_page(page_size: int) -> None:
    check_range("page_size", page_size, 1, MAX_PAGE_SIZE)


def check_list(what: str, values: Any, max_chars: int, max_items: int = MAX_TARGETS) -> list[str]:
    """A list argument: at most ``max_items`` strings of at most ``max_chars`` each (a number or a
    mapping given for it was a TypeError, or read as its keys: a review)."""
    if isinstance(values, str):
        raise InvalidArgument(f"{what} must be a list of strings, not one string")
    if values is not None and (isinstance(values, (Mapping, bytes)) or not isinstance(values, Iterable)):
        raise InvalidArgument(f"{what} must be a list of strings")      # a wire's repeated field is one
    values = list(values or ())
    if len(values) > max_items:
        raise InvalidArgument(f"{what} has {len(values)} entries; the limit is {max_items}")
    out = []
    for i, v in enumerate(values):
        if not isinstance(v, str):      # a null entry is no argument left out: about [null] was the whole repository
            raise InvalidArgument(f"{what}[{i}] must be text, got {typed(v)}")
        out.append(check_len(what, v, max_chars))
    return out


def plain_name(what: str, value: str) -> str:
    """A name shown beside every note it signs: no control or format characters (a newline forged
    a provenance line; U+202E reversed the trust marker after it; zero-width ones hid), and no lone
    surrogate (a byte that is not UTF-8, as Python hands it over): no store or wire can hold one, and
    a name is matched exactly, so it is refused rather than replaced."""
    from stratum.notetext import INVISIBLE, LONE_SURROGATE, check_utf8     # it imports this module

    if LONE_SURROGATE.search(value):    # in the words every other name's refusal uses (the tools' and the gRPC client's)
        check_utf8(what, value, InvalidArgument)
    if INVISIBLE.search(value):         # note text's set: Cc, Cf, Zl, Zp and the invisible letters
        raise InvalidArgument(f"{what} {echo(value)!r} has control or invisible characters")
    refuse_reserved(what, value)
    return value


# Names our own writers sign with: the local OS user's (``os:<login>``, ``identity.os_user``; the
# ASCII spelling is the OS user's own, checked against the caller by ``Tools._open``) and mined
# history's (``history``, a mined note's author). Any other spelling that reads as one is refused.
RESERVED_PREFIXES = ("os:",)
RESERVED_NAMES = frozenset({"history"})
# letters of other scripts drawn like Latin ones (Cyrillic, Greek; lower case: matched after
# casefold), and colons NFKC leaves alone: a small table, not Unicode's whole confusables list
_LOOKALIKE = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j", "к": "k", "м": "m",
    "н": "h", "о": "o", "р": "p", "с": "c", "ѕ": "s", "т": "t", "у": "y", "х": "x", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "ӏ": "l",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "μ": "u", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ϲ": "c", "ϳ": "j", "ı": "i", "ɑ": "a", "ɡ": "g",
    "∶": ":", "ː": ":", "˸": ":", "։": ":", "꞉": ":", "׃": ":", "⁚": ":",
})


def name_key(value: str) -> str:
    """``value`` as a reader sees it: NFKC (fullwidth ``ｏｓ`` is ``os``), casefolded (``OS``), look-alike
    letters and colons folded to the Latin ones (``_LOOKALIKE``: Cyrillic ``о`` is ``o``)."""
    import unicodedata

    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold().translate(_LOOKALIKE))


def refuse_reserved(what: str, value: str) -> None:
    """InvalidArgument when ``value`` is, or reads as, a name our own writers sign with: ``history``
    in any spelling, or a spelling of the ``os:`` prefix other than the ASCII one (``OS:root``,
    Cyrillic ``оs:root``, fullwidth ``ｏｓ:root`` were accepted as claimed authors: a probe). A
    look-alike's letters are spelled in the refusal: ``'оs:root'`` reads as the ASCII name."""
    key = name_key(value)
    lookalike = [p for p in RESERVED_PREFIXES if key.startswith(p) and not value.startswith(p)]
    if key not in RESERVED_NAMES and not lookalike:
        return
    shown = f"{what} {echo(value)!r}"
    if not value.isascii():
        shown += f" (spelled {echo(value.encode('ascii', 'backslashreplace').decode())})"
    if key in RESERVED_NAMES:
        raise InvalidArgument(f"{shown} is reserved: {key!r} names mined history's notes; pick another name")
    raise InvalidArgument(f"{shown} reads as {lookalike[0]!r}, the prefix of the local OS user's names "
                          f"({lookalike[0]}<login>: the CLI's, and MCP's over stdio); pick another name")


def check_kinds(what: str, values: Any, allowed: tuple[str, ...]) -> list[str]:
    values = check_list(what + "s", values, MAX_NAME_CHARS)
    bad = [echo(k) for k in values if k not in allowed]
    if bad:
        raise InvalidArgument(f"unknown {what}(s) {bad}; choose from {list(allowed)}")
    return values


__all__ = ["query_too_long", "MAX_QUERY_CHARS", "MAX_TRACEBACK_CHARS", "MAX_TARGET_CHARS", "MAX_TARGETS", "MAX_SESSION_ID_CHARS",
           "MAX_NAME_CHARS",
           "MAX_PAGE_SIZE", "MAX_PAGE_TOKEN_CHARS", "MAX_DEPTH", "MAX_BUDGET", "ECHO_CHARS", "echo", "typed", "check_len",
           "check_range", "check_page", "check_list",
           "check_kinds", "plain_name", "name_key", "refuse_reserved", "RESERVED_PREFIXES", "RESERVED_NAMES"]
