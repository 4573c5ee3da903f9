"""`stratum notes list|show|retract`: keep the experience memory clean.

Reads the published version's notes and the unmerged delta log together (folded, so retracts and
supersedes show), and tells which notes are stale against the published code.
"""

from __future__ import annotations

from stratum.cli import add_common, emit, resolve_store


def register(sub) -> None:
    p = sub.add_parser("notes", help="list, show and retract experience notes")
    ns = p.add_subparsers(dest="notes_command", metavar="ACTION")
    ns.required = True

    q = ns.add_parser("list", help="notes with their status (active, superseded, retracted, orphaned)")
    q.add_argument("--status", action="append", default=[],
                   help="only these statuses (repeatable; default: all)")
    q.add_argument("--kind", action="append", default=[], help="only these note kinds (repeatable)")
    add_common(q)
    q.set_defaults(func=_list)

    q = ns.add_parser("show", help="one note in full, with its targets and whether they changed")
    q.add_argument("id", help="note id")
    add_common(q)
    q.set_defaults(func=_show)

    q = ns.add_parser("retract", help="withdraw a note (appends a tombstone; it stops ranking)")
    q.add_argument("id", help="note id")
    q.add_argument("--reason", default="", help="why it is wrong or no longer useful")
    q.add_argument("--author", default=None, help="who retracts it (default: cli:<user>)")
    add_common(q)
    q.set_defaults(func=_retract)


class _View:
    """Notes of the published version + the delta log, folded; code hashes of that version."""

    def __init__(self, root: str):
        from pathlib import Path

        from stratum import notes as N
        from stratum.deltalog import DeltaLog
        from stratum.store import Store

        self.root = Path(root)
        store = Store(root)
        base, self.code, self.version = {}, None, None
        if store.exists():
            snap = store.snapshot()
            self.version = snap.manifest.version
            if snap.has("nodes"):
                kinds = ", ".join(f"'{k}'" for k in N.kinds())
                base = N.notes_from_nodes(snap.read("nodes", where=f"kind IN ({kinds})").to_pylist())
                self.code = N.CodeIndex.from_table(snap.read(
                    "nodes", columns=["id", "kind", "path", "qualname", "content_hash"],
                    where=f"kind NOT IN ({kinds})"))
        self.log = DeltaLog(self.root / "deltalog")
        scan = self.log.scan()
        self.damage = scan.damage
        self.merged = set(base)
        self.notes = N.fold(scan.records, base)

    def stale(self, note):
        from stratum import notes as N

        return N.staleness(note, self.code) if self.code is not None else None

    def get(self, note_id: str):
        from stratum.errors import NotFound

        n = self.notes.get(note_id)
        if n is None:
            raise NotFound(f"no note {note_id!r} in {self.root} (see `stratum notes list`)")
        return n

    def row(self, note) -> dict:
        d = note.to_dict()
        d["merged"] = note.id in self.merged
        d["stale"] = self.stale(note)
        return d


def _list(args) -> int:
    v = _View(resolve_store(args))
    rows = [v.row(n) for n in sorted(v.notes.values(), key=lambda n: n.record_uid)
            if (not args.status or n.status in args.status) and (not args.kind or n.kind in args.kind)]
    lines = []
    for r in rows:
        flags = "" if r["status"] == "active" else f" [{r['status']}]"
        flags += " [stale]" if r["stale"] else ""
        flags += "" if r["merged"] else " [unmerged]"
        about = ", ".join(t["path"] + (f"::{t['qualname']}" if t["qualname"] else "") for t in r["about"]) or "-"
        title = r["text"].strip().splitlines()[0][:90]
        lines.append(f"{r['id']}  {r['kind']:<8} {r['created_at'][:10]}  {r['author']}{flags}\n"
                     f"    {title}\n    about: {about}")
    lines.append(f"{len(rows)} note(s)" + (f"; {len(v.damage)} damaged log region(s) skipped" if v.damage else ""))
    emit(args, {"notes": rows, "version": v.version, "log_damage": [str(d) for d in v.damage]}, "\n".join(lines))
    return 0


def _show(args) -> int:
    v = _View(resolve_store(args))
    n = v.get(args.id)
    r = v.row(n)
    lines = [f"{n.id}  {n.kind}  status: {n.status}{'' if r['merged'] else ' (unmerged: in the delta log)'}",
             f"by {n.author}" + (f" (session {n.session})" if n.session else "") + f", {n.created_at.isoformat()}"]
    if n.tags:
        lines.append(f"tags: {', '.join(n.tags)}")
    lines += ["", n.text.strip(), "", "about:"]
    lines += [f"  {t.label()}  (node {t.node_id}, hash at write {(t.content_hash or '-')[:12]})" for t in n.about] \
        or ["  -"]
    if n.supersedes:
        lines.append(f"supersedes: {', '.join(n.supersedes)}")
    if n.superseded_by:
        lines.append(f"superseded by: {', '.join(n.superseded_by)}")
    if n.retraction:
        lines.append(f"retracted by {n.retraction.get('author')}: {n.retraction.get('reason') or '-'}")
    if r["stale"]:
        lines.append(r["stale"]["message"])
    elif v.code is None:
        lines.append("staleness not checked: no published version")
    emit(args, r, "\n".join(lines))
    return 0


def _retract(args) -> int:
    import os

    from stratum import notes as N
    from stratum.errors import NoteRejected

    v = _View(resolve_store(args))
    n = v.get(args.id)
    if n.retraction is not None:
        raise NoteRejected(f"note {n.id} is already retracted")
    author = args.author or f"cli:{os.environ.get('USER') or os.environ.get('LOGNAME') or 'user'}"
    uid = N.write_retract(v.log, n.id, author=author, reason=args.reason, note_exists=v.notes.__contains__)
    emit(args, {"retracted": n.id, "record": uid},
         f"retracted {n.id} (tombstone {uid}); it stops ranking now and is marked retracted at the next index")
    return 0


__all__ = ["register"]
