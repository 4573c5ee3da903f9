"""`stratum notes list|show|retract|confirm|policy`: keep the experience memory clean.

Reads the published version's notes and the unmerged delta log together (folded, so retracts,
confirms and supersedes show), and tells which notes are stale against the published code, judged
as ``get`` judges them (``branchnotes.OnDefault``: a branch's note about its version is not stale). The
CLI acts as the OS user (``identity.os_user()``: a maintainer of their own store), so there is no
``--author``: a retract or confirm is recorded under that identity. Note text is printed cleaned of
control characters and escape sequences, also for notes written before that rule, and quoted (each
line behind "> ", as ``stratum get`` prints it) so it cannot pass for the lines around it; every other
field is printed terminal-safe on its own line (``stratum.cli.one_line``).
"""

from __future__ import annotations

from stratum.cli import add_common, emit, local_store, one_line, quoted
from stratum.notetrust import author_words


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
    q.add_argument("--author", action="append", default=[], metavar="NAME",
                   help="only notes written by NAME (repeatable)")
    add_common(q)
    q.set_defaults(func=_list)

    q = ns.add_parser("show", help="one note in full, with its targets and whether they changed")
    q.add_argument("id", help="note id")
    add_common(q)
    q.set_defaults(func=_show)

    q = ns.add_parser("retract", help="withdraw a note (appends a tombstone; it stops ranking)")
    q.add_argument("id", nargs="?", default=None, help="note id")
    q.add_argument("--all-by", default=None, metavar="NAME", dest="all_by",
                   help="instead of one id: every note NAME wrote that is not retracted yet (a flood of "
                        "notes from one identity; another author's notes need a maintainer)")
    who = q.add_mutually_exclusive_group()
    who.add_argument("--claimed", action="store_true",
                     help="with --all-by: the notes of callers that only claimed NAME (an open server's session, "
                          "a local --author)")
    who.add_argument("--proven", action="store_true",
                     help="with --all-by: the notes of the identity that proved NAME (a token, mTLS, the OS user)")
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
    """Notes of the published version + the delta log, folded; code hashes of that version.

    ``writing`` (retract, confirm): the store must have its manifest, as for `stratum remember` (the
    same refusal), and the log refuses a write once the manifest is gone (``deltalog.in_store``, the
    guard every surface's note writes go through): without them a retract to a store moved or deleted
    under us was acknowledged into its left-over log (a review)."""

    def __init__(self, root: str, writing: bool = False):
        from pathlib import Path
        from types import SimpleNamespace

        from stratum import notes as N
        from stratum.branchnotes import OnDefault, merged_in, served_of
        from stratum.codelookup import CodeLookup
        from stratum.deltalog import DeltaLog, in_store
        from stratum.notepolicy import NotesPolicy
        from stratum.schema import AGENT_NOTE_KINDS, NOTE_KINDS
        from stratum.store import Store

        self.root = Path(root)
        store = Store(root)
        if not store.exists() and not (self.root / "deltalog").is_dir():
            from stratum.errors import NotFound

            raise NotFound(f"no store at {root}: index the repository first (`stratum index`), or give --store")
        base, self.code, self.version, self.snap, self.judge = {}, None, None, None, None
        if store.exists() or writing:       # a write: no manifest is remember's NotFound, nothing written
            snap = self.snap = store.snapshot()
            self.version = snap.manifest.version
            if snap.has("nodes"):
                agent = ", ".join(f"'{k}'" for k in AGENT_NOTE_KINDS)
                from stratum.notenodes import notes_from_nodes

                base = notes_from_nodes(snap.read("nodes", where=f"kind IN ({agent})").to_pylist())
                notes = ", ".join(f"'{k}'" for k in NOTE_KINDS)
                self.code = CodeLookup(snap.read("nodes", columns=["id", "kind", "path", "qualname", "content_hash"],
                                                 where=f"kind NOT IN ({notes})"))
                # judged as get, search and walk judge them (``OnDefault``): a note written on an unmerged
                # branch about code it changed is about that version, not stale (a probe: `notes show`
                # said "stale" where `get` said "written on branch fc ..., about that version")
                self.judge = OnDefault(self.code, merged_in(SimpleNamespace(snapshot=snap)), served=served_of(snap.manifest))
        self.log = DeltaLog(self.root / "deltalog", guard=in_store(self.root, store.manifest))
        scan = self.log.scan()
        self.damage = scan.damage
        self.merged, self._base = set(base), base
        self.notes = N.fold(scan.records, base)
        self.policy = NotesPolicy.load(self.root) if store.exists() else NotesPolicy()
        trusted = N.trusted_authors(self.notes)
        self.quarantined = {k for k, n in self.notes.items() if self.policy.quarantine and N.is_quarantined(n, trusted)}
        self.awaiting = {k for k in self.quarantined if N.awaiting_confirmation(self.notes[k], trusted)}

    def notes_now(self) -> dict:
        """The notes folded again with what the log holds now (a server may have written since)."""
        from stratum import notes as N

        return N.fold(self.log.scan().records, self._base)

    def stale(self, note):
        return self.judge.staleness(note) if self.judge is not None else None

    def warnings(self, note) -> list[str]:
        """What ``get`` says of the note's code, in its words: stale, about a branch's version, pending."""
        return self.judge.warnings(note) if self.judge is not None else []

    def where(self, note) -> str:
        """`notes list`'s marks beside [stale]: " [on branch B at SHA]" for a note about an unmerged
        branch's version of the code (as get's line on the code names it), " [pending]" for one about
        code only a branch has, " [uncommitted in a worktree of branch B (at HEAD SHA)]" for one about
        a worktree's uncommitted code."""
        from stratum.branchnotes import pending

        if self.judge is None or self.code is None:
            return ""
        where = self.judge.about(note, "")      # get's words: "branch B at SHA", or uncommitted in a worktree
        mark = (f" [{where}]" if where.startswith("uncommitted") else f" [on {where}]") if where else ""
        return mark + (" [pending]" if pending(note, self.code.__contains__) else "")

    def get(self, note_id: str, action: str = "show"):
        """The note ``note_id`` names (its id, or a short id: ``notes.by_prefix``, gRPC's rule too); a mined
        history node or a code node is named as such (``notes.not_a_note``, as gRPC says it), not "no note"."""
        from stratum import notes as N
        from stratum.errors import NotFound
        from stratum.limits import echo

        n = self.notes.get(note_id) or self.notes.get(N.by_prefix(self.notes, note_id) or "")
        if n is not None:
            return n
        node = self.node(note_id)
        if node is not None:
            raise N.not_a_note(node, action)
        raise NotFound(f"no note {echo(note_id)!r} in {self.root} (see `stratum notes list`)")

    def node(self, node_id: str) -> dict | None:
        """A node of the published version by id (mined fix/change nodes are not notes here)."""
        if self.snap is None or not self.snap.has("nodes") or not node_id:
            return None
        esc = node_id.replace("'", "''")
        rows = self.snap.read("nodes", columns=["id", "kind", "path", "name", "doc", "created_at", "meta"],
                              where=f"id = '{esc}'").to_pylist()
        return rows[0] if rows else None

    def row(self, note) -> dict:
        from stratum import notes as N

        d = note.to_dict()
        # a session is named by its label, as every answer names it (an id is a key to the session)
        d["session"] = N.session_label(note.session)
        if note.retraction is not None:
            d["retraction"] = {**note.retraction, "session": N.session_label(note.retraction.get("session"))}
        d["text"] = N.clean_text(d["text"])
        d["model"] = N.clean_text(d.get("model") or "")
        d["merged"] = note.id in self.merged
        d["stale"] = self.stale(note)
        d["warnings"] = self.warnings(note)
        d["trust"] = N.trust_of(note, note.kind, quarantined=note.id in self.quarantined)
        d["provenance"] = N.provenance(note)
        return d


