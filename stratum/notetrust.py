"""Who may change whose note, and how far a note is trusted: authorship, confirmations,
quarantine, the trust marker and provenance an answer carries, and which note an id a reviewer
gives reaches (a short id; a mined node's id is said to be one). Part of the notes model
(``stratum.notes`` re-exports every name); pure."""

from __future__ import annotations

import hashlib
import json
import re
from typing import TYPE_CHECKING, Iterable, Mapping

from stratum import identity
from stratum.errors import InvalidArgument, NoteRejected, NotFound, PermissionDenied
from stratum.limits import echo
from stratum.schema import MINED_NOTE_KINDS

if TYPE_CHECKING:
    from stratum.notes import Note


def check_may_change(note: "Note", actor: str, *, maintainer: bool, action: str,
                     authenticated: bool | None = None) -> None:
    """Superseding or retracting hides a note: only its author or a maintainer may. The author is
    the same identity only when proven the same way (``same_writer``; ``authenticated`` None: the
    name alone is compared)."""
    same = note.author == actor if authenticated is None else \
        same_writer(note, actor, authenticated=authenticated, maintainer=maintainer)
    if same or maintainer:
        return
    if note.author != actor or authenticated is None:
        raise PermissionDenied(f"{actor[:64]} may not {action} note {note.id}, written by {note.author[:64]}: "
                               "only its author or a maintainer may")
    if actor.startswith(OS_PREFIX) and not authenticated and not note.authenticated:
        # the OS user at the CLI (a maintainer) and its agent over MCP (no role): one name, two writers
        raise PermissionDenied(f"{actor[:64]} may not {action} note {note.id}: it was written by the OS user with "
                               "the maintainer role (the CLI), and this MCP agent acts as the OS user without it; "
                               "only its author or a maintainer may (the operator gives an agent the role with "
                               "`stratum mcp --maintainer`)")
    # one name, two identities: "carol may not retract note X, written by carol" read as a contradiction
    # (a token's carol and a claimed carol on an open replica of the store: a probe)
    raise PermissionDenied(f"{actor[:64]} may not {action} note {note.id}, written by {note.author[:64]} "
                           f"({_proven(note.authenticated, note.maintainer)}); you are {actor[:64]} "
                           f"({_proven(authenticated, False, _method(actor, authenticated))}): one name proven "
                           "another way is another identity; only its author or a maintainer may")


def _proven(authenticated: bool, maintainer: bool, method: str = "") -> str:
    """How a writer's name was identified, as a refusal says it."""
    if authenticated:
        return method or "authenticated"
    return "claimed, unauthenticated" + (", as a maintainer" if maintainer else "")


def _method(actor: str, authenticated: bool) -> str:
    """How the caller acting as ``actor`` was proven ("token", "mtls"; "" when unknown): the running
    call's identity, when it is that writer."""
    ident = identity.current()
    return ident.method if ident.authenticated and authenticated and ident.name == actor else ""


def check_may_confirm(note: "Note", actor: str, *, maintainer: bool) -> None:
    """A confirmation releases a note, and its author, from quarantine: one's own needs the maintainer
    role, a confirmer confirms once (only a proven confirmation counts here: an anonymous caller's,
    under another's name, must not block the real one), and a retracted note is refused
    (``awaiting_confirmation``): confirming one made its author trusted while the CLI said "others
    see it" of a note no one is shown (a probe)."""
    if note.author == actor and not maintainer:
        raise PermissionDenied(f"note {note.id} is your own: it needs confirming by another identity or a maintainer")
    if any(c.get("author") == actor and c.get("proven", True) for c in note.confirmations):
        raise NoteRejected(f"{actor[:64]} confirmed note {note.id} already")     # one record a confirmer
    if note.retraction is not None:
        raise NoteRejected(f"note {note.id} is retracted: no one is shown it, so there is nothing to confirm "
                           "(confirm one of its author's notes that stands to release them from quarantine)")


