"""A fix whose subject holds one very long word keeps its node: its text was cut back to the last
space, "Fix ...", judged contentless, and the fix lost with nothing said (a probe)."""

from __future__ import annotations

from pipeline.fixes import TEXT_CHARS, fix_text, has_content


def test_a_long_word_is_cut_inside_not_before_it():
    text = fix_text("Fix HeaderParseError:" + "x" * 700 + " in the multipart parser")
    assert text.startswith("Fix HeaderParseError:xxx") and text.endswith(" ...")
    assert len(text) <= TEXT_CHARS + 4 and has_content(text)
    words = fix_text("Fix the parser " + "word " * 200)               # ordinary text: cut at a space
    assert words.endswith("word ...") and len(words) <= TEXT_CHARS + 4
