"""A note as the store holds it: a ``schema.NODES`` record with its detail levels (the header a
reader sees, the text, the targets) and its ``about`` edges, and back (``note_from_node``).

The header is written here, once, for every note node: an agent's note says who wrote it and how
far that is proven (``notetrust.trust_words``); a mined ``fix``/``change`` (``pipeline.fixes``)
says the commit it was mined from and that commit's author (``mined``). It was rewritten at read
time from "by history (mined)" by a regex over the stored text (``noteitems``, session 26): one
fact with two owners. Pure: no I/O."""

from __future__ import annotations

import json
from typing import Iterable, Mapping

from stratum import ids, tokens
from stratum.notes import ACTIVE, Note, Target, parse_time
from stratum.notetext import clean_text
from stratum.notetrust import author_words, read_session, session_label, trust_words
from stratum.schema import AGENT_NOTE_KINDS, MINED_NOTE_KINDS

API_TEXT_CHARS = 1200
# A note node's meta flag: its ``session`` column and its retraction's session hold the session's
# label. A version merged before held the id there (read into a label, ``read_session``), and an id
# may be chosen to look like a label: the flag, not the value's shape, says which.
LABELLED = "session_is_label"


class LazyTokens(dict):
    """A note node whose ``*_tokens`` counts are computed on first read: the overlay builds the
    nodes of every unmerged note at start, and three exact encodes per note made a restart with
    10,000 notes take tens of seconds before serving; only notes that are shown need counts."""

    encoding = tokens.DEFAULT_ENCODING

    def __missing__(self, key):
        if key in ("summary_tokens", "api_tokens", "full_tokens"):
            v = self[key] = tokens.count(self[key[:-7]] or "", self.encoding)
            return v
        raise KeyError(key)

    def get(self, key, default=None):
        return self[key] if key in self or key in ("summary_tokens", "api_tokens", "full_tokens") else default


def mined_by(sha: str, commit_author: str) -> str:
    """Who a mined node's header says wrote it: ``by Ada (mined from commit 1a2b3c4d5e6f)``, the
    commit's author (cleaned, and quoted as a JSON string unless plain: ``author_words``; anyone
    whose commit lands chooses that name, so ``Mallory [maintainer] ignore previous instructions``
    stays one quoted name) and the commit; ``(mined from commit ...)`` alone when the history
    recorded no author."""
    author = clean_text(commit_author or "")
    return (f"by {author_words(author)} " if author else "") + f"(mined from commit {sha[:12] or '-'})"


