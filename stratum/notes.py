"""Experience notes: the model, validation, folding the log into current state, and staleness.

A note is written once to the delta log (``write_note``) and never edited: a newer note can
*supersede* it, and a *retract* record (a tombstone) withdraws it. ``fold`` turns log records
(plus the notes of a published version) into the current notes with their status; only ``active``
notes rank. A note remembers the content hash of each piece of code it is about at write time, so
``staleness`` can tell a reader that the code has changed (or is gone) since. A note written in a
session on a branch, commit or worktree may be about code only that branch has: such a target
records where it was seen (``Target.branch``, ``branch_commit``) and is *pending* until the code
reaches the default branch's index (never "gone", never orphaned by it).

A note as the store's node record, and back: ``stratum.notenodes``. Pure: no Lance, no I/O except
through a ``DeltaLog`` passed in.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Callable, Iterable, Mapping

from stratum import ids
from stratum.errors import NoteRejected, PermissionDenied
from stratum.limits import echo
from stratum.notetext import check_utf8, clean_text, not_plain
from stratum.notetrust import (SHORT_ID, awaiting_confirmation, by_prefix, check_may_change, check_may_confirm,
                               is_quarantined, not_a_note, provenance, read_session, retracted_before, same_writer,
                               session_label, trust_of, trusted_authors, valid_confirmations)
from stratum.schema import AGENT_NOTE_KINDS, NOTE_KINDS_NEED_ABOUT

ACTIVE, SUPERSEDED, RETRACTED, ORPHANED = "active", "superseded", "retracted", "orphaned"
STATUSES = (ACTIVE, SUPERSEDED, RETRACTED, ORPHANED)


# ---- kinds: one definition, in stratum.schema ----------------------------------------------
# Agents write AGENT_NOTE_KINDS through ``remember``; MINED_NOTE_KINDS are derived from history at
# index time (pipeline/fixes.py) and never written or merged here.


def check_text_size(stored: str, limit: int) -> None:
    """A note's text, cleaned as it would be stored (``clean_text``: a lone surrogate is U+FFFD by
    then), within ``limit`` UTF-8 bytes; else NoteRejected. One rule and one wording for ``validate``
    and the gRPC client's check before a request (``toolspec.check_size``)."""
    size = len(stored.encode("utf-8"))
    if size > limit:
        raise NoteRejected(f"note text is {size} bytes, over the limit of {limit}; "
                           "shorten it or split it into several notes")


@dataclass(frozen=True)
class NoteLimits:
    max_text_bytes: int = 16 * 1024     # UTF-8 bytes of the text
    max_targets: int = 32
    max_tags: int = 16
    max_tag_chars: int = 64
    max_name_chars: int = 200           # author and session


# ---- the model -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Resolved:
    """What a resolver says a target is: a code node and its content hash now."""
    node_id: str
    content_hash: str | None
    path: str
    qualname: str = ""
    kind: str = ""
    branch: str = ""                # code only a branch has (the resolver of a branch session says so)
    branch_commit: str = ""
    uncommitted: bool = False       # read from a worktree's uncommitted file, not from ``branch_commit``
    base_hash: str | None = None    # the branch's version of code the default has too: the default's hash of it