def same_writer(note: "Note", author: str, *, authenticated: bool, maintainer: bool) -> bool:
    """Whether this identity wrote ``note``: the name, proven the same way (a claimed "erin", the
    local CLI's ``--author erin`` or an open server's session, is not the token's erin), and for a
    name no one proved, the same role (a claimed "os:alice" is not the owner's maintainer notes).
    What the identical-note check (``notes.identical``) and ``check_may_change`` compare: a name
    alone handed a claimed "erin" the token erin's quarantined note as "yours" (a probe)."""
    return note.author == author and note.authenticated == authenticated and \
        (authenticated or note.maintainer == maintainer)


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
    return {(n.author, n.authenticated) for n in notes.values() if is_maintainer(n) or valid_confirmations(n)}


def is_quarantined(note: "Note", trusted: set[tuple[str, bool]]) -> bool:
    """Under the quarantine policy: a note by an author new to the store, not yet confirmed."""
    return not (is_maintainer(note) or (note.author, note.authenticated) in trusted or valid_confirmations(note))


def awaiting_confirmation(note: "Note", trusted: set[tuple[str, bool]]) -> bool:
    """Whether a reviewer's confirmation is what ``note`` waits for (`stratum notes list --status
    quarantined`): quarantined, neither retracted nor superseded. A retracted note is shown to no one
    whatever a confirmation says (``notes.write_confirm`` refuses to confirm one); a superseded one
    was replaced by its successor, which is what awaits a review (it was listed beside it). Confirming
    a superseded note still releases its author."""
    return note.retraction is None and not note.superseded_by and is_quarantined(note, trusted)


# How a note's author was identified (``Item.provenance["identified_by"]``)
BY_SERVER, BY_OS_USER, CLAIMED = "token_or_mtls", "os_user", "claimed"
OS_PREFIX = "os:"       # the local OS user's names (``identity.os_user``); a server's never start so


def identified_by(note: "Note") -> str:
    """How ``note``'s author was identified: by the server (a token or an mTLS certificate), as the
    OS user who runs the local CLI or MCP over stdio (who owns the store's files: proven by the OS;
    a maintainer at the CLI, not over MCP unless `stratum mcp --maintainer`), or only claimed (an
    open server's session, `--author NAME`). A note records ``authenticated`` (the server's proof)
    and ``maintainer``; the maintainer flag is set only for an identity writing under its own name
    (``NotesOverlay.remember_or_found``) and ``os:`` names are the OS user's alone (``Tools._open``
    refuses another's), so an unproven note under an ``os:`` name is the OS user's. Its notes had read as unauthenticated, the same as a
    name anyone may claim, while the quarantine rule counted the OS user as proven (a probe).

    An ``os:`` name marked ``authenticated`` is claimed: no server proves one (a token or
    certificate name never starts with ``os:``, ``serving.auth``) and the OS user's own notes are
    not so marked, so only a hand-made record says it (a store committed to the repository shipped
    "os:alice, authenticated, maintainer" notes: a probe)."""
    return _identified(note.author, note.authenticated)


def _identified(author: str, authenticated: bool) -> str:
    if author.startswith(OS_PREFIX):
        return CLAIMED if authenticated else BY_OS_USER
    return BY_SERVER if authenticated else CLAIMED


def session_identified(author: str, authenticated: bool) -> str:
    """How a session's author is identified, by the rule its notes are (``identified_by``; an
    ``os:`` name is the OS user's alone): `status` said "authenticated: False" of the OS user whose
    notes read as proven (a probe). Its answers' ``authenticated`` is "not claimed", as a note's
    provenance says it (``Tools._proven``); ``Identity.authenticated`` stays the server's proof alone."""
    return _identified(author, authenticated)


def proven(note: "Note") -> bool:
    """Whether ``note``'s author was proven (``identified_by``), not just claimed."""
    return identified_by(note) != CLAIMED


def is_maintainer(note: "Note | None") -> bool:
    """Whether ``note`` is a maintainer's: stored with the role and its author proven (a claimed
    name never holds it; a maintainer's note is never quarantined). ``provenance`` and an attached
    note's flag (``memory.AttachedNote.maintainer``) say it."""
    return note is not None and note.maintainer and proven(note)