def _list(args) -> int:
    from stratum import notes as N

    v = _View(_store(args))
    want = set(args.status)

    def wanted(n) -> bool:          # quarantined: awaiting confirmation (a retracted note awaits nothing)
        return not want or n.status in want or ("quarantined" in want and n.id in v.awaiting)

    listed = [n for n in sorted(v.notes.values(), key=lambda n: n.record_uid)
              if wanted(n) and (not args.kind or n.kind in args.kind) and (not args.author or n.author in args.author)]
    rows = [v.row(n) for n in listed]
    lines = []
    for n, r in zip(listed, rows):
        flags = "" if r["status"] == "active" else f" [{r['status']}]"
        flags += " [stale]" if r["stale"] else ""
        flags += v.where(n)
        flags += "" if r["merged"] else " [unmerged]"
        flags += f" [{r['trust']}]"
        about = ", ".join(N.Target(**t).label() for t in r["about"]) or "-"
        title = N.clean_text(n.title(90))     # the answers' line: it cut line 2, the reason, unmarked (a probe)
        lines.append(one_line(f"{r['id']}  {r['kind']:<8} {r['created_at'][:10]}  {author_words(r['author'])}{flags}") +
                     f"\n    {quoted(title)}\n    about: {one_line(about)}")
    lines.append(f"{len(rows)} note(s)" + (f"; {len(v.damage)} damaged log region(s) skipped" if v.damage else ""))
    emit(args, {"notes": rows, "version": v.version, "log_damage": [str(d) for d in v.damage]}, "\n".join(lines))
    return 0