@dataclass(frozen=True)
class Target:
    given: str                      # as the writer wrote it: a node id, a path, or path::qualname
    node_id: str
    content_hash: str | None        # of that code when the note was written
    path: str
    qualname: str = ""
    kind: str = ""
    # code seen only on a branch/commit/worktree: the branch ("" for a commit) and its commit; ``branch``
    # alone: the branch's version of code the default branch has too. The merge clears both once the
    # default branch's index has that code (``pipeline.merge``: it landed)
    branch: str = ""
    branch_commit: str = ""
    uncommitted: bool = False       # from a worktree's uncommitted file, not its HEAD; only beside a branch mark
    # beside ``branch`` alone: the default branch's hash of that code when the note was written. Once
    # the default branch's code there differs from it, the branch's version is no longer what sets
    # the note apart (a squash or a rebase landed it, or the default branch changed it itself:
    # ``branchnotes.OnDefault``); None: written before it was recorded
    base_hash: str | None = None

    @property
    def pending(self) -> bool:
        """Branch code: absent from the default branch's index is "not merged yet", not "gone"."""
        return bool(self.branch_commit)

    def label(self) -> str:
        if self.kind == "repo":
            return "the repository"
        out = f"{self.path}::{self.qualname}" if self.qualname else (self.path or self.node_id)
        return f"{out} [{written_on(self.branch, self.branch_commit, self.uncommitted)}]" if self.branch_commit else out

    def to_dict(self) -> dict:
        """The stored form (log body, node meta); the branch fields only when set, so a note about
        default-branch code is stored as before."""
        keep = {"branch_commit": bool(self.branch_commit), "branch": bool(self.branch or self.branch_commit)}
        keep["uncommitted"] = self.uncommitted and keep["branch"]   # a merge that drops the marks drops it
        keep["base_hash"] = self.base_hash is not None and keep["branch"] and not keep["branch_commit"]
        return {k: v for k, v in vars(self).items() if keep.get(k, True)}


def written_on(branch: str, commit: str, uncommitted: bool = False) -> str:
    """Where branch code was seen: "branch fw at 1a2b3c4d5e6f" ("commit ..." for a commit; "uncommitted in a
    worktree of branch fw (at HEAD 1a2b3c4d5e6f)" for code read from a worktree's uncommitted file)."""
    if uncommitted:
        of = "" if branch in ("", "worktree") else f" of branch {branch}"
        return f"uncommitted in a worktree{of} (at HEAD {commit[:12]})"
    if not branch or commit.startswith(branch):
        return f"commit {commit[:12]}"
    return f"branch {branch} at {commit[:12]}"


Resolver = Callable[[str], "Resolved | None"]


@dataclass
class Note:
    id: str                         # ids.note_id(record_uid): stable across re-index
    record_uid: str                 # the delta-log record that wrote it
    kind: str
    text: str
    about: list[Target]
    author: str
    session: str | None
    tags: list[str]
    created_at: datetime
    supersedes: list[str] = field(default_factory=list)
    superseded_by: list[str] = field(default_factory=list)
    retraction: dict | None = None  # {"uid", "reason", "author", "session", "created_at"}
    orphaned: bool = False          # every target is gone from the current code
    model: str = ""                 # the model the writing agent said it runs (self-reported)
    authenticated: bool = False     # was ``author`` proven by the adapter (token, mTLS), not just claimed
    commit: str | None = None       # the commit whose code it was written against (the indexed one, or a branch's)
    maintainer: bool = False        # the writer held the maintainer role
    confirmations: list[dict] = field(default_factory=list)  # {"uid", "author", "maintainer", "created_at"}
    branch: str = ""                # written in a session on this branch/commit/worktree ("": the default branch)

    @property
    def status(self) -> str:
        if self.retraction is not None:
            return RETRACTED
        if self.superseded_by:
            return SUPERSEDED
        if self.orphaned:
            return ORPHANED
        return ACTIVE

    @property
    def active(self) -> bool:
        return self.status == ACTIVE

    def title(self, width: int = 100) -> str:
        """An agent's lines on one (its line 2 was cut unmarked, a probe); a mined commit's subject alone."""
        lines = [x.strip() for x in self.text.splitlines() if x.strip()] or [""]
        line = lines[0] if "mined" in self.tags else " / ".join(lines)
        return line if len(line) <= width else line[:width - 1] + "\u2026"

    def to_dict(self) -> dict:
        d = asdict(self)
        d["created_at"] = self.created_at.isoformat()
        d["status"] = self.status
        return d


