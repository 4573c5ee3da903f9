"""The notes overlay: experience notes live the moment they are durable, before any re-index.

A shard is read-only. ``remember`` appends to the shard's delta log (acknowledged only once durable)
and this overlay, kept in RAM on top of the shard, makes the note searchable (an incremental
vector + keyword index, ``noteindex``), reachable by ``walk`` from the code it is about, and shown
by ``get``. It also tails the log for notes written by other server processes sharing the store,
and folds retracts, confirms and supersedes (also of notes already merged into the published
version) so withdrawn notes stop ranking.

Notes are data, not instructions: every note item carries its provenance and a trust marker
(``annotate``), its text cleaned of control characters. Superseding or retracting another
identity's note needs the maintainer role. Under the store's quarantine policy
(``NotesPolicy``, default off) a note by an author new to the store is seen only by its author
(``identity.reader``: the session's author) until another identity or a maintainer confirms it;
to everyone else it is absent, merged or not: an item built of it anyway says nothing of its text.

A note's vector is computed in ``remember`` outside every lock and stored in its log record, so a
restarted server reads vectors instead of re-embedding; notes without one (older records, or
written with no embedder) are embedded on a background thread and rank by keyword until then.
"""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Callable, Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stratum import identity, ids
from stratum import notenodes
from stratum import notes as N
from stratum import schema as S
from stratum.branchnotes import NoteScope, OnDefault, about_ids, merged_in, pending, served_branch, served_of
from stratum.deltalog import DeltaLog, in_store
from stratum.envelope import Item
from stratum.errors import ModelUnavailable, NotFound
from stratum.limits import echo
from stratum.notedocs import NoteNodes, embed_fields, fields_of, index_text
from stratum.noteitems import NoteItems
from stratum.noteindex import NoteIndex
from stratum.notepolicy import NotesPolicy, PolicyFile
from stratum.notethreads import background, searching, stop_requested, yield_to_searches
from stratum.notevectors import decode_vector, encode_vector
from stratum.noteview import NoteView
from stratum.rankinfos import RankInfos
from stratum.textprep import embed_text

EMBED_BATCH = 64
WARM_INLINE = 64            # newly indexed notes whose ranking facts the syncing search computes itself
WARM_BATCH = 8              # the rest: this many per step on a background thread (~0.6 ms), then a pause
WARM_PAUSE_S = 0.001
WARM_YIELD_S = 0.02         # the longest it waits for running searches before its next note
QUARANTINED = "quarantined"
READ_REFRESH_S = 0.05      # reads see other processes' notes within this long
# remember's write locks, by author, kind and text: identical notes share one, different ones rarely,
# so their appends still share a log sync (one lock for all: 8 threads' notes 0.35 -> 0.53 ms each)
WRITE_STRIPES = 64


def vector_key(embedder) -> str | None:
    """The embedder's cache key, without loading a lazy model (a restart must not wait for it)."""
    if embedder is None:
        return None
    cfg = getattr(embedder, "cfg", None)
    if cfg is not None:
        from stratum.embedder import cache_key_for

        return cache_key_for(cfg)
    return getattr(embedder, "cache_key", None)


