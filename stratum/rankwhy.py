"""What ranking gives out, and the words of its ``why``: the ranked files and items
(``RankedFile``, ``Ranked``) and one (reason, short reason) pair per signal.

Why apart from ``stratum.rank``: the fusion there is arithmetic; these are the phrases an agent
reads ("co-changes with app.py (support 27)"), formatted only for the few items a page serves, and
the objects that format them when read. ``stratum.ranksymbols`` makes and edits items too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, cast

from stratum.notetext import terminal_safe

if TYPE_CHECKING:
    from stratum.rank import Hit, NoteInfo

TITLE_CHARS = 32            # of a note's title in a why (the note itself is a search away)
WHY_REASONS = 2             # reasons a served item gives for its file's lift, strongest first


# ---- outputs -----------------------------------------------------------------------------------
@dataclass(slots=True)
class RankedFile:
    path: str
    score: float
    text: float                                   # T(f)
    parts: dict[str, float] = field(default_factory=dict)   # weighted signal -> contribution
    # signal -> (function, args) making its (reason, short reason): formatted when read, as a
    # search ranks ~170 files and says why of ~10
    said: dict[str, tuple] = field(default_factory=dict)

    def _says(self) -> list[tuple[str, str]]:
        return [f(*a) for f, a in (self.said[p] for p in self.parts)]

    @property
    def reasons(self) -> list[str]:
        """One reason per signal, in the order they were added; "text" first when the file also
        has a text hit."""
        out = [r for r, _ in self._says()]
        return ["text", *out] if self.text and out else out

    @property
    def why(self) -> str:
        return "; ".join(self.reasons) or "text"

    @property
    def lift_why(self) -> str:
        """The WHY_REASONS strongest of its non-text reasons, strongest first (what a served item
        says of its file: every reason of a lifted file cost ~50 tokens an item, and a "+2 more"
        tail ~4 tokens on ~4 items of a page, naming nothing the agent could act on). An agent
        note that lifts the file is always one of them: it is what agents read a why for, and an rca
        note about two files, weaker here than this file's mined past and symbols, went unnamed on
        ``MultiPartParser.__init__`` while the other file's item named it (a probe)."""
        brief = [b for _, b in self._says()]
        top = sorted(zip(self.parts.values(), range(len(brief)), brief), reverse=True)
        if len(top) > WHY_REASONS and "notes" in self.parts:
            at = list(self.parts).index("notes")
            if all(i != at for _, i, _ in top[:WHY_REASONS]):
                top = sorted([*top[:WHY_REASONS - 1], next(t for t in top if t[1] == at)], reverse=True)
        return "; ".join(r for _, _, r in top[:WHY_REASONS])


class Ranked:
    """One search item in memory-steered order. ``why`` may be given as a function that makes it,
    called when it is first read: a search reranks ~150 candidates and serves ~10, and a lifted
    file's reasons cost a sort and a join each. ``rerank`` gives the file's ``RankedFile`` itself
    (no function object for each of ~80 lifted and added files a search): an added file says its
    file's ``lift_why``, its best item in the text list "text; " and the same."""
    __slots__ = ("id", "row", "score", "file", "added", "_why")

    def __init__(self, id: str, row: int, score: float, why: "str | Callable[[], str] | RankedFile",
                 file: str | None = None, added: bool = False):
        self.id, self.row, self.score, self.file = id, row, score, file
        self.added = added          # not in the text list: brought in by another memory
        self._why = why

    @property
    def why(self) -> str:
        w = self._why
        if not isinstance(w, str):
            if isinstance(w, RankedFile):     # short, no note titles: a note's words stay in the note
                w = w.lift_why if self.added else f"text; {w.lift_why}"
            else:
                w = w()
            self._why = w
        return w

    @why.setter
    def why(self, w: str) -> None:
        self._why = w

    def __repr__(self) -> str:
        return f"Ranked({self.id!r}, {self.row}, {self.score!r}, {self.why!r}, {self.file!r}, added={self.added})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ranked) and (self.id, self.row, self.score, self.why, self.file, self.added) == \
            (other.id, other.row, other.score, other.why, other.file, other.added)

    __hash__ = None     # type: ignore[assignment]  # mutable, compared by value like the dataclass it was


# ---- the words ----------------------------------------------------------------------------------

def symbol_reasons(n: int) -> tuple[str, str]:
    return f"{n} matching symbols", f"{n} symbols"


def note_reasons(label: "tuple[str, Hit, str]", n: int) -> tuple[str, str]:
    """A file's best note (its id, its hit, its standing's why: ``rank._rank_files`` labels a note by
    its hit, so ranking never reads the NoteInfo of a fresh note) and how many notes lift it."""
    nid, h, why = label
    note = cast("NoteInfo", h.note)     # a label's hit is a note's
    full = note_label(nid, note, why) + (f" +{n - 1} more" if n > 1 else "")
    if note.mined:      # mined history's short reason is a count: its ids cost ~5 tokens each on most items
        # of a page; `get` of the file shows its latest past fixes, `search --kind change --path F` its
        # changes. An agent note keeps its id, to open. (A standing's why is its best note's alone.)
        if n > 1:
            return full, f"{n} past {note.kind}{'es' if note.kind == 'fix' else 's'}"
        return full, f"a past {note.kind}" + (f" ({short_standing(note, why)})" if why else "")
    return full, note_label(nid, note, short_standing(note, why), title=False) + (f" +{n - 1}" if n > 1 else "")


_STALE = re.compile(r"stale: (.*) since this note was written \((\d{4}-\d{2}-\d{2})\)(: counted (x[\d.]+))?", re.S)


def short_standing(note: NoteInfo, why: str) -> str:
    """A stale note's standing in a served item's why, short: "stale: code changed since 2026-12-05,
    x0.5". The whole reason ("stale: src/werkzeug/serving.py::WSGIRequestHandler.log changed since
    this note was written (2026-12-05): counted x0.5", ~35 tokens) repeated the item's own
    path::qualname; the note's own item and ``get`` say it whole. Any other standing as it is."""
    m = _STALE.fullmatch(why) if note.stale else None
    if m is None:
        return why
    what = m.group(1)
    changed, gone = " changed" in what, " no longer exists" in what
    word = "changed or gone" if changed and gone else "gone" if gone else "changed"
    return f"stale: code {word} since {m.group(2)}" + (f", {m.group(4)}" if m.group(4) else "")


def file_text_reasons(j: int) -> tuple[str, str]:
    return f"whole file matches (rank {j})", "whole file matches"


def co_reasons(seed: str, support: int) -> tuple[str, str]:
    seed = terminal_safe(seed)      # a path within the one-line why (git allows a newline in a name)
    return f"co-changes with {seed} (support {support})", f"co-changes with {seed}"


def graph_reasons(seed: str, word: str) -> tuple[str, str]:
    seed = terminal_safe(seed)
    return f"{word} {seed}", f"{word} {seed}"


def note_label(nid: str, n: NoteInfo, note_why: str, title: bool = True) -> str:
    return (f"past {n.kind} {nid[:8]}" if n.mined else f"{n.kind} note {nid[:8]}") + \
        (f" '{n.title[:TITLE_CHARS]}'" if n.title and title else "") + (f" ({note_why})" if note_why else "")


__all__ = ["RankedFile", "Ranked", "WHY_REASONS", "symbol_reasons", "note_reasons", "file_text_reasons", "co_reasons",
           "graph_reasons", "note_label", "short_standing",
           "TITLE_CHARS"]