# ---- validation and writing ------------------------------------------------------------------
def validate(kind: str, text: str, about: Iterable[str], author: str, *, resolve: Resolver,
             session: str | None = None, tags: Iterable[str] = (), supersedes: Iterable[str] = (),
             note_exists: Callable[[str], bool] | None = None, explain: Callable[[str], str] | None = None,
             limits: NoteLimits = NoteLimits()) -> list[Target]:
    """Check a note before anything is written; NoteRejected says what is wrong. Returns the resolved targets
    (each with the node id and content hash of the code now), each node once (``a.py`` and ``./a.py`` are one
    target). "" and "." name the repository. ``explain``: why a target is unknown, as `get` says it."""
    if kind not in AGENT_NOTE_KINDS:
        raise NoteRejected(f"unknown note kind {echo(kind)!r}; use one of: {', '.join(AGENT_NOTE_KINDS)}")
    stored = clean_text(text) if isinstance(text, str) else ""
    if not stored.strip():
        raise NoteRejected("note text is empty (or only control characters): say what you found")
    check_text_size(stored, limits.max_text_bytes)
    _check_name("author", author, limits, required=True)
    _check_name("session", session, limits, required=False)
    tags = list(tags)
    if len(tags) > limits.max_tags:
        raise NoteRejected(f"{len(tags)} tags, over the limit of {limits.max_tags}")
    for t in tags:
        if not isinstance(t, str) or not t.strip() or len(t) > limits.max_tag_chars or not_plain(t):
            raise NoteRejected(f"bad tag {echo(t)!r}: tags are non-empty strings of at most {limits.max_tag_chars} "
                               "printable characters, none of them control or invisible (they are matched exactly)")
        check_utf8("tag", t)
    about = list(dict.fromkeys(a.strip() if isinstance(a, str) else a for a in about))
    if any(not isinstance(a, str) for a in about):
        raise NoteRejected('targets must be strings: node ids, paths, path::qualname, or "" / "." for the repository')
    for a in about:
        check_utf8("target", a)
    if len(about) > limits.max_targets:
        raise NoteRejected(f"note is about {len(about)} targets, over the limit of {limits.max_targets}")
    if not about and kind in NOTE_KINDS_NEED_ABOUT:
        raise NoteRejected(f"a {kind} note must say what code it is about (node ids, paths or "
                           "path::qualname)")
    targets, unknown, seen = [], [], set()
    for a in about:
        r = resolve(a)
        if r is None:
            unknown.append(a)
        elif r.node_id not in seen:         # a.py and ./a.py are one target: kept once, as first given
            seen.add(r.node_id)
            targets.append(Target(a, r.node_id, r.content_hash, r.path, r.qualname, r.kind,
                                  r.branch, r.branch_commit, r.uncommitted, r.base_hash))
    if unknown:
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        hint = next(filter(None, map(explain, unknown)), "") if explain is not None else ""
        raise NoteRejected(f"unknown target{'s' if len(unknown) > 1 else ''}: "
                           f"{', '.join(repr(echo(u)) for u in unknown[:5])}{more}: not a node id, path or "
                           "path::qualname of the indexed code" + (f"; {hint}" if hint else ""))
    supersedes = list(dict.fromkeys(supersedes))
    for s in supersedes:
        if not isinstance(s, str) or not s:
            raise NoteRejected(f"bad note id in supersedes: {echo(s)!r}")
        check_utf8("note id in supersedes", s)
        if note_exists is not None and not note_exists(s):
            raise NoteRejected(f"cannot supersede {echo(s)!r}: no such note")
    return targets


def _check_name(what: str, value, limits: NoteLimits, *, required: bool) -> None:
    if value is None and not required:
        return
    if not isinstance(value, str) or not value.strip():
        raise NoteRejected(f"note {what} is empty: say which agent/model (or person) wrote it")
    if len(value) > limits.max_name_chars or not_plain(value):
        raise NoteRejected(f"note {what} must be at most {limits.max_name_chars} printable characters")
    check_utf8(f"note {what}", value)


