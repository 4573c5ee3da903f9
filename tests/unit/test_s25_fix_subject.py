"""A mined commit's subject is git's: its first paragraph on one line (a probe: a subject wrapped
over two lines kept its first line alone, "fix: tax rate was wrong", and the mined note's title with
it, where `git log --format=%s` says "fix: tax rate was wrong for EU customers only (do not revert)")."""

from __future__ import annotations

from datetime import datetime, timezone

from pipeline.fixes import fix_text
from stratum.notes import Note


def test_a_wrapped_subject_is_one_line_and_the_body_follows():
    msg = "fix: tax rate was wrong\nfor EU customers only (do not revert)\n\nLonger body here.\n\nSigned-off-by: a <a@b>\n"
    assert fix_text(msg) == "fix: tax rate was wrong for EU customers only (do not revert)\nLonger body here."
    assert fix_text("Fix x\n\nbody") == "Fix x\nbody"


def test_a_mined_notes_title_is_that_subject_and_an_agents_joins_its_lines():
    when = datetime(2026, 1, 1, tzinfo=timezone.utc)
    text = fix_text("fix: tax rate was wrong\nfor EU customers only\n\nbody line")
    mined = Note(id="n1", record_uid="", kind="fix", text=text, about=[], author="history", session=None,
                 tags=["mined"], created_at=when)
    assert mined.title(160) == "fix: tax rate was wrong for EU customers only"
    agent = Note(id="n2", record_uid="u", kind="failure", text="Tried X.\nDo NOT retry: fix Y.", about=[],
                 author="agent", session=None, tags=[], created_at=when)
    assert agent.title(120) == "Tried X. / Do NOT retry: fix Y."
    assert agent.title(12) == "Tried X. / \u2026"