class NotesOverlay:
    def __init__(self, shard, embedder=None, log: DeltaLog | None = None, policy: NotesPolicy | None = None):
        """``log``: the writer of the overlay this one replaces (a reload keeps writing to the same
        segment; a new DeltaLog would leave the old one's segment open and locked for good)."""
        self._held, self._shard = shard, weakref.ref(shard)      # see ``shard`` and ``loosen``
        self._repo, self._commit = shard.repo, shard.manifest.indexed_commit
        self._branch = served_branch(shard.manifest)         # a note written on the indexed version records it
        # embed with the shard's query embedder: the one checked against (or following) the store's
        # model; none when the version has no vectors (nothing would ever read a note's vector)
        self.embedder = shard.warm.searcher.embedder if embedder is not None else None
        # every note write (each surface's remember, retract, confirm) first checks the store is there
        self.log = log if log is not None else DeltaLog(shard.store.root / "deltalog",
                                                        guard=in_store(shard.store.root, shard.store.manifest))
        self._policy_file: PolicyFile | None = None          # a policy given by the caller is not re-read
        if policy is None:
            self._policy_file = PolicyFile(shard.store.root)
            policy = self._policy_file.policy
        self.policy = policy
        self.code = shard.code                               # the one resolver (stratum.codelookup)
        self.judge = OnDefault(self.code, merged_in(shard), served=served_of(shard.manifest))   # what a note says of its code here
        self.items = NoteItems(self)                         # its notes as items say them (``noteitems``)
        self._merged = set(shard.manifest.deltalog_merged)
        is_note = pc.is_in(shard.col("kind").array, pa.array(list(S.NOTE_KINDS))).fill_null(False)
        note_rows = np.flatnonzero(np.asarray(is_note.to_numpy(zero_copy_only=False), bool))
        self._base_rows = dict(zip(shard.col("id").array.take(pa.array(note_rows)).to_pylist(), note_rows.tolist()))
        base = shard.rows(note_rows)
        agent = [i for i, rec in enumerate(base) if rec["kind"] in S.AGENT_NOTE_KINDS]
        for i, doc in zip(agent, shard.docs([note_rows[i] for i in agent])):
            base[i]["doc"] = doc            # a note's text: the warm columns leave it out
        self._base = notenodes.notes_from_nodes(base)
        self._lock = threading.RLock()
        self._write_locks = tuple(threading.Lock() for _ in range(WRITE_STRIPES))   # see remember_or_found
        self._folded = False                                 # the first fold has run
        self._logged: dict[str, N.Note] = {}                # note id -> note parsed from its record
        self._others: list = []                              # records other than notes (retracts, confirms)
        self._other_uids: set[str] = set()                   # theirs: a segment read again (repair) adds none twice
        self.notes: dict[str, N.Note] = dict(self._base)   # every note, folded, with current status
        # (the notes dict it describes, (author, kind, text) -> its notes): what ``remember`` looks
        # a copy up in (a pass over every note was ~2.6 ms a remember at 10,000 notes)
        self._same: tuple[dict | None, dict[tuple[str, str, str], list[N.Note]]] = (None, {})
        self.quarantined: frozenset[str] = frozenset()      # note ids hidden from all but their author
        self._trusted: set[tuple[str, bool]] = set()         # (author, authenticated) no longer new here
        self._nodes = NoteNodes({}, {}, shard.repo, {})        # unmerged note id -> node record
        self._about: dict[str, list[str]] = {}               # code id -> unmerged note ids about it (and
                                                             # merged ones about code only a branch has)
        # the key and size of the vectors it makes: the embedder it embeds with, not the one given
        # (a server's follows the store it opened first; after a re-index switched the model, its
        # notes were labelled with the old model's key and other processes re-embedded them: a probe)
        self._key = vector_key(self.embedder)
        self._dim = int(getattr(self.embedder, "dim", S.EMBED_DIM) or S.EMBED_DIM)
        self._stored_vectors: dict[str, dict] = {}           # record bodies with a vector, until indexed
        # notes whose index entry is not current, in fold (log) order: a note's slot in the index is
        # the order it is added in, and slots break ties, so a set's hash order made a restarted
        # server order tied notes differently (PYTHONHASHSEED)
        self._index_todo: dict[str, None] = {}
        self.index = NoteIndex(self._dim)
        self.rank_infos = RankInfos(self)                   # rank.NoteInfo of unmerged notes, cached
        self._embedding = False                              # a background embedding thread runs
        self._embed_failed = False                           # the model could not load: not retried per search
        self._tail = self.log.tail()
        self._polled_at = 0.0
        self._writes = _writes_of(self.log)
        self._seen_writes = -1
        self.refresh()

    @property
    def shard(self):
        """The version this overlay folds the notes against: its merged notes are that version's rows,
        the others this overlay's, and their staleness is judged against its code."""
        return self._held if self._held is not None else self._shard()

    def loosen(self) -> None:
        """Stop holding the shard: the overlay of a version a reload replaced (``Memory.overlay``),
        kept for the calls still holding that version (``ShardSet.pinned``), lives as long as they
        hold it, not beside every later version."""
        self._held = None

    @property
    def records(self) -> int:
        """How many log records this overlay has folded: it grows with every note, retract and
        confirm it reads (a search's page token carries the sum, so a later page can say the
        notes moved under it)."""
        return len(self._logged) + len(self._others)

    # ---- log ------------------------------------------------------------------------------
    def _read_refresh(self) -> None:
        """``refresh`` for reads, at most every READ_REFRESH_S: one search asks several times (the
        note list, then each note hit), and each poll lists and stats the log's segments (0.3 ms
        on a loaded machine). Another process's note is therefore seen within that interval; this
        process's own writes refresh at once, also those of another version's overlay (a call that
        straddled a reload: ``_LogWrites``)."""
        if time.monotonic() - self._polled_at >= READ_REFRESH_S or self.behind():
            self.refresh()

    def behind(self) -> bool:
        """Whether an overlay sharing this one's log writer appended since this one last polled."""
        return self._writes.n != self._seen_writes

    def refresh(self) -> None:
        """Read what other writers appended since the last call and re-fold.

        Poll and fold under one lock: a thread that polled records must have folded them before
        another thread, finding nothing new, answers from the notes (else a concurrent
        ``remember`` could miss its own note), and the tail's offsets are not thread-safe."""
        with self._lock:
            self._polled_at, self._seen_writes = time.monotonic(), self._writes.n
            self._reread_policy()
            rep = self._tail.poll()
            new = [r for r in rep.records if r.uid not in self._merged]
            if not new and self._folded:
                return
            added = []
            bulk = len(new) > 1000 and gc.isenabled()
            if bulk:        # a restart's backlog: cyclic GC passes over the growing heap cost ~40%
                gc.disable()
            try:
                for r in new:                    # parse each logged note once, not on every fold
                    if r.type == "note":
                        nid = ids.note_id(r.uid)
                        if nid not in self._logged:
                            self._logged[nid] = N.note_from_body(r.uid, r.body)
                            if r.body.get("vector"):
                                self._stored_vectors[nid] = r.body      # decoded when indexed
                            added.append(nid)
                    else:
                        if r.uid not in self._other_uids:
                            self._other_uids.add(r.uid)
                            self._others.append(r)
            finally:
                if bulk:
                    gc.enable()
            if self._folded and len(added) == len(new) and self._plain(added):
                # only new notes that supersede nothing and that no retract or confirm names: the
                # other notes keep their state, so only the new ones are built (a full fold copies
                # every note: ~0.5 s at 27k notes)
                old, notes = self.notes, dict(self.notes)
                for nid in added:
                    notes.setdefault(nid, N.fold([], {nid: self._logged[nid]})[nid])
                of, same = self._same
                if of is old:               # the others keep their state: only the new ones join
                    for nid in added:       # (in place, a new list per key: a reader never sees one change)
                        n = notes[nid]
                        key = (n.author, n.kind, n.text)
                        same[key] = [*same.get(key, ()), n]
                    self._same = (notes, same)
                self.notes = notes
                self._rebuild(only=added)
            else:
                # the same fold as over all records (fold copies its base), at O(retracts) parsing
                self.notes = N.fold(self._others, {**self._logged, **self._base})
                self._same = (None, {})     # rebuilt on the next look-up (not the old notes kept alive)
                self._rebuild()
            self._folded = True

    def _reread_policy(self) -> None:
        """A policy file changed since (``notepolicy.PolicyFile``) re-folds every note at the next
        fold, so who waits is decided again."""
        policy = self._policy_file.changed() if self._policy_file is not None else None
        if policy is not None and policy != self.policy:
            self.policy = policy
            if not policy.quarantine:
                self.quarantined = frozenset()
            self._folded = False            # the next fold is a full one

    def _plain(self, added: list[str]) -> bool:
        named = {o.body.get("note") for o in self._others}
        return not any(self._logged[nid].supersedes or nid in named for nid in added) and \
            not (self.policy.quarantine and any(self._logged[nid].maintainer for nid in added))

    def _rebuild(self, only: list[str] | None = None) -> None:
        """The unmerged notes' node map, ``about`` map and index state, built aside and swapped in
        whole (readers do not take the lock, so they never see a half-built map). Node records are
        built on first read and reused while a note's state holds (``notedocs.NoteNodes``): building and
        token-counting every note up front made a restart with 10,000 notes take tens of seconds,
        and re-counting on every write made each ``remember`` cost O(notes)."""
        self._update_quarantine(only)
        if only is None:
            state, about, todo = {}, {}, self.notes
        else:
            state, about = dict(self._nodes.state), dict(self._about)
            todo = {nid: self.notes[nid] for nid in only}
        for nid, note in todo.items():
            if nid in self._base_rows:      # merged: its about edges are the shard's, but branch code has none
                for t in pending(note, self.code.__contains__) if only is None else ():
                    about.setdefault(t.node_id, []).append(nid)
                continue
            state[nid] = (nid, note.status, tuple(note.superseded_by), (note.retraction or {}).get("uid"))
            for t in note.about:
                if only is None:
                    about.setdefault(t.node_id, []).append(nid)
                else:       # copy on write: readers may hold the current lists
                    about[t.node_id] = about.get(t.node_id, []) + [nid]
            self._index_todo[nid] = None
        built = self._nodes.built
        if only is None:        # forget records of states no note is in any more
            keep = set(state.values())
            built = {k: v for k, v in built.items() if k in keep}
        self._nodes, self._about = NoteNodes(state, self.notes, self._repo, built), about

    def _update_quarantine(self, only: list[str] | None) -> None:
        """Which notes wait for a confirmation. A full fold recomputes who is trusted; new plain
        notes (no maintainer wrote them, nothing confirms them yet) wait unless their author is."""
        if not self.policy.quarantine:
            return
        if only is None:
            self._trusted = N.trusted_authors(self.notes)
            self.quarantined = frozenset(nid for nid, n in self.notes.items() if N.is_quarantined(n, self._trusted))
        else:
            self.quarantined = self.quarantined | {nid for nid in only if N.is_quarantined(self.notes[nid], self._trusted)}

    def _sync_index(self) -> None:
        """Bring the note index up to date with the fold: new notes tokenised and their stored
        vectors decoded, status and quarantine of changed ones. Done when a search needs it, not
        at every fold: a process that only writes (a CLI ``remember``) never pays for it."""
        todo: dict[str, None] = {}
        if self._index_todo:
            with self._lock, self.index.deferred():
                todo, self._index_todo = self._index_todo, {}
                for nid in todo:
                    note = self.notes[nid]
                    active = note.status == N.ACTIVE
                    if nid not in self.index:
                        body = self._stored_vectors.pop(nid, None)
                        vec = decode_vector(body, self._key, self._dim) if body is not None else None
                        self.index.add(nid, index_text(note), note.kind, note.about[0].path if note.about else "",
                                       (note.author, note.authenticated), vec, active=active)
                    self.index.set_state(nid, active=active, hidden=nid in self.quarantined)
        if todo:
            self._warm_ranking(todo)
        self._embed_missing()

    def _warm_ranking(self, todo: Iterable[str]) -> None:
        """Compute newly indexed notes' ranking facts (record, targets, staleness) as a search
        would on its first touch of each, ahead of it: ~60 notes of 10,000 a search at ~70 us
        each made a server's first queries ~15 ms (3 ms once every note had been seen). A few
        notes now, the rest on a background thread a few at a time (10,000 are ~0.7 s of work:
        in one search it stalled that search and every other thread's)."""
        ids = sorted(todo)
        for nid in ids[:WARM_INLINE]:
            self.rank_infos.get(nid)
        rest = ids[WARM_INLINE:]
        if not rest:
            return

        def run():
            for i, nid in enumerate(rest, 1):
                held = self.shard       # None: a replaced version no call holds any more (held for the step)
                if stop_requested() or held is None:
                    return
                self.rank_infos.get(nid)          # as this thread's identity sees it; a note it may not see is left
                if i % WARM_BATCH == 0 or searching.n:
                    # a search waiting for the GIL gets it here; beside a running search one note
                    # a step, after waiting up to WARM_YIELD_S for it (a busy server still gets there)
                    yield_to_searches(WARM_PAUSE_S, WARM_YIELD_S)

        background(run, name="stratum-note-warm")

    def _embed_missing(self) -> None:
        """Embed indexed notes that came without a vector, on one background thread, in batches
        (outside the overlay's lock: writers and readers never wait for the model)."""
        if self.embedder is None or self._embedding or self._embed_failed or not self.index.missing_vectors():
            return
        self._embedding = True

        def run():
            # one thread of the model (LazyEmbedder.background): searches keep the other cores
            bg = self.embedder.background() if hasattr(self.embedder, "background") else self.embedder
            try:
                while not stop_requested():
                    todo = self.index.missing_vectors()[:EMBED_BATCH]
                    todo = [n for n in todo if n in self.notes]
                    if not todo:
                        return
                    vecs = bg.embed([embed_text(embed_fields(self.notes[n])) for n in todo])
                    for nid, v in zip(todo, vecs):
                        self.index.set_vector(nid, np.asarray(v, np.float32))
            except ModelUnavailable:
                self._embed_failed = True   # keyword search still finds them; a reload's overlay retries
                return
            finally:
                self._embedding = False

        background(run, name="stratum-note-embed")

    def wait_embedded(self, timeout: float = 60.0) -> bool:
        """Block until background embedding is done (tests, benchmarks)."""
        end = time.monotonic() + timeout
        while self._embedding and time.monotonic() < end:
            time.sleep(0.01)
        return not self._embedding

    # ---- writes ---------------------------------------------------------------------------
    def remember(self, *, kind: str, text: str, about: list[str], tags: list[str], supersedes: list[str],
                 author: str, session: str, model: str = "", authenticated: bool = False,
                 scope: NoteScope | None = None) -> str:
        """The note's id (``remember_or_found``'s, without saying which)."""
        return self.remember_or_found(kind=kind, text=text, about=about, tags=tags, supersedes=supersedes,
                                      author=author, session=session, model=model, authenticated=authenticated,
                                      scope=scope)[0]

    def remember_or_found(self, *, kind: str, text: str, about: list[str], tags: list[str], supersedes: list[str],
                          author: str, session: str, model: str = "", authenticated: bool = False,
                          scope: NoteScope | None = None, explain: Callable[[str], str] | None = None
                          ) -> tuple[str, bool]:
        """Write a note: (its id, True); or (the id of an identical active note of this identity's:
        ``author`` proven as ``authenticated`` says, False), writing nothing (``notes.identical``: a
        retried or repeated write).

        Once, whoever races: identical writes at the same moment (a retry racing the write it retries,
        each on a server thread) leave one note; the check is repeated under a write lock, right
        before the append (the embedding stays outside it), and across processes (each has its
        own log segment) under the log's lock of that note (``DeltaLog.exclusive``).

        ``author``/``authenticated`` come from the caller's identity (the tools pass them), never
        from a request field; ``model`` is self-reported and recorded as such. Superseding
        another author's note needs the caller (``identity.current()``) to be a maintainer.
        ``scope``: a session on a branch, commit or worktree (``BranchView.note_scope``): targets
        resolve through its code, branch-only ones recorded as pending (``stratum.branchnotes``), the note
        recording its branch unless that is the default branch (``NoteScope.recorded``); none:
        the note records the branch the version was indexed from, if not the default (``served_branch``).
        ``explain``: why a target is unknown (``Memory.unindexed``: a file committed after the index)."""
        resolve = scope.resolver(self.code) if scope is not None else self.code.resolve
        if scope is not None and explain is None:       # a target the branch changed or deleted: said so
            explain = scope.explain(self.code)
        ident = identity.current()
        # the maintainer role is the identity's: a note under another, claimed name (the local
        # CLI's --author) does not carry it (else any label became a trusted author under quarantine)
        maintainer = ident.is_maintainer and (ident.authenticated or author == ident.name)
        branch = scope.recorded if scope is not None else self._branch    # the default branch's: none
        # a note the caller may not see is no note to supersede (not "written by ...": that told a
        # stranger it exists and who wrote it); a maintainer may, as they may retract it
        targets = N.validate(kind, text, about, author, resolve=resolve, session=session, tags=tags,
                             supersedes=supersedes, explain=explain, note_exists=lambda nid: self.exists(nid) and (
                                 maintainer or self.visible(nid)))
        checked = self.notes
        # the same identity's (a claimed "erin" was handed the token erin's quarantined note: a probe)
        same = N.identical(self._same_text(checked, author, kind, text), kind, text, targets, author, tags=tags,
                           supersedes=supersedes, branch=branch, authenticated=authenticated, maintainer=maintainer)
        if same is not None:
            return same.id, False
        extra = None
        if self.embedder is not None and self._key is not None:   # a keyless vector is never read back
            # embedded here, before the append and outside every lock: concurrent writers overlap
            fields = fields_of(kind, targets[0].path if targets else "", tags, text)
            try:
                extra = encode_vector(np.asarray(self.embedder.embed([embed_text(fields)])[0]), self._key)
            except ModelUnavailable:
                extra = None
        # check again and append as one step: a copy another thread wrote while this one embedded
        # is found (unchanged ``notes`` need no second pass: a fold replaces the dict, never edits it)
        key = f"{author}\0{kind}\0{N.clean_text(text)}"
        # then across processes (replicas serving one store; a retry may reach another one): the
        # same check and append, under the log's lock of that key
        with self._write_locks[hash(key) % WRITE_STRIPES], self.log.exclusive(key):
            self.refresh()
            if self.notes is not checked:
                same = N.identical(self._same_text(self.notes, author, kind, text), kind, text, targets, author,
                                   tags=tags, supersedes=supersedes, branch=branch, authenticated=authenticated,
                                   maintainer=maintainer)
                if same is not None:
                    return same.id, False
            note = N.append_note(self.log, kind, text, targets, author, session=session, tags=tags,
                                 supersedes=supersedes, known=self.notes, model=model, authenticated=authenticated,
                                 commit=scope.commit if scope is not None else self._commit,
                                 maintainer=maintainer, extra=extra, branch=branch)
        self._wrote()           # the record is durable: folded for the caller (the next writer refreshes in its lock)
        return note.id, True

    def _same_text(self, notes: dict[str, N.Note], author: str, kind: str, text: str) -> dict[str, N.Note]:
        """The notes of ``notes`` by ``author`` of ``kind`` whose stored text is ``text`` cleaned:
        the only ones ``notes.identical`` can return. Its map is built after a fold that re-folds
        every note (the first, a retract, supersede or confirm), and extended by the plain ones."""
        of, same = self._same
        if of is not notes:
            same = {}
            for n in notes.values():
                same.setdefault((n.author, n.kind, n.text), []).append(n)
            if notes is self.notes:     # not a reader's older dict over a pair refresh just extended
                self._same = (notes, same)
        return {n.id: n for n in same.get((author, kind, N.clean_text(text)), ())}

    def retract(self, note_id: str, *, author: str, reason: str = "", session: str | None = None) -> str:
        """Withdraw a note (a tombstone, once: ``notes.retract_once``); another author's note needs
        the maintainer role. A quarantined note the caller may not see is NotFound, as an unknown id
        (a maintainer reaches it)."""
        ident = identity.current()
        if not ident.is_maintainer and not self.visible(note_id):
            raise no_such_note(note_id)

        def notes_now() -> dict[str, N.Note]:
            self.refresh()          # another replica's (or the CLI's) retract of it counts
            return self.notes

        uid = N.retract_once(self.log, note_id, notes_now=notes_now, author=author, reason=reason, session=session,
                             maintainer=ident.is_maintainer, authenticated=ident.authenticated)
        self._wrote()
        return uid

    def confirm(self, note_id: str, *, author: str) -> str:
        """Confirm another identity's note (releases it, and its author, from quarantine)."""
        me = identity.current()     # an anonymous confirm is refused under quarantine, else kept as unproven
        uid = N.write_confirm(self.log, note_id, author=author, known=self.notes, maintainer=me.is_maintainer,
                              proven=me.method != "anonymous", refuse_unproven=self.policy.quarantine)
        self._wrote()
        return uid

    def _wrote(self) -> None:
        """After an append: folded here at once, and by every overlay sharing the log writer at its next read."""
        self._writes.bump()
        self.refresh()

    # ---- reads ----------------------------------------------------------------------------
    def exists(self, note_id: str) -> bool:
        return note_id in self.notes

    def count(self) -> int:
        return len(self._nodes)

    def visible(self, note_id: str, viewer: str | None = None) -> bool:
        """Quarantined notes are seen by their author only: the reader (``identity.reader``, the
        session's author, by name and whether proven: a claimed "ci" on an open server is not the
        token's ci), or ``viewer``, an author's name."""
        if note_id not in self.quarantined:
            return True
        n = self.notes.get(note_id)
        if n is None:
            return False
        return n.author == viewer if viewer is not None else (n.author, n.authenticated) == identity.reader()

    def status_of(self, note_id: str) -> str | None:
        """The note's status; "quarantined" when the reader may not see it yet (readers of merged
        rows drop it as they drop a withdrawn note)."""
        n = self.notes.get(note_id)
        if n is None:
            return None
        return n.status if self.visible(note_id) else QUARANTINED

    def get(self, note_id: str, viewer: str | None = None) -> dict | None:
        """An unmerged note's node record (merged notes are ordinary shard rows); None when there
        is none or the current caller (``viewer``: this author) may not see it."""
        self._read_refresh()
        node = self._nodes.get(note_id)
        return node if node is not None and self.visible(note_id, viewer) else None

    def search_docs(self) -> NoteView:
        """Active unmerged notes the current caller may see, as a view of the incremental index
        (``HybridSearcher.search(extra_docs=...)`` merges its top-k into each list)."""
        self._read_refresh()
        self._sync_index()
        return self.index.view(identity.reader())

    def notes_about(self, code_id: str, *, refresh: bool = True) -> list[dict]:
        """``refresh=False``: the caller refreshed once for a whole answer (one log poll, not one per item)."""
        if refresh:
            self._read_refresh()
        return [self._nodes[n] if n in self._nodes else notenodes.note_to_records(self.notes[n], self._repo)[0]
                for n in self._about.get(code_id, []) if self.visible(n)]

    def about_ids(self, node: dict) -> list[str]:
        return about_ids(node.get("meta"))

    def in_version(self, note_id: str) -> bool:
        """Whether the note is a row of this overlay's version (merged by its index)."""
        return note_id in self._base_rows

    def item(self, node: dict, level: str) -> Item:
        return self.items.item(node, level)

    def annotate(self, it: Item, rec: dict) -> None:
        self.items.annotate(it, rec)

    def rejudge(self, it: Item, judge: Callable[[N.Note], list[str]]) -> None:
        self.items.rejudge(it, judge)


class _LogWrites:
    """How many records this process appended through one log writer, for every overlay sharing it
    (a version's, and the one a reload replaced, which calls still holding that version read): a
    note written in a call that straddled a reload is seen by the next call at once, as any of this
    process's own writes, not within ``READ_REFRESH_S``."""

    def __init__(self) -> None:
        self.n, self._lock = 0, threading.Lock()

    def bump(self) -> None:
        with self._lock:
            self.n += 1


_WRITES: "weakref.WeakKeyDictionary[DeltaLog, _LogWrites]" = weakref.WeakKeyDictionary()
_WRITES_LOCK = threading.Lock()


def _writes_of(log: DeltaLog) -> _LogWrites:
    with _WRITES_LOCK:
        w = _WRITES.get(log)
        if w is None:
            w = _WRITES[log] = _LogWrites()
        return w


def no_such_note(note_id: str) -> NotFound:
    """What a caller hears of a note id it cannot reach: an unknown one, or another author's
    quarantined note (the same words: neither its existence nor its author is said)."""
    return NotFound(f"no note {echo(note_id)!r}: `stratum notes list` shows their ids")


__all__ = ["NotesOverlay", "RankInfos", "vector_key", "no_such_note", "QUARANTINED"]
