"""Who may change whose note, and how far a note is trusted: authorship, confirmations,
quarantine, the trust marker and provenance an answer carries. Part of the notes model
(``stratum.notes`` re-exports every name); pure."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Mapping

from stratum.errors import PermissionDenied
from stratum.schema import MINED_NOTE_KINDS

if TYPE_CHECKING:
    from stratum.notes import Note


def check_may_change(note: "Note", actor: str, *, maintainer: bool, action: str,
                     authenticated: bool | None = None) -> None:
    """Superseding or retracting hides a note: only its author or a maintainer may. The author is
    the same identity only when proven the same way (``authenticated``, None: not compared): a
    claimed "alice" on an open server is not the authenticated alice, nor the owner's maintainer notes."""
    same = note.author == actor and (authenticated is None or
                                     (note.authenticated == authenticated and (authenticated or not note.maintainer)))
    if not same and not maintainer:
        raise PermissionDenied(f"{actor[:64]} may not {action} note {note.id}, written by {note.author[:64]}: "
                               "only its author or a maintainer may")


def retracted_before(note: "Note", notes: Mapping[str, "Note"]) -> list[str]:
    """Warnings for the notes ``note`` supersedes that were already retracted when it was written:
    superseding them changed nothing (a retracted note does not rank whatever supersedes it).
    Record ids are time-ordered, so "before" is the retract record's id below the note's."""
    out = []
    for old in note.supersedes:
        r = notes[old].retraction if old in notes else None
        if r is not None and str(r.get("uid") or "") < note.record_uid:
            out.append(f"it supersedes {old}, which was already retracted: superseding it changed nothing "
                       "(a retracted note does not rank)")
    return out


def valid_confirmations(note: "Note") -> list[dict]:
    """Confirmations that count: by a maintainer, or by another identity that was proven (an
    anonymous caller's, recorded while quarantine was off, does not count once it is on)."""
    return [c for c in note.confirmations
            if c.get("maintainer") or (c.get("author") != note.author and c.get("proven", True))]


def trusted_authors(notes: Mapping[str, "Note"]) -> set[tuple[str, bool]]:
    """Authors no longer new to the store, as (name, authenticated): a maintainer wrote, or someone
    else confirmed, one of their notes. The name alone is not trusted: on an open server anyone
    may claim "bob"; that is not the authenticated bob."""
    return {(n.author, n.authenticated) for n in notes.values() if n.maintainer or valid_confirmations(n)}


def is_quarantined(note: "Note", trusted: set[tuple[str, bool]]) -> bool:
    """Under the quarantine policy: a note by an author new to the store, not yet confirmed."""
    return not (note.maintainer or (note.author, note.authenticated) in trusted or valid_confirmations(note))


def trust_of(note: "Note | None", kind: str, *, quarantined: bool = False) -> str:
    if kind in MINED_NOTE_KINDS:
        return "mined"
    if quarantined:
        return "quarantined"
    return "authenticated" if note is not None and note.authenticated else "unauthenticated"


def session_label(session: str | None) -> str:
    """What an answer says of the session a note was written in: a hash of its id, never the id.
    On an open server the id is the only key to a session: shown in a note's provenance, it let any
    agent read, write as and close the writer's session (a probe). The label is the same for every
    note of one session, across merges and restarts, so notes still correlate; it opens nothing (a
    random id is not recovered from 64 bits of its hash)."""
    if not session:
        return ""
    digest = hashlib.sha256(b"stratum session label\0" + session.encode("utf-8", "surrogatepass"))
    return "s-" + digest.hexdigest()[:16]


def provenance(note: "Note") -> dict:
    """Where a note came from (``Item.provenance``): the identity, whether it was proven, the
    self-reported model, the session's label (``session_label``), the commit the store was at, and when."""
    out = {"author": note.author, "authenticated": note.authenticated, "model": note.model,
           "session": session_label(note.session), "commit": note.commit or "",
           "written_at": note.created_at.isoformat(), "source": "agent",
           "confirmed_by": [c.get("author") for c in valid_confirmations(note)]}
    if note.branch:         # written in a branch session: ``commit`` is that branch's
        out["branch"] = note.branch
    return out


__all__ = ["check_may_change", "retracted_before", "valid_confirmations", "trusted_authors",
           "is_quarantined", "trust_of", "session_label", "provenance"]