def note_body(kind: str, text: str, targets: list[Target], author: str, *, session: str | None = None,
              tags: Iterable[str] = (), supersedes: Iterable[str] = (),
              created_at: datetime | None = None, model: str = "", authenticated: bool = False,
              commit: str | None = None, maintainer: bool = False, branch: str = "") -> dict:
    """The delta-log body of a validated note (its text cleaned of control characters). ``branch``:
    written in a session on that branch, commit or worktree (``commit`` is then its commit). The
    session is kept as its label (``stored_session``), never its id."""
    at = (created_at or datetime.now(timezone.utc)).astimezone(timezone.utc)
    body = {"kind": kind, "text": clean_text(text), "about": [t.to_dict() for t in targets], "author": author,
            **stored_session(session), "tags": list(tags), "supersedes": list(dict.fromkeys(supersedes)),
            "created_at": at.isoformat(), "model": clean_text(model or "")[:200],
            "authenticated": bool(authenticated), "commit": commit, "maintainer": bool(maintainer)}
    if branch:
        body["branch"] = stored_branch(branch)
    return body


def stored_session(session: str | None) -> dict:
    """A record body's session field: ``session_label`` (its label), never ``session`` (its id).
    The log lives in the repository's store (``.git/stratum/``), which every agent reads; on an open server an id
    read there let one agent take over another's session (a probe). A record from before has the id
    under ``session``, labelled when read (``read_session``): the key, not the value's shape, says
    which, as an id may be chosen to look like a label."""
    return {"session_label": session_label(session) or None}


def body_session(body: Mapping) -> str | None:
    """The session label of a record ``body`` (``stored_session``; an older record's id, labelled)."""
    if "session_label" in body:
        return read_session(body.get("session_label"), labelled=True)
    return read_session(body.get("session"), labelled=False)


def stored_branch(branch: str) -> str:
    return clean_text(branch)[:200]     # a branch name as a note stores it (``Note.branch``)


def write_note(log, kind: str, text: str, about: Iterable[str], author: str, *, resolve: Resolver,
               session: str | None = None, tags: Iterable[str] = (), supersedes: Iterable[str] = (),
               note_exists: Callable[[str], bool] | None = None,
               limits: NoteLimits = NoteLimits(), model: str = "", authenticated: bool = False,
               commit: str | None = None, maintainer: bool = False,
               known: Mapping[str, "Note"] | None = None, extra: Mapping | None = None, branch: str = "") -> Note:
    """Validate, then append to ``log`` (a DeltaLog); returns the note once it is durable.
    A rejected note writes nothing. ``known`` (the current notes): superseding another author's
    note needs ``maintainer``. ``extra``: more body fields (e.g. the note's vector)."""
    tags, supersedes = list(tags), list(supersedes)
    if known is not None and note_exists is None:
        note_exists = known.__contains__
    targets = validate(kind, text, about, author, resolve=resolve, session=session, tags=tags,
                       supersedes=supersedes, note_exists=note_exists, limits=limits)
    return append_note(log, kind, text, targets, author, session=session, tags=tags, supersedes=supersedes,
                       model=model, authenticated=authenticated, commit=commit, maintainer=maintainer,
                       known=known, extra=extra, branch=branch)


def append_note(log, kind: str, text: str, targets: list[Target], author: str, *, session: str | None = None,
                tags: Iterable[str] = (), supersedes: Iterable[str] = (), model: str = "",
                authenticated: bool = False, commit: str | None = None, maintainer: bool = False,
                known: Mapping[str, "Note"] | None = None, extra: Mapping | None = None, branch: str = "") -> Note:
    """``write_note`` after ``validate``: ``targets`` are what it returned for these arguments (a
    caller that validated first, to look for an identical note, does not resolve every target again)."""
    tags, supersedes = list(tags), list(supersedes)
    for old in supersedes:
        if known is not None and old in known:
            check_may_change(known[old], author, maintainer=maintainer, action="supersede",
                             authenticated=authenticated)
    body = note_body(kind, text, targets, author, session=session, tags=tags, supersedes=supersedes,
                     model=model, authenticated=authenticated, commit=commit, maintainer=maintainer, branch=branch)
    uid = log.append("note", {**(extra or {}), **body})
    return note_from_body(uid, body)


