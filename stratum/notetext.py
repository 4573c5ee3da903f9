"""Note text as safe data, and the names around it: what is stripped from text an agent wrote (escape
sequences, control and invisible characters, bidi overrides), a byte that is not UTF-8 (a lone
surrogate) read as U+FFFD in text and refused in a name. Apart from ``stratum.notes`` so the delta
log, which reads such records, takes the one definition of a lone surrogate from here. The same
characters are spelled out, not removed, wherever the CLI prints the repository's own data (file
names, docstrings: ``terminal_safe``), so one definition says what may reach a terminal.
"""

from __future__ import annotations

import re

from stratum.errors import InvalidArgument, NoteRejected, StratumError
from stratum.limits import echo, plain_name

# A lone surrogate (U+D800-U+DFFF) is no character: Python hands a command-line byte that is not
# UTF-8 over as one (surrogateescape: caf\xe9 -> "caf\udce9"), JSON may spell one ("\ud800"), and
# no UTF-8 writer (Arrow, protobuf, an MCP answer) can take it.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def not_plain(s: str) -> bool:
    """Whether a name or tag holds a character a session's author or model may not hold: the one
    rule, ``limits.plain_name`` (control, format and separator characters: a newline forged a
    provenance line, U+202E reversed what followed it, a zero-width one made two tags look one).
    Tags took Cc only, so ``mo\u200bney`` was stored beside ``money`` (a probe). A lone surrogate
    is left to ``check_utf8``, whose words say what to do about it."""
    try:
        plain_name("name", LONE_SURROGATE.sub("\ufffd", s))
    except InvalidArgument:
        return True
    return False


def check_utf8(what: str, value: str, error: type[StratumError] = NoteRejected) -> None:
    """Refuse a lone surrogate in an identifier (author, session, tag, target, note id). Unlike text,
    these are matched exactly (who may retract or supersede, trust, quarantine, tag filters, the
    target resolved): replacing the byte would silently make the writer someone else, and two
    names one (``bob\\xe9`` and ``bob\\xe8`` both ``bob\\ufffd``); the writer can fix the encoding.
    ``error``: what is raised (a note's fields: NoteRejected; the gRPC client's other arguments:
    InvalidArgument, ``serving.client``)."""
    m = LONE_SURROGATE.search(value)
    if m:
        raise error(f"{what} {echo(value)!r} holds a byte that is not valid UTF-8 (the lone surrogate "
                    f"U+{ord(m.group()):04X}); it is matched exactly, so give it as UTF-8 text")


# Terminal escape sequences (CSI "ESC [ ... final", OSC "ESC ] ... BEL|ESC \\", two-byte "ESC x"),
# then any other control character except newline and tab, and the bidirectional overrides that
# make text read differently from what it is (CVE-2021-42574).
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
# also invisible ones that hide or fake text: zero-width, word joiners, line/paragraph separators,
# the BOM and the Unicode TAG block (ASCII hidden in plain sight)
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064"
                     "\u2066-\u2069\ufeff\U000e0000-\U000e007f]")
_DIRTY = re.compile(_UNSAFE.pattern[:-1] + "\ud800-\udfff]")     # unsafe or a lone surrogate: one scan


def clean_text(s: str) -> str:
    """Note text as safe data: escape sequences and control characters (NUL, ESC, CR, DEL, C1,
    bidi overrides) removed, newlines and tabs kept, and each lone surrogate (a byte that was not
    UTF-8) replaced by U+FFFD. Text is prose: a pasted log line saying ``caf\\xe9`` loses one
    character, not the whole finding (as git's non-UTF-8 messages are read, ``pipeline.history``).
    Applied at write and again at display (for notes written before this rule; the log reads a
    lone surrogate as U+FFFD too); text that is already clean is returned as is (one regex scan)."""
    if not s or not _DIRTY.search(s):
        return s or ""
    s = LONE_SURROGATE.sub("\ufffd", s)
    if not _UNSAFE.search(s):
        return s
    s = s.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    return _UNSAFE.sub("", _ESCAPES.sub("", s))


# one-line text spells out newline and tab too
_DIRTY_LINE = re.compile(_DIRTY.pattern[:-1] + "\n\t]")


def _spelled(m: re.Match) -> str:
    o = ord(m.group())
    if 0xDC80 <= o <= 0xDCFF:           # a byte that was not UTF-8 (surrogateescape), as git spells it
        return f"\\x{o - 0xDC00:02x}"
    return repr(m.group())[1:-1]        # \x1b, \n, \u202e, \U000e0041: as Python spells it


def terminal_safe(s: str, *, lines: bool = False) -> str:
    """``s`` as the CLI prints it: each character clean_text would remove (ESC, CSI, BEL, CR, C1,
    bidi overrides, zero-width and TAG characters) and each lone surrogate spelled out visibly
    (``\\x1b``, ``\\u202e``, ``\\xe9``) instead of reaching the terminal, so a file name or a
    docstring can neither drive the terminal nor read as another name; newline and tab too unless
    ``lines`` (a path or a one-line field must stay one line: a newline in it forged an output line),
    where a CRLF line end is read as a newline (a CRLF source file) and a lone CR, which returns to
    the line's start to overwrite it, is spelled out. Made visible rather than removed: two names
    differing only in a hidden character stay apart (--json keeps the exact value). Text already
    safe is returned as is (one regex scan)."""
    pat = _DIRTY if lines else _DIRTY_LINE
    if not s or not pat.search(s):
        return s or ""
    if lines:
        s = s.replace("\r\n", "\n")
    return pat.sub(_spelled, s)


__all__ = ["LONE_SURROGATE", "not_plain", "check_utf8", "clean_text", "terminal_safe"]
