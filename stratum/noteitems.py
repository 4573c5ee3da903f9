"""A note's item as answers carry it (``NotesOverlay.item``, ``annotate``, ``rejudge``): provenance,
trust, status, what it says of its code (stale, pending), and nothing of its text when the reader
may not see it (quarantine). Judged from the overlay's current fold and the code its version serves,
and kept per note while the note's state holds.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Callable

from stratum import notes as N
from stratum import schema as S
from stratum import tokens
from stratum.envelope import Item
from stratum.errors import NotFound
from stratum.notetrust import author_words

if TYPE_CHECKING:
    from stratum.overlay import NotesOverlay


class NoteItems:
    """The items of one overlay's notes."""

    def __init__(self, ov: "NotesOverlay"):
        self.ov = ov
        self._kept: dict[str, tuple] = {}           # note id -> (note, state, what annotate adds)

    def item(self, node: dict, level: str) -> Item:
        if node is None:
            raise NotFound("no such note (or it awaits confirmation)")
        text = node[level] if level != "summary" else node["summary"]
        it = Item(id=node["id"], kind=node["kind"], path=node["path"] or "", name=node["name"] or "",
                  level=level, text=text, tokens=int(node[f"{level}_tokens"] or 0))
        self.annotate(it, node)
        return it

    def annotate(self, it: Item, rec: dict) -> None:
        """Provenance, trust, status and staleness of a note item (merged or not), from the current
        fold and the served code; the text cleaned for display (notes written before the rule)."""
        it.text = N.clean_text(it.text)
        it.name = N.clean_text(it.name)
        if rec.get("kind") in S.MINED_NOTE_KINDS:
            meta = json.loads(rec.get("meta") or "{}")
            it.trust = "mined"
            # the commit it was mined from, when that commit was made, by "history" (docs/notes.md);
            # it said no author, the index's commit and a space-separated time (a probe). Its header,
            # naming the commit and its author, is the index's (``notenodes.mined_by``)
            when = rec.get("created_at")
            by, sha = mined_from(meta)
            it.provenance = {"source": "mined", "author": str(rec.get("author") or "history"), "authenticated": False,
                             "model": "", "session": "", "commit": sha, "commit_author": by,
                             "written_at": str(meta.get("time") or (when.isoformat() if isinstance(when, datetime)
                                                                  else when or ""))}
            return
        ov = self.ov
        note = ov.notes.get(rec["id"])
        if note is None:
            return
        state = (not ov.visible(note.id), note.id in ov.quarantined, note.status, ov.in_version(rec["id"]),
                 len(note.confirmations))      # a fold may confirm or supersede a note in place
        got = self._kept.get(note.id)
        if got is None or got[0] is not note or got[1] != state:
            got = self._kept[note.id] = (note, state, self._annotation(note, *state[:4]))
        provenance, trust, meta, text, warnings, of_code = got[2]
        it.provenance = {k: list(v) if isinstance(v, list) else v for k, v in provenance.items()}   # an item's own
        it.trust = trust
        it.meta.update(meta)
        if text is not None:        # hidden: nothing of its text, not its first line as name nor its length
            it.text, it.name, it.tokens = text, f"{note.kind} note awaiting confirmation", tokens.count_cached(text)
        elif note.session and ov.in_version(rec["id"]) and rec.get("session") not in (None, "", note.session):
            it.text = _relabel(it.text, str(rec["session"]), note.session)     # a version merged before labels
        it.warnings.extend(warnings + of_code)

    def rejudge(self, it: Item, judge: Callable[[N.Note], list[str]]) -> None:
        """A note item ``annotate`` made, with what it says of the note's code (stale, pending)
        judged by ``judge`` instead: the code a branch session sees (``memory.BranchCode``), not
        the served version's (a probe: the note just written on a branch was said stale there)."""
        note = self.ov.notes.get(it.id)
        got = self._kept.get(it.id)
        if note is None or got is None or got[1][0]:
            return                  # no agent note, or hidden: nothing was said of its code
        said = set(got[2][5])
        it.warnings[:] = [w for w in it.warnings if w not in said] + judge(note)

    def _annotation(self, note: N.Note, hidden: bool, quarantined: bool, status: str, merged: bool) -> tuple:
        """What ``annotate`` puts on a note's item: (provenance, trust, meta, text or None, warnings,
        what it says of the note's code: stale, pending). Kept per note while its state holds (~30
        us a note item: staleness looks up every target, provenance and timestamps are formatted);
        the code served is fixed per overlay (a branch session's: ``rejudge``)."""
        meta = {"author": note.author, "created_at": note.created_at.isoformat(), "status": status,
                "merged": str(merged).lower()}
        out = (N.provenance(note), N.trust_of(note, note.kind, quarantined=quarantined), meta)
        if hidden:
            return out + (f"{note.kind} note by {author_words(note.author)}: awaiting confirmation (quarantine)",
                          ("this note awaits confirmation by another identity or a maintainer",), ())
        warnings = []
        if quarantined:
            warnings.append("only you see this note until another identity or a maintainer confirms it")
        if status != N.ACTIVE:
            warnings.append(f"this note is {status}")
        warnings += N.retracted_before(note, self.ov.notes) if note.supersedes else []
        return out + (None, tuple(warnings), tuple(self.ov.judge.warnings(note)))


def mined_from(meta: dict | str | None) -> tuple[str, str]:
    """(the commit's author, the commit) a mined node (``pipeline.fixes``) was mined from, read from
    its META ("" each when the index recorded none): what its item's provenance says and the line an
    item's attached note says (``render.note_line``), which said "by history, mined" where the header
    (``notenodes.mined_by``) said "by Ada (mined from commit ...)" (a probe)."""
    got = json.loads(meta or "{}") if not isinstance(meta, dict) else meta
    return N.clean_text(str(got.get("commit_author") or "")), str(got.get("sha") or got.get("commit") or "")


def _relabel(text: str, session: str, label: str) -> str:
    """A merged note's level text with its header's session id (``session``, the row's stored
    column) replaced by the session's ``label``: a version merged before labels
    (``notes.session_label``) stored the id itself, which let any agent use the writer's session.
    The next index rewrites the header and the column; the item keeps the stored token count until
    then (a few tokens more than the text holds: never an under-count)."""
    said = f", session {session}, "
    return text.replace(said, f", session {label}, ", 1) if said in text else text


__all__ = ["NoteItems", "mined_from"]