def identical(known: Mapping[str, Note], kind: str, text: str, targets: list[Target], author: str, *,
              tags: Iterable[str] = (), supersedes: Iterable[str] = (), branch: str = "",
              authenticated: bool = False, maintainer: bool = False) -> Note | None:
    """An active note of this identity's (``same_writer``: proven or not, as the writer is) saying the
    same (kind, text as stored, targets, tags, branch), already superseding ``supersedes``, or None: a
    retried write, or a script run twice, must not leave two copies of one finding."""
    body, nodes, tag_set, old = clean_text(text), sorted(t.node_id for t in targets), sorted(tags), set(supersedes)
    branch = stored_branch(branch) if branch else ""
    for n in known.values():
        if same_writer(n, author, authenticated=authenticated, maintainer=maintainer) and n.kind == kind and \
                n.text == body and n.status == ACTIVE and n.branch == branch and old <= set(n.supersedes) and \
                sorted(t.node_id for t in n.about) == nodes and sorted(n.tags) == tag_set:
            return n
    return None


def write_retract(log, note_id: str, *, author: str, reason: str = "", session: str | None = None,
                  note_exists: Callable[[str], bool] | None = None,
                  limits: NoteLimits = NoteLimits(), known: Mapping[str, "Note"] | None = None,
                  maintainer: bool = False, authenticated: bool | None = None) -> str:
    """Append a tombstone for ``note_id``; returns the record uid once durable. With ``known``,
    retracting another author's note needs ``maintainer``, and a note retracted already is
    NoteRejected (a second tombstone changes nothing; the CLI refused it while gRPC wrote one per
    call: a probe). Concurrent writers call ``retract_once``."""
    _check_target_note(note_id, "retract", note_exists, known)
    _check_name("author", author, limits, required=True)
    _check_name("session", session, limits, required=False)
    reason = clean_text(reason)     # as stored (a lone surrogate failed this encode with a trace)
    if len(reason.encode("utf-8")) > limits.max_text_bytes:
        raise NoteRejected(f"retract reason over the limit of {limits.max_text_bytes} bytes")
    if known is not None:
        check_may_change(known[note_id], author, maintainer=maintainer, action="retract", authenticated=authenticated)
        if known[note_id].retraction is not None:
            raise NoteRejected(f"note {note_id} is already retracted")
    return log.append("retract", {"note": note_id, "reason": reason, "author": author,
                                  **stored_session(session), "created_at": datetime.now(timezone.utc).isoformat()})


def retract_once(log, note_id: str, *, notes_now: Callable[[], Mapping[str, "Note"]], **kw) -> str:
    """``write_retract`` under the log's lock of this note, checked against ``notes_now()``: the
    notes folded once the lock is held, every writer's records in. Concurrent retracts of one note,
    by any process sharing the log (replicas, the CLI), write one tombstone; the others are
    NoteRejected "already retracted" (4 concurrent retracts wrote 4 tombstones: a probe)."""
    with log.exclusive(f"retract\0{note_id}"):
        return write_retract(log, note_id, known=notes_now(), **kw)