def _show(args) -> int:
    from stratum import notes as N
    from stratum.schema import MINED_NOTE_KINDS

    v = _View(_store(args))
    if args.id not in v.notes:
        node = v.node(args.id)
        if node is not None and node["kind"] in MINED_NOTE_KINDS:
            return _show_mined(args, v, node)
    n = v.get(args.id)
    r = v.row(n)
    lines = [one_line(f"{n.id}  {n.kind}  status: {n.status}{'' if r['merged'] else ' (unmerged: in the delta log)'}"),
             one_line(f"by {author_words(n.author)} [{r['trust']}]" + (f", model {r['model']}" if r["model"] else "") +
                      (f" (session {r['session']})" if r["session"] else "") + f", {n.created_at.isoformat()}" +
                      (f", at commit {n.commit[:12]}" if n.commit else ""))]
    if n.tags:
        lines.append(one_line(f"tags: {', '.join(n.tags)}"))
    lines += ["", quoted(r["text"].strip()), "", "about:"]
    lines += ["  " + one_line(f"{t.label()}  (node {t.node_id}, hash at write {(t.content_hash or '-')[:12]})")
              for t in n.about] or ["  -"]
    if n.supersedes:
        lines.append(one_line(f"supersedes: {', '.join(n.supersedes)}"))
        lines += [f"warning: {one_line(w)}" for w in N.retracted_before(n, v.notes)]
    if n.superseded_by:
        lines.append(one_line(f"superseded by: {', '.join(n.superseded_by)}"))
    if n.retraction:
        lines.append(one_line(f"retracted by {author_words(str(n.retraction.get('author') or ''))}: "
                              f"{N.clean_text(n.retraction.get('reason') or '-')}"))
    if r["provenance"]["confirmed_by"]:
        lines.append(one_line(f"confirmed by: {', '.join(r['provenance']['confirmed_by'])}"))
    lines += [one_line(w) for w in r["warnings"]]
    if v.code is None:
        lines.append("staleness not checked: no published version")
    emit(args, r, "\n".join(lines))
    return 0


