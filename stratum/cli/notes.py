"""`stratum notes list|show|retract|confirm|policy`: keep the experience memory clean.

Reads the published version's notes and the unmerged delta log together (folded, so retracts,
confirms and supersedes show), and tells which notes are stale against the published code. The
CLI acts as the OS user (``identity.os_user()``: a maintainer of their own store), so there is no
``--author``: a retract or confirm is recorded under that identity. Note text is printed cleaned of
control characters and escape sequences, also for notes written before that rule.
"""

from __future__ import annotations

from stratum.cli import add_common, emit, resolve_store


def register(sub) -> None:
    p = sub.add_parser("notes", help="list, show and retract experience notes")
    ns = p.add_subparsers(dest="notes_command", metavar="ACTION")
    ns.required = True

    q = ns.add_parser("list", help="notes with their status (active, superseded, retracted, orphaned)")
    q.add_argument("--status", action="append", default=[],
                   choices=("active", "superseded", "retracted", "orphaned", "quarantined"),
                   help="only these statuses (repeatable; quarantined: awaiting confirmation; default: all)")
    q.add_argument("--kind", action="append", default=[], choices=("rca", "failure", "insight"),
                   help="only these note kinds (repeatable)")
    add_common(q)
    q.set_defaults(func=_list)

    q = ns.add_parser("show", help="one note in full, with its targets and whether they changed")
    q.add_argument("id", help="note id")
    add_common(q)
    q.set_defaults(func=_show)

    q = ns.add_parser("retract", help="withdraw a note (appends a tombstone; it stops ranking)")
    q.add_argument("id", help="note id")
    q.add_argument("--reason", default="", help="why it is wrong or no longer useful")
    add_common(q)
    q.set_defaults(func=_retract)

    q = ns.add_parser("confirm", help="confirm another identity's note (releases it from quarantine)")
    q.add_argument("id", help="note id")
    add_common(q)
    q.set_defaults(func=_confirm)

    q = ns.add_parser("policy", help="show or set the store's notes policy (quarantine of new authors)")
    q.add_argument("--quarantine", choices=("on", "off"), default=None,
                   help="on: notes by authors new to the store are seen only by their author until "
                        "another identity or a maintainer confirms one (default off)")
    add_common(q)
    q.set_defaults(func=_policy)


class _View:
    """Notes of the published version + the delta log, folded; code hashes of that version."""

    def __init__(self, root: str):
        from pathlib import Path

        from stratum import notes as N
        from stratum.codelookup import CodeLookup
        from stratum.deltalog import DeltaLog
        from stratum.overlay import NotesPolicy
        from stratum.schema import AGENT_NOTE_KINDS, NOTE_KINDS
        from stratum.store import Store

        self.root = Path(root)
        store = Store(root)
        base, self.code, self.version = {}, None, None
        if store.exists():
            snap = store.snapshot()
            self.version = snap.manifest.version
            if snap.has("nodes"):
                agent = ", ".join(f"'{k}'" for k in AGENT_NOTE_KINDS)
                base = N.notes_from_nodes(snap.read("nodes", where=f"kind IN ({agent})").to_pylist())
                notes = ", ".join(f"'{k}'" for k in NOTE_KINDS)
                self.code = CodeLookup(snap.read("nodes", columns=["id", "kind", "path", "qualname", "content_hash"],
                                                 where=f"kind NOT IN ({notes})"))
        self.log = DeltaLog(self.root / "deltalog")
        scan = self.log.scan()
        self.damage = scan.damage
        self.merged = set(base)
        self.notes = N.fold(scan.records, base)
        self.policy = NotesPolicy.load(self.root) if store.exists() else NotesPolicy()
        trusted = N.trusted_authors(self.notes)
        self.quarantined = {k for k, n in self.notes.items() if self.policy.quarantine and N.is_quarantined(n, trusted)}

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
        from stratum import notes as N

        d = note.to_dict()
        d["text"] = N.clean_text(d["text"])
        d["model"] = N.clean_text(d.get("model") or "")
        d["merged"] = note.id in self.merged
        d["stale"] = self.stale(note)
        d["trust"] = N.trust_of(note, note.kind, quarantined=note.id in self.quarantined)
        d["provenance"] = N.provenance(note)
        return d