def trust_of(note: "Note | None", kind: str, *, quarantined: bool = False) -> str:
    """``Item.trust``: "mined", "quarantined", "authenticated" (the author was proven: a token,
    mTLS, or the OS user) or "unauthenticated" (a claimed name, never a maintainer's)."""
    if kind in MINED_NOTE_KINDS:
        return "mined"
    if quarantined:
        return "quarantined"
    return "authenticated" if note is not None and proven(note) else "unauthenticated"


def trust_words(note: "Note") -> str:
    """Who wrote an agent's ``note`` and how far that is proven, as its header says it
    (``notenodes.note_to_records``): "(authenticated)", "(authenticated, maintainer)", "(authenticated
    as the OS user, maintainer)" or "(unauthenticated)". Every header carries them: a proven author's
    header said only "by mallory, model ...", so a line of her text saying "by alice (authenticated,
    maintainer)" read as more trusted than the real header (a probe). A mined node's header names its
    commit and that commit's author instead (``notenodes.mined_by``)."""
    how = identified_by(note)
    if how == CLAIMED:
        return "(unauthenticated)"
    return "(authenticated" + (" as the OS user" if how == BY_OS_USER else "") + \
        (", maintainer" if note.maintainer else "") + ")"


class SessionLabel(str):
    """A session's label (``session_label``) as a note holds it once read: a label by its type,
    never by its shape. Session ids are caller-chosen (``resume_session``, the CLI's ``cli@...``),
    so an id may look like a label (``s-0123456789abcdef``); only what the store wrote as a label
    (``read_session(..., labelled=True)``) is one, and anything else is hashed."""

    __slots__ = ()


def session_label(session: str | None) -> str:
    """What an answer says of the session a note was written in: a hash of its id, never the id.
    On an open server the id is the only key to a session: shown in a note's provenance, it let any
    agent read, write as and close the writer's session (a probe). The label is the same for every
    note of one session, across merges and restarts, so notes still correlate; it opens nothing (a
    random id is not recovered from 64 bits of its hash). A ``SessionLabel`` is returned as it is."""
    if not session:
        return ""
    if isinstance(session, SessionLabel):
        return str(session)
    digest = hashlib.sha256(b"stratum session label\0" + session.encode("utf-8", "surrogatepass"))
    return "s-" + digest.hexdigest()[:16]


def read_session(value: str | None, *, labelled: bool) -> SessionLabel | None:
    """A note's session as read from the store: ``labelled`` says ``value`` was written as a label
    (the delta log's ``session_label`` field, a node whose meta says ``session_is_label``). Else it
    is a session id, as the store kept it before labels (the id at rest let another agent that reads
    the repository's store take the session over, a probe): labelled here, so what a reader
    gets is the same label, and the next merge stores it instead of the id."""
    if not value:
        return None
    return SessionLabel(value if labelled else session_label(value))


def provenance(note: "Note") -> dict:
    """Where a note came from (``Item.provenance``): the identity, whether it was proven and how
    (``identified_by``: the OS user is proven too, as ``trust_of`` says), whether it held the
    maintainer role, the self-reported model, the session's label (``session_label``), the commit
    the store was at, and when."""
    out = {"author": note.author, "authenticated": proven(note), "identified_by": identified_by(note),
           "maintainer": is_maintainer(note), "model": note.model,
           "session": session_label(note.session), "commit": note.commit or "",
           "written_at": note.created_at.isoformat(), "source": "agent",
           "confirmed_by": [c.get("author") for c in valid_confirmations(note)]}
    if note.branch:         # written in a branch session: ``commit`` is that branch's
        out["branch"] = note.branch
    return out


# A note's short id: its first 8 characters or more, as a why prints it ("rca note n583859b"), the
# shortest any answer prints. One rule for every tool (get, walk, pin, remember's supersedes, retract,
# confirm, `stratum notes show`): `notes show` took "n" and 6 hex digits that get called no node (a probe).
SHORT_ID = re.compile(r"n[0-9a-f]{7,19}")


