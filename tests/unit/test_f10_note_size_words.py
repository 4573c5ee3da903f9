"""One wording for a note over its size: the client's check (``toolspec.check_size``, before a
request is built) and the note rules' (``notes.validate``) say the same, as the same type."""

from __future__ import annotations

import pytest

from stratum import notes as N
from stratum.errors import InvalidArgument, NoteRejected
from stratum.limits import MAX_SESSION_ID_CHARS
from stratum.toolspec import check_arg


@pytest.mark.parametrize("text", ["x" * 20_000, "é" * 9000, "a\ud800" * 6000])
def test_the_client_check_and_the_note_rules_refuse_alike(text):
    with pytest.raises(NoteRejected) as rules:
        N.validate("insight", text, ["a.py"], "me", resolve=lambda _a: None)
    with pytest.raises(NoteRejected) as client:
        check_arg("text", text, sending=True)
    assert str(client.value) == str(rules.value)


def test_text_within_the_limit_once_cleaned_passes():
    text = "ok " * 5000 + "\x00" * 2000           # 15,000 bytes stored, 17,000 given
    assert check_arg("text", text, sending=True) == text


def test_a_session_id_is_bounded_in_the_sessions_words():
    with pytest.raises(InvalidArgument, match=f"session id is {MAX_SESSION_ID_CHARS + 1} characters; the limit is"):
        check_arg("session", "s" * (MAX_SESSION_ID_CHARS + 1), sending=True)
    assert check_arg("session", "s" * MAX_SESSION_ID_CHARS) == "s" * MAX_SESSION_ID_CHARS