def _list(args) -> int:
    v = _View(resolve_store(args))
    want = set(args.status)

    def wanted(n) -> bool:
        return not want or n.status in want or ("quarantined" in want and n.id in v.quarantined)

    rows = [v.row(n) for n in sorted(v.notes.values(), key=lambda n: n.record_uid)
            if wanted(n) and (not args.kind or n.kind in args.kind)]
    lines = []
    for r in rows:
        flags = "" if r["status"] == "active" else f" [{r['status']}]"
        flags += " [stale]" if r["stale"] else ""
        flags += "" if r["merged"] else " [unmerged]"
        flags += f" [{r['trust']}]"
        about = ", ".join(t["path"] + (f"::{t['qualname']}" if t["qualname"] else "") for t in r["about"]) or "-"
        title = (r["text"].strip().splitlines() or [""])[0][:90]
        lines.append(f"{r['id']}  {r['kind']:<8} {r['created_at'][:10]}  {r['author']}{flags}\n"
                     f"    {title}\n    about: {about}")
    lines.append(f"{len(rows)} note(s)" + (f"; {len(v.damage)} damaged log region(s) skipped" if v.damage else ""))
    emit(args, {"notes": rows, "version": v.version, "log_damage": [str(d) for d in v.damage]}, "\n".join(lines))
    return 0


def _show(args) -> int:
    from stratum import notes as N

    v = _View(resolve_store(args))
    n = v.get(args.id)
    r = v.row(n)
    lines = [f"{n.id}  {n.kind}  status: {n.status}{'' if r['merged'] else ' (unmerged: in the delta log)'}",
             f"by {n.author} [{r['trust']}]" + (f", model {r['model']}" if r["model"] else "") +
             (f" (session {n.session})" if n.session else "") + f", {n.created_at.isoformat()}" +
             (f", at commit {n.commit[:12]}" if n.commit else "")]
    if n.tags:
        lines.append(f"tags: {', '.join(n.tags)}")
    lines += ["", r["text"].strip(), "", "about:"]
    lines += [f"  {t.label()}  (node {t.node_id}, hash at write {(t.content_hash or '-')[:12]})" for t in n.about] \
        or ["  -"]
    if n.supersedes:
        lines.append(f"supersedes: {', '.join(n.supersedes)}")
    if n.superseded_by:
        lines.append(f"superseded by: {', '.join(n.superseded_by)}")
    if n.retraction:
        lines.append(f"retracted by {n.retraction.get('author')}: {N.clean_text(n.retraction.get('reason') or '-')}")
    if r["provenance"]["confirmed_by"]:
        lines.append(f"confirmed by: {', '.join(r['provenance']['confirmed_by'])}")
    if r["stale"]:
        lines.append(r["stale"]["message"])
    elif v.code is None:
        lines.append("staleness not checked: no published version")
    emit(args, r, "\n".join(lines))
    return 0


def _retract(args) -> int:
    from stratum import notes as N
    from stratum.errors import NoteRejected
    from stratum.identity import current

    v = _View(resolve_store(args))
    n = v.get(args.id)
    if n.retraction is not None:
        raise NoteRejected(f"note {n.id} is already retracted")
    me = current()
    uid = N.write_retract(v.log, n.id, author=me.name, reason=args.reason, known=v.notes, maintainer=me.is_maintainer)
    emit(args, {"retracted": n.id, "record": uid, "by": me.name},
         f"retracted {n.id} as {me.name} (tombstone {uid}); it stops ranking now and is marked retracted "
         "at the next index")
    return 0


def _confirm(args) -> int:
    from stratum import notes as N
    from stratum.identity import current

    v = _View(resolve_store(args))
    n = v.get(args.id)
    me = current()
    uid = N.write_confirm(v.log, n.id, author=me.name, known=v.notes, maintainer=me.is_maintainer)
    emit(args, {"confirmed": n.id, "record": uid, "by": me.name},
         f"confirmed {n.id} (by {n.author}) as {me.name}: others see it, and {n.author}'s notes, now")
    return 0


def _policy(args) -> int:
    from dataclasses import asdict, replace
    from pathlib import Path

    from stratum.errors import NotFound
    from stratum.overlay import NotesPolicy

    root = Path(resolve_store(args))
    if not (root / "manifest.json").exists():
        raise NotFound(f"no store at {root}: index the repository first")
    pol = NotesPolicy.load(root)
    if args.quarantine is not None:
        pol = replace(pol, quarantine=args.quarantine == "on")
        pol.save(root)
    emit(args, asdict(pol), f"quarantine of new authors: {'on' if pol.quarantine else 'off'} "
         "(servers read the policy when they load a version)")
    return 0


__all__ = ["register"]