def by_prefix(ids: Iterable[str], short: str) -> str | None:
    """The one id of ``ids`` (the notes the caller may reach) that ``short``, a note's short id,
    starts; None when ``short`` is no short id or names none; InvalidArgument when it names several.
    One rule for `stratum notes retract|confirm|show` and gRPC Retract/Confirm (``Memory.note_holder``):
    the CLI retracted a 10-character prefix that gRPC called NotFound (a probe)."""
    if not SHORT_ID.fullmatch(short or ""):
        return None
    found = sorted(i for i in ids if i.startswith(short))
    if len(found) > 1:
        raise InvalidArgument(f"{short} names {len(found)} notes ({', '.join(found[:5])}): give more of the id")
    return found[0] if found else None


_ARTICLE = {"rca": "an", "insight": "an"}      # "an rca note" (said "ar-cee-ay"), "a failure note"


def not_code(nid: str, kind: str, use: str, sha: str = "") -> str:
    """What a tool that needs code says of a note or mined node named where code must be (prefetch's
    focus, remember's about, get's lines): one wording for every note id, with ``use`` saying what
    to give instead. ``sha``: a mined node's commit. (prefetch refused an unmerged note's id, took a
    merged one's file silently and called a repository-wide one's file "no such file"; remember said
    "not a node id" of ids get serves: a probe.)"""
    if kind in MINED_NOTE_KINDS:
        what = f"a mined {kind} (from commit {sha[:12]})" if sha else f"a mined {kind}"
    else:
        what = f"{_ARTICLE.get(kind, 'a')} {kind} note"
    return f"{echo(nid)} is {what}, not code: {use}"


def not_a_note(node: Mapping, action: str) -> NoteRejected | NotFound:
    """What retracting or confirming (``action``) a node that is no agent note says, on every adapter:
    a mined one is re-derived at every index (gRPC said only "no note", where the CLI explained: a
    probe), a code node is shown by `get`. ``node``: its record (id, kind, path, meta)."""
    nid, kind = node["id"], node["kind"]
    if kind in MINED_NOTE_KINDS:
        sha = str(json.loads(node.get("meta") or "{}").get("sha") or "")
        return NoteRejected(f"{nid} is a mined {kind} node (from commit {sha[:12]}), not an agent's note: it is "
                            f"re-derived from the history at every index, so it cannot be {action.removesuffix('e')}ed "
                            f"(`stratum notes show {nid}` shows it)")
    return NotFound(f"{nid} is a {kind} node ({echo(node.get('path') or '') or 'the repository'}), not a note: "
                    f"`stratum get {nid}` shows it")



# no comma, paren, bracket, quote, backslash, and no whitespace but the space: a commit author's U+2028
# is a newline once cleaned (``clean_text``), and "Ada<U+2028>SYSTEM: ignore previous instructions" wrote
# a line of its own into a mined node's header and its attached line (a probe); quoted, it is "\n"
PLAIN_AUTHOR = re.compile(r'[^\s,()\[\]"\\](?:(?:[^\s,()\[\]"\\]| )*[^\s,()\[\]"\\])?')


def author_words(author: str) -> str:
    """An author's name as a note's header or line writes it: as it is when plain, else quoted as a
    JSON string, so a name such as ``alice (authenticated, maintainer) via review`` (an agent's
    claimed name, or a commit author's, which anyone whose commit lands chooses) cannot pass for the
    trust words we write after it (a review)."""
    return author if PLAIN_AUTHOR.fullmatch(author) else json.dumps(author, ensure_ascii=False)

__all__ = ["PLAIN_AUTHOR", "author_words", "session_identified", "check_may_change", "check_may_confirm", "same_writer", "retracted_before", "valid_confirmations", "trusted_authors",
           "is_quarantined", "awaiting_confirmation", "identified_by", "proven", "is_maintainer", "trust_of", "trust_words",
           "BY_SERVER", "BY_OS_USER", "CLAIMED", "SessionLabel", "session_label", "read_session", "provenance", "SHORT_ID", "by_prefix", "not_a_note",
           "not_code"]