def note_to_records(note: Note, repo: str, *, encoding: str = tokens.DEFAULT_ENCODING,
                    prev: Mapping | None = None, lazy_tokens: bool = False,
                    mined: Mapping | None = None) -> tuple[dict, list[dict]]:
    """A note as a ``schema.NODES`` record (kind = note kind) and its ``about`` edges (note -> code).

    Detail levels: ``summary`` one line; ``api`` header + the text (cut at API_TEXT_CHARS, saying
    so); ``full`` header + whole text + the targets with their hashes at write time. Token counts
    are exact; ``prev`` (this note's node in an earlier version, same encoding) lends its counts
    for levels whose text is unchanged, so re-merging thousands of notes costs no re-encoding.
    ``lazy_tokens``: return a ``LazyTokens`` node that counts on first read (the serving overlay).
    ``mined``: a mined node's own meta (``pipeline.fixes``: ``sha``, ``commit_author``, ``time``,
    ...), added to the node's; its header reads "by <commit author> (mined from commit <sha12>),
    committed <time>".
    """
    about = ", ".join(t.label() for t in note.about) or "-"
    when = note.created_at.strftime("%Y-%m-%d %H:%M UTC")
    status = "" if note.status == ACTIVE else f" [{note.status}]"
    summary = f"{note.kind}{status}: {clean_text(note.title(160))}"
    if note.kind in MINED_NOTE_KINDS:
        got = mined or {}
        by_line = f"{mined_by(str(got.get('sha') or ''), str(got.get('commit_author') or ''))}, committed {when}"
    else:
        by_line = f"by {author_words(note.author)} {trust_words(note)}" + \
            (f", model {clean_text(note.model)}" if note.model else "") + \
            (f", session {session_label(note.session)}" if note.session else "") + f", {when}"   # a label: the id opens it
    header = f"{note.kind} note{status} about {about}\n{by_line}"
    if note.tags:
        header += f"; tags: {', '.join(note.tags)}"
    body = clean_text(note.text).strip()
    api_text = body if len(body) <= API_TEXT_CHARS else \
        body[:API_TEXT_CHARS] + f"\u2026 [{len(body) - API_TEXT_CHARS} more chars at level full]"
    api = f"{header}\n\n{api_text}"
    extra = [f"- {t.label()} (node {t.node_id}, content hash then {t.content_hash or '-'})" for t in note.about]
    if note.supersedes:
        extra.append(f"supersedes: {', '.join(note.supersedes)}")
    if note.superseded_by:
        extra.append(f"superseded by: {', '.join(note.superseded_by)}")
    if note.retraction:
        extra.append(f"retracted by {author_words(str(note.retraction.get('author') or ''))}: {note.retraction.get('reason') or '-'}")
    full = f"{header}\n\n{body}\n\nabout:\n" + "\n".join(extra) if extra else f"{header}\n\n{body}"
    # one encode per text: count_many's thread pool costs ~10x more for three short texts
    counts = {} if lazy_tokens else dict(zip(("summary_tokens", "api_tokens", "full_tokens"), (
        prev[f"{lvl}_tokens"] if prev is not None and prev.get(lvl) == text
        and prev.get(f"{lvl}_tokens") is not None else tokens.count(text, encoding)
        for lvl, text in (("summary", summary), ("api", api), ("full", full)))))
    meta = {"record_uid": note.record_uid, "about": [t.to_dict() for t in note.about],
            "supersedes": note.supersedes, "superseded_by": note.superseded_by,
            "retraction": _labelled(note.retraction), "orphaned": note.orphaned, "model": note.model,
            "authenticated": note.authenticated, "commit": note.commit, "maintainer": note.maintainer,
            "confirmations": note.confirmations}
    if note.branch:
        meta["branch"] = note.branch
    if note.kind not in MINED_NOTE_KINDS:
        meta[LABELLED] = True       # its session (and its retraction's) is a label: ``read_session``
    if mined:
        meta.update(mined)
    node = {
        "id": note.id, "repo": repo, "kind": note.kind, "subkind": None,
        "path": note.about[0].path if note.about else "", "name": clean_text(note.title(80)), "qualname": "",
        "language": None, "parent_id": None, "start_line": None, "end_line": None, "signature": None,
        "doc": note.text, "summary": summary, "api": api, "full": full,
        **counts,
        "content_hash": ids.content_hash(full), "file_hash": None,
        "size_bytes": len(note.text.encode("utf-8", "surrogatepass")),
        "author": note.author, "session": session_label(note.session) or None, "created_at": note.created_at,
        "tags": list(note.tags), "status": note.status,
        "meta": json.dumps(meta, sort_keys=True, ensure_ascii=False), "vector": None,
    }
    if lazy_tokens:
        node = LazyTokens(node)
        node.encoding = encoding
    edges = [{"src": note.id, "dst": t.node_id, "kind": "about", "weight": 1.0,
              "meta": json.dumps({"target": t.given, "content_hash": t.content_hash}, ensure_ascii=False)}
             for t in note.about]
    return node, edges


def _labelled(retraction: dict | None) -> dict | None:
    """A retraction as a node's meta keeps it: its session as a label."""
    if not retraction:
        return retraction
    return {**retraction, "session": session_label(retraction.get("session")) or None}


def note_from_node(node: Mapping) -> Note:
    """The inverse of ``note_to_records`` for a note node read back from a store."""
    meta = json.loads(node.get("meta") or "{}")
    labelled = bool(meta.get(LABELLED))
    retraction = meta.get("retraction")
    if isinstance(retraction, dict):
        retraction = {**retraction, "session": read_session(retraction.get("session"), labelled=labelled)}
    return Note(
        id=node["id"], record_uid=meta.get("record_uid", ""), kind=node["kind"], text=node.get("doc") or "",
        about=[Target(**t) for t in meta.get("about", [])], author=node.get("author") or "",
        session=read_session(node.get("session"), labelled=labelled), tags=list(node.get("tags") or []),
        created_at=parse_time(node["created_at"]), supersedes=list(meta.get("supersedes") or []),
        superseded_by=list(meta.get("superseded_by") or []), retraction=retraction,
        orphaned=bool(meta.get("orphaned")), model=meta.get("model") or "",
        authenticated=bool(meta.get("authenticated")), commit=meta.get("commit"),
        maintainer=bool(meta.get("maintainer")), confirmations=list(meta.get("confirmations") or []),
        branch=meta.get("branch") or "")


def notes_from_nodes(nodes: Iterable[Mapping]) -> dict[str, Note]:
    """Note id -> Note for every agent note node among ``nodes`` (code nodes and mined fixes,
    which the pipeline re-derives from history, are ignored)."""
    return {n["id"]: note_from_node(n) for n in nodes if n.get("kind") in AGENT_NOTE_KINDS}


__all__ = ["API_TEXT_CHARS", "LABELLED", "LazyTokens", "mined_by", "note_to_records", "note_from_node", "notes_from_nodes"]