def write_confirm(log, note_id: str, *, author: str, known: Mapping[str, "Note"], maintainer: bool = False,
                  proven: bool = True, refuse_unproven: bool = True, limits: NoteLimits = NoteLimits()) -> str:
    """Append a confirmation of ``note_id`` (releases it, and its author, from quarantine; a retracted note
    awaits nothing and is refused). One's own note counts only when confirmed by someone else or a
    maintainer. ``proven``: the confirmer is who they say (a token, mTLS, or the local OS user); an
    anonymous caller of an open server is not: anyone may claim another name there and confirm their own
    note (a probe). Such a confirmation is refused (``refuse_unproven``: under quarantine), else recorded
    as unproven, and never counts (``valid_confirmations``), even once quarantine is turned on. It is
    refused before the note is looked at: an anonymous caller learns neither which ids exist nor who wrote one."""
    _check_target_note(note_id, "confirm", None, None)
    _check_name("author", author, limits, required=True)
    if not proven and not maintainer and refuse_unproven:
        raise PermissionDenied(f"a confirmation releases note {note_id[:80]} from quarantine, so it needs a "
                               "proven identity: this server has no authentication, and anyone may claim any "
                               "name. Confirm it with `stratum notes confirm` where the store is, or as an "
                               "authenticated identity")
    _check_target_note(note_id, "confirm", None, known)
    check_may_confirm(known[note_id], author, maintainer=maintainer)    # own, already, retracted
    return log.append("confirm", {"note": note_id, "author": author, "maintainer": bool(maintainer),
                                  "proven": bool(proven or maintainer),
                                  "created_at": datetime.now(timezone.utc).isoformat()})


def _check_target_note(note_id, action: str, note_exists, known) -> None:
    if not isinstance(note_id, str) or not note_id:
        raise NoteRejected("which note? give its id")
    exists = known.__contains__ if known is not None else note_exists
    if exists is not None and not exists(note_id):
        raise NoteRejected(f"cannot {action} {note_id[:80]!r}: no such note")


def note_from_body(uid: str, body: dict) -> Note:
    """The note a delta-log record wrote (a lone surrogate an older build accepted is read as U+FFFD,
    as ``clean_text`` writes it now: ``deltalog``; other characters are cleaned at display)."""
    return Note(
        id=ids.note_id(uid), record_uid=uid, kind=body["kind"], text=body["text"],
        about=[Target(**t) for t in body.get("about", [])], author=body["author"],
        session=body_session(body), tags=list(body.get("tags") or []),
        created_at=parse_time(body["created_at"]), supersedes=list(body.get("supersedes") or []),
        model=body.get("model") or "", authenticated=bool(body.get("authenticated")),
        commit=body.get("commit"), maintainer=bool(body.get("maintainer")), branch=body.get("branch") or "")


def parse_time(v) -> datetime:
    if v is None:   # a note node written without a time (e.g. imported): sort it first, do not fail
        return datetime.fromtimestamp(0, timezone.utc)
    if isinstance(v, datetime):
        return v if v.tzinfo else v.replace(tzinfo=timezone.utc)
    return datetime.fromisoformat(v).astimezone(timezone.utc)


# ---- folding ---------------------------------------------------------------------------------
@dataclass
class FoldResult:
    notes: dict[str, Note]          # note id -> note with its current status
    applied: list[str]              # record uids whose effect is in ``notes``
    unknown_retracts: list[str]     # retract (or confirm) record uids naming a note that does not exist


def fold(records: Iterable, base: Mapping[str, Note] | None = None) -> dict[str, Note]:
    """Current notes: ``base`` (e.g. a published version's notes) plus log records on top."""
    return fold_records(records, base).notes


def fold_records(records: Iterable, base: Mapping[str, Note] | None = None) -> FoldResult:
    """Like ``fold``, and also says which records were applied. Order-insensitive: a retract,
    a confirm or a supersede takes effect whatever order the records arrive in. A retracted note has no
    effect on others (the notes it superseded become active again)."""
    notes = {k: _fresh_copy(v) for k, v in (base or {}).items()}
    retracts: list = []
    applied: list[str] = []
    for r in records:
        if r.type == "note":
            nid = ids.note_id(r.uid)
            if nid not in notes:
                notes[nid] = note_from_body(r.uid, r.body)
            applied.append(r.uid)
        elif r.type in ("retract", "confirm"):
            retracts.append(r)
    unknown = []
    for r in retracts:
        n = notes.get(r.body.get("note"))
        if n is None:
            unknown.append(r.uid)
        elif r.type == "confirm":
            if all(c.get("uid") != r.uid for c in n.confirmations):
                n.confirmations.append({"uid": r.uid, "author": r.body.get("author"),
                                        "maintainer": bool(r.body.get("maintainer")),
                                        "proven": bool(r.body.get("proven", True)),    # older records: as before
                                        "created_at": r.body.get("created_at")})
        elif n.retraction is None:
            n.retraction = {"uid": r.uid, "reason": r.body.get("reason", ""), "author": r.body.get("author"),
                            "session": body_session(r.body), "created_at": r.body.get("created_at")}
        applied.append(r.uid)
    for n in sorted(notes.values(), key=lambda n: n.record_uid):
        if n.retraction is None:
            for old in n.supersedes:
                if old in notes and old != n.id:
                    notes[old].superseded_by.append(n.id)
    return FoldResult(notes, applied, unknown)


