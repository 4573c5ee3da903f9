"""Note text as safe data, and the names around it: what is stripped from text an agent wrote (escape
sequences, control and invisible characters, bidi overrides), a byte that is not UTF-8 (a lone
surrogate) read as U+FFFD in text and refused in a name. Apart from ``stratum.notes`` so the delta
log, which reads such records, takes the one definition of a lone surrogate from here. The same
characters are spelled out, not removed, wherever the CLI prints the repository's own data (file
names, docstrings: ``terminal_safe``), so one definition says what may reach a terminal.
"""

from __future__ import annotations

import re

from stratum.errors import NoteRejected, StratumError
from stratum.limits import echo

# A lone surrogate (U+D800-U+DFFF) is no character: Python hands a command-line byte that is not
# UTF-8 over as one (surrogateescape: caf\xe9 -> "caf\udce9"), JSON may spell one ("\ud800"), and
# no UTF-8 writer (Arrow, protobuf, an MCP answer) can take it.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def not_plain(s: str) -> bool:
    """Whether a name or tag holds a character a session's author or model may not hold: one of
    ``INVISIBLE`` (control, format and separator characters, and the invisible letters: a newline
    forged a provenance line, U+202E reversed what followed it, a zero-width one made two tags look
    one). Tags took Cc only, so ``mo\u200bney`` was stored beside ``money`` (a probe). A lone
    surrogate is left to ``check_utf8``, whose words say what to do about it."""
    return INVISIBLE.search(LONE_SURROGATE.sub("\ufffd", s)) is not None


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


# The characters a name refuses (``not_plain``) and note text drops (``clean_text``, newline and tab
# kept) or the CLI spells out (``terminal_safe``): one set. Every control, format (Cf) and line or
# paragraph separator character of Unicode 15 (``unicodedata`` category Cc, Cf, Zl, Zp: zero-width
# ones, word joiners, bidi overrides and isolates (CVE-2021-42574), the soft hyphen, the Mongolian
# vowel separator, the deprecated format characters U+206A-206F, the interlinear annotation marks,
# the musical formatting marks, the BOM, the TAG block), and the letters and marks that draw nothing
# (default-ignorable: the Hangul fillers U+115F, U+1160, U+3164, U+FFA0 that pass for a blank name,
# the combining grapheme joiner, the Khmer inherent vowels, and the whole U+E0000 plane's first block:
# tags, the variation selectors 17-256 that smuggle bytes, the unassigned rest). Note text kept these
# while names refused the Cf ones (a probe: ``clean_text("a\u180eb")``). Left alone: the variation
# selectors U+FE00-FE0F (an emoji's VS16) and the Mongolian ones, which scripts need.
# ``tests/unit/test_s23_trust_invisible.py`` checks every Cc/Cf/Zl/Zp character is here.
INVISIBLE_RANGES = (
    (0x0000, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD), (0x034F, 0x034F), (0x0600, 0x0605),
    (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2),
    (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180E, 0x180E), (0x200B, 0x200F), (0x2028, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFFB),
    (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)


def _char_class(ranges, keep: str = "") -> str:
    """A regex character class of ``ranges`` without the characters of ``keep``."""
    out = []
    for a, b in ranges:
        for lo, hi in _split(a, b, sorted(map(ord, keep))):
            out.append(f"\\U{lo:08x}" + (f"-\\U{hi:08x}" if hi > lo else ""))
    return "[" + "".join(out) + "]"


def _split(a: int, b: int, holes: list[int]) -> list[tuple[int, int]]:
    parts, lo = [], a
    for h in holes:
        if lo <= h <= b:
            if h > lo:
                parts.append((lo, h - 1))
            lo = h + 1
    return parts + ([(lo, b)] if lo <= b else [])


INVISIBLE = re.compile(_char_class(INVISIBLE_RANGES))
# Terminal escape sequences (CSI "ESC [ ... final", OSC "ESC ] ... BEL|ESC \\", two-byte "ESC x"),
# removed whole from text; then every other character of the set but newline and tab
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
_UNSAFE = re.compile(_char_class(INVISIBLE_RANGES, keep="\n\t"))
_DIRTY = re.compile(_UNSAFE.pattern[:-1] + "\ud800-\udfff]")     # unsafe or a lone surrogate: one scan
# A first look that is as fast as one class of BMP ranges (the set's astral ranges are tested one by
# one for each character: 2.3x slower on clean text): ASCII text (most notes, names and paths) by its
# control characters; other text by the set's BMP part, a lone surrogate, or any astral character,
# which the exact pattern then judges
_ASCII_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_MAYBE = re.compile(_char_class([r for r in INVISIBLE_RANGES if r[1] <= 0xFFFF], keep="\n\t")[:-1]
                    + "\ud800-\udfff\U00010000-\U0010ffff]")


def clean_text(s: str) -> str:
    """Note text as safe data: escape sequences and the characters names refuse (``INVISIBLE``:
    NUL, ESC, CR, DEL, C1, bidi overrides, zero-width and other invisible ones) removed, newlines
    and tabs kept, and each lone surrogate (a byte that was not
    UTF-8) replaced by U+FFFD. Text is prose: a pasted log line saying ``caf\\xe9`` loses one
    character, not the whole finding (as git's non-UTF-8 messages are read, ``pipeline.history``).
    Applied at write and again at display (for notes written before this rule; the log reads a
    lone surrogate as U+FFFD too); text that is already clean is returned as is (one regex scan)."""
    if not s or not (_ASCII_UNSAFE if s.isascii() else _MAYBE).search(s):
        return s or ""
    s = LONE_SURROGATE.sub("\ufffd", s)
    if not _UNSAFE.search(s):
        return s
    s = s.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    return _UNSAFE.sub("", _ESCAPES.sub("", s))


# one-line text spells out newline and tab too
_DIRTY_LINE = re.compile(_DIRTY.pattern[:-1] + "\n\t]")
_ASCII_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f]")
_MAYBE_LINE = re.compile(_MAYBE.pattern[:-1] + "\n\t]")


def _spelled(m: re.Match) -> str:
    o = ord(m.group())
    if 0xDC80 <= o <= 0xDCFF:           # a byte that was not UTF-8 (surrogateescape), as git spells it
        return f"\\x{o - 0xDC00:02x}"
    said = repr(m.group())[1:-1]        # \x1b, \n, \u202e, \U000e0041: as Python spells it
    if said != m.group():
        return said
    return f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}"     # one Python prints (a Hangul filler: a letter)


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
    if not s:
        return s or ""
    first = (_ASCII_UNSAFE if lines else _ASCII_UNSAFE_LINE) if s.isascii() else (_MAYBE if lines else _MAYBE_LINE)
    if not first.search(s):
        return s
    pat = _DIRTY if lines else _DIRTY_LINE
    if lines:
        s = s.replace("\r\n", "\n")
    return pat.sub(_spelled, s)


__all__ = ["LONE_SURROGATE", "INVISIBLE", "INVISIBLE_RANGES", "not_plain", "check_utf8", "clean_text", "terminal_safe"]
