"""The words of a ranked file's ``why``: one (reason, short reason) pair per signal.

Why apart from ``stratum.rank``: the fusion there is arithmetic; these are the phrases an agent
reads ("co-changes with app.py (support 27)"), formatted only for the few items a page serves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stratum.rank import NoteInfo

TITLE_CHARS = 32            # of a note's title in a why (the note itself is a search away)


def symbol_reasons(n: int) -> tuple[str, str]:
    return f"{n} matching symbols", f"{n} symbols"


def note_reasons(label: "tuple[str, NoteInfo, str]", n: int) -> tuple[str, str]:
    """A file's best note (``note_label``'s arguments) and how many notes lift it."""
    return note_label(*label) + (f" +{n - 1} more" if n > 1 else ""), \
        note_label(*label, title=False) + (f" +{n - 1}" if n > 1 else "")


def file_text_reasons(j: int) -> tuple[str, str]:
    return f"whole file matches (rank {j})", "whole file matches"


def co_reasons(seed: str, support: int) -> tuple[str, str]:
    return f"co-changes with {seed} (support {support})", f"co-changes with {seed}"


def graph_reasons(seed: str, word: str) -> tuple[str, str]:
    return f"{word} {seed}", f"{word} {seed}"


def note_label(nid: str, n: NoteInfo, note_why: str, title: bool = True) -> str:
    return (f"past {n.kind} {nid[:8]}" if n.mined else f"{n.kind} note {nid[:8]}") + \
        (f" '{n.title[:TITLE_CHARS]}'" if n.title and title else "") + (f" ({note_why})" if note_why else "")


__all__ = ["symbol_reasons", "note_reasons", "file_text_reasons", "co_reasons", "graph_reasons", "note_label",
           "TITLE_CHARS"]