def _meta(node: dict) -> dict:
    import json

    try:
        meta = json.loads(node.get("meta") or "{}")
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def _show_mined(args, v: _View, node: dict) -> int:
    """A mined ``fix``/``change`` node: experience derived from the history, not an agent's note."""
    from stratum import notes as N

    meta = _meta(node)
    sha = str(meta.get("sha") or "")
    when = str(meta.get("time") or (node["created_at"].isoformat() if node.get("created_at") else ""))
    files = [{"path": t.get("path") or "", "node_id": t.get("node_id") or "",
              "exists": v.code is None or (t.get("node_id") or "") in v.code}
             for t in meta.get("about") or [] if isinstance(t, dict)]
    text = N.clean_text(node.get("doc") or node.get("name") or "").strip()
    author = N.clean_text(str(meta.get("commit_author") or ""))
    also = [str(c) for c in meta.get("commits") or [] if str(c) != sha]     # a backport's copies, same text
    out = {"id": node["id"], "kind": node["kind"], "mined": True, "trust": "mined", "also_commits": also,
           "subject": N.clean_text(node.get("name") or ""), "text": text, "commit": sha,
           "commit_author": author, "date": when, "committed_at": when, "files": files,
           "provenance": {"source": "mined", "author": "history", "authenticated": False, "model": "",
                          "session": "", "commit": sha, "written_at": when}}
    lines = [one_line(f"{node['id']}  {node['kind']}  mined from the history (not an agent's note)"),
             # the date is the commit's (the committer's): a commit applied years after it was written
             # read as written then, beside its author's name (`git show` prints the author's date)
             one_line(f"commit {sha[:12] or '-'}" + (f" by {author_words(author)}" if author else "") +
                      (f", committed {when}" if when else "")),
             *([one_line("also in " + ", ".join(c[:12] for c in also) + " (the same change, backported)")]
               if also else []),
             "", quoted(text), "", "files:"]
    lines += ["  " + one_line(f["path"]) + ("" if f["exists"] else "  (gone from the published code)")
              for f in files] or ["  -"]
    lines.append("re-derived from the history at every index: it cannot be retracted or confirmed"
                 + (f"; `git show {sha[:12]}` shows the commit" if sha else ""))
    emit(args, out, "\n".join(lines))
    return 0


def _retract(args) -> int:
    from stratum import notes as N
    from stratum.errors import InvalidArgument
    from stratum.identity import current

    if (args.claimed or args.proven) and args.all_by is None:
        raise InvalidArgument("--claimed and --proven choose whose notes --all-by NAME retracts: give --all-by")
    if (args.id is None) == (args.all_by is None):
        raise InvalidArgument("give a note id or --all-by NAME (one of the two)")
    v = _View(_store(args), writing=True)
    if args.all_by is not None:
        return _retract_all(args, v)
    n = v.get(args.id, "retract")
    me = current()      # a retracted note is refused by the library, as on every adapter
    uid = N.retract_once(v.log, n.id, notes_now=v.notes_now, author=me.name, reason=args.reason,
                         maintainer=me.is_maintainer)
    emit(args, {"retracted": n.id, "record": uid, "by": me.name},
         f"retracted {n.id} as {me.name} (tombstone {uid}); it stops ranking now and is marked retracted "
         "at the next index")
    return 0


def _retract_all(args, v: "_View") -> int:
    """Every note by ``--all-by`` not retracted yet, one tombstone each: a cleanup after a flood
    (10,000 notes from one identity took 1.5 s a `notes retract` each, about four hours). The notes
    are folded once, not again per note as ``retract_once`` does (10,000 folds of the whole log): a
    retract of one of them by another writer in those seconds may add a second tombstone, which the
    fold reads as one."""
    from stratum import notes as N
    from stratum import notetrust as T
    from stratum.errors import PermissionDenied
    from stratum.identity import current
    from stratum.limits import echo

    me = current()
    known = v.notes_now()
    theirs = [n for n in sorted(known.values(), key=lambda n: n.record_uid)
              if n.author == args.all_by and n.retraction is None]
    proven = _which_identity(args, theirs)
    chosen = [n for n in theirs if T.proven(n) == proven]
    ids = [n.id for n in chosen]
    if not me.is_maintainer and not all(T.same_writer(n, me.name, authenticated=me.authenticated, maintainer=False)
                                        for n in chosen):
        raise PermissionDenied(f"{me.name} may not retract the notes of {echo(args.all_by)!r}"
                               f"{' (proven)' if proven else ' (claimed)'}: only their author or a maintainer may")
    for nid in ids:
        N.write_retract(v.log, nid, known=known, author=me.name, reason=args.reason, maintainer=me.is_maintainer)
    which = "proven" if proven else "claimed"
    emit(args, {"retracted": ids, "author": args.all_by, "proven": proven, "by": me.name},
         f"retracted {len(ids)} note(s) by {echo(args.all_by)} ({which}) as {me.name}" +
         ("; they stop ranking now and are marked retracted at the next index" if ids else ""))
    return 0