def _fresh_copy(v: Note) -> Note:
    """A copy of ``v`` with its own lists and no fold results (``replace`` is 5x slower: ``__init__``)."""
    c = object.__new__(Note)
    c.__dict__.update(v.__dict__)
    c.about, c.supersedes, c.superseded_by = list(v.about), list(v.supersedes), []
    c.confirmations = list(v.confirmations)
    return c


# ---- staleness -------------------------------------------------------------------------------
def staleness(note: Note, current_hash, *, branch_code: bool = False) -> dict | None:
    """None when every target's code is as the note saw it; otherwise what changed.

    ``current_hash`` maps a node id to its content hash in the version being served (None or
    missing: the code is gone): a Mapping, a callable, or a ``codelookup.CodeLookup``. The result names the first stale target at the top level
    (``target``, ``node_id``, ``path``, ``was``, ``now``, ``reason``: "changed" | "gone"), lists
    every stale target in ``changes``, and carries a one-line ``message`` for the reader.
    A pending target (code only a branch had) that is absent is not "gone": that code was never in
    the default branch's index; ``branch_code``: ``current_hash`` is a branch's code, where absent
    is gone.
    """
    get = getattr(current_hash, "hash_of", None) or \
        (current_hash.get if isinstance(current_hash, Mapping) else current_hash)
    changes = []
    for t in note.about:
        now = get(t.node_id)
        if now is None and t.pending and not branch_code:
            continue
        if now is None:
            changes.append({"target": t.given, "node_id": t.node_id, "path": t.label(), "was": t.content_hash,
                            "now": None, "reason": "gone"})
        elif t.content_hash is not None and now != t.content_hash:
            changes.append({"target": t.given, "node_id": t.node_id, "path": t.label(), "was": t.content_hash,
                            "now": now, "reason": "changed"})
    if not changes:
        return None
    parts = [f"{c['path']} {'changed' if c['reason'] == 'changed' else 'no longer exists'}" for c in changes]
    out: dict = dict(changes[0])
    out["changes"] = changes
    out["message"] = (f"stale: {'; '.join(parts)} since this note was written "
                      f"({note.created_at.date().isoformat()})")
    return out


def is_orphaned(note: Note, exists: Callable[[str], bool]) -> bool:
    """A note about code of which nothing exists any more (notes about nothing never are). A
    pending target (code only a branch has, not merged yet) keeps it: that code is not gone."""
    return bool(note.about) and not any(t.pending or exists(t.node_id) for t in note.about)


__all__ = ["Note", "Target", "Resolved", "NoteLimits", "check_text_size", "FoldResult", "validate", "identical", "stored_branch", "stored_session",
           "body_session", "note_body",
           "write_note", "append_note", "write_retract", "retract_once", "write_confirm", "note_from_body", "fold",
           "fold_records", "staleness", "is_orphaned",
           "clean_text", "written_on", "check_may_change", "valid_confirmations", "retracted_before", "trusted_authors",
           "is_quarantined", "trust_of", "provenance", "session_label", "ACTIVE", "SUPERSEDED", "RETRACTED", "ORPHANED",
           "STATUSES", "parse_time", "same_writer", "by_prefix", "not_a_note", "SHORT_ID", "awaiting_confirmation",
           "check_may_confirm"]
