"""One set of invisible characters: what a name refuses, note text drops and the CLI spells out
(``notetext.INVISIBLE``). Note text kept U+180E, U+00AD, the Hangul fillers and more that names
refused (a probe)."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from stratum import notes as N
from stratum.errors import NoteRejected
from stratum.notetext import INVISIBLE, clean_text, not_plain, terminal_safe

# the probe's list: each was kept in note text
PROBED = ["\u00ad", "\u180e", *map(chr, range(0x206A, 0x2070)), "\ufff9", "\ufffa", "\ufffb",
          *map(chr, range(0x1D173, 0x1D17B)), "\u3164", "\u115f", "\u1160", "\uffa0"]


@pytest.mark.parametrize("ch", PROBED, ids=lambda c: f"U+{ord(c):04X}")
def test_text_drops_and_the_cli_spells_out_what_names_refuse(ch):
    assert not_plain(f"a{ch}b")
    assert clean_text(f"a{ch}b") == "ab"
    shown = terminal_safe(f"a{ch}b")        # spelled as Python does (\xad, \u180e, \U0001d173)
    assert ch not in shown and shown.startswith("a\\") and shown.endswith("b") and int(shown[3:-1], 16) == ord(ch)


def test_every_control_format_and_separator_character_is_in_the_set():
    missing = [f"U+{cp:04X}" for cp in range(sys.maxunicode + 1)
               if unicodedata.category(chr(cp)) in ("Cc", "Cf", "Zl", "Zp") and not INVISIBLE.match(chr(cp))]
    assert not missing


def test_what_stays():
    text = "caf\u00e9 \u26a0\ufe0f ok\n\tindented \u4e2d\u6587 \u0645\u0631\u062d\u0628\u0627"
    assert clean_text(text) == text and terminal_safe(text, lines=True) == text


def test_a_note_tag_or_author_with_a_hangul_filler_is_refused_and_its_text_cleaned():
    resolve = lambda t: N.Resolved("id1", "h", "a.py") if t == "a.py" else None     # noqa: E731
    with pytest.raises(NoteRejected, match="bad tag"):
        N.validate("insight", "x", ["a.py"], "bob", resolve=resolve, tags=["mon\u3164ey"])
    with pytest.raises(NoteRejected, match="author"):
        N.validate("insight", "x", ["a.py"], "\u3164", resolve=resolve)
    with pytest.raises(NoteRejected, match="empty"):
        N.validate("insight", "\u3164\u180e\u00ad", ["a.py"], "bob", resolve=resolve)