def _which_identity(args, theirs: list) -> bool:
    """Whether ``--all-by`` means the identity that proved the name (True) or callers that claimed
    it: two identities, as everywhere else (``notetrust.same_writer``). It retracted both (a probe:
    cleaning up a claimed "agent-a"'s flood retracted the token agent-a's notes too). Said by
    --proven / --claimed; else the one kind the name wrote; both kinds without either is refused."""
    from stratum import notetrust as T
    from stratum.errors import InvalidArgument
    from stratum.limits import echo

    if args.proven or args.claimed:
        return bool(args.proven)
    kinds = {T.proven(n) for n in theirs}
    if len(kinds) == 2:
        k = sum(1 for n in theirs if T.proven(n))
        raise InvalidArgument(f"{echo(args.all_by)!r} is two identities here: {len(theirs) - k} note(s) by callers that "
                              f"only claimed the name and {k} by the identity that proved it (a token, mTLS or the "
                              "OS user); say which with --claimed or --proven")
    return kinds.pop() if kinds else False


def _confirm(args) -> int:
    from stratum import notes as N
    from stratum.identity import current

    v = _View(_store(args), writing=True)
    n = v.get(args.id, "confirm")
    me = current()
    uid = N.write_confirm(v.log, n.id, author=me.name, known=v.notes, maintainer=me.is_maintainer)
    if not v.policy.quarantine:
        said = "quarantine is off, so everyone saw it already; the confirmation counts if it is turned on"
    elif n.id not in v.quarantined:
        said = f"it was not awaiting confirmation: everyone saw it already ({n.author}'s notes are trusted)"
    elif n.status == N.ACTIVE:
        said = f"others see it, and {n.author}'s notes, now"
    else:           # superseded or orphaned: it does not rank; its author's notes are released
        said = f"others see {n.author}'s notes now (this one is {n.status})"
    emit(args, {"confirmed": n.id, "record": uid, "by": me.name, "released": n.id in v.quarantined},
         one_line(f"confirmed {n.id} (by {n.author}) as {me.name}: {said}"))
    return 0


def _policy(args) -> int:
    from dataclasses import asdict, replace
    from pathlib import Path

    from stratum.errors import NotFound
    from stratum.notepolicy import NotesPolicy

    root = Path(_store(args))
    if not (root / "manifest.json").exists():
        raise NotFound(f"no store at {root}: index the repository first")
    pol = NotesPolicy.load(root)
    if args.quarantine is not None:
        pol = replace(pol, quarantine=args.quarantine == "on")
        pol.save(root)
    # a server stats the file with each poll of the notes log (at most every 50 ms of reads): the
    # words said it waited for a new version (a probe)
    emit(args, asdict(pol), f"quarantine of new authors: {'on' if pol.quarantine else 'off'} "
         "(running servers apply it within about a second: their next call reads the policy again)")
    return 0


def _store(args) -> str:
    """The store the notes commands read (``local_store``: `notes list` in a worktree said "0 notes"
    of the notes written from it: a probe)."""
    return local_store(getattr(args, "store", None))


__all__ = ["register"]
