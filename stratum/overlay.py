"""The notes overlay: experience notes live the moment they are durable, before any re-index.

A shard is read-only. ``remember`` appends to the shard's delta log (acknowledged only once durable)
and this overlay, kept in RAM on top of the shard, makes the note searchable (keyword and vector),
reachable by ``walk`` from the code it is about, and shown by ``get``. It also tails the log for
notes written by other server processes sharing the store, and folds retracts and supersedes
(also of notes already merged into the published version) so withdrawn notes stop ranking.
Every item that carries a note says when the code it is about has changed or gone since.
"""

from __future__ import annotations

import json
import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stratum import ids
from stratum import notes as N
from stratum import schema as S
from stratum.deltalog import DeltaLog
from stratum.envelope import Item


class NotesOverlay:
    def __init__(self, shard, embedder=None, log: DeltaLog | None = None):
        """``log``: the writer of the overlay this one replaces (a reload keeps writing to the same
        segment; a new DeltaLog would leave the old one's segment open and locked for good)."""
        self.shard = shard
        self.embedder = embedder
        self.log = log if log is not None else DeltaLog(shard.store.root / "deltalog")
        self.code = ShardCode(shard)
        self._merged = set(shard.manifest.deltalog_merged)
        is_note = pc.is_in(shard.col("kind").array, pa.array(list(S.NOTE_KINDS))).fill_null(False)
        note_rows = np.flatnonzero(np.asarray(is_note.to_numpy(zero_copy_only=False), bool))
        self._base_rows = dict(zip(shard.col("id").array.take(pa.array(note_rows)).to_pylist(), note_rows.tolist()))
        self._base = N.notes_from_nodes(shard.rows(note_rows))
        self._lock = threading.RLock()
        self._records: list = []
        self._folded = False                                 # the first fold has run
        self._logged: dict[str, N.Note] = {}                # note id -> note parsed from its record
        self._others: list = []                              # records other than notes (retracts)
        self.notes: dict[str, N.Note] = dict(self._base)   # every note, folded, with current status
        self._nodes: dict[str, dict] = {}                   # unmerged note id -> node record
        self._vectors: dict[str, np.ndarray] = {}
        self._about: dict[str, list[str]] = {}               # code id -> unmerged note ids about it
        self._built: dict[tuple, tuple] = {}                 # (id, status state) -> note_to_records
        self._tail = self.log.tail()
        self.refresh()

    # ---- log ------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Read what other writers appended since the last call and re-fold.

        Poll and fold under one lock: a thread that polled records must have folded them before
        another thread, finding nothing new, answers from the notes (else a concurrent
        ``remember`` could miss its own note), and the tail's offsets are not thread-safe."""
        with self._lock:
            rep = self._tail.poll()
            new = [r for r in rep.records if r.uid not in self._merged]
            if not new and self._folded:
                return
            self._records.extend(new)
            added = []
            for r in new:                    # parse each logged note once, not on every fold
                if r.type == "note":
                    nid = ids.note_id(r.uid)
                    if nid not in self._logged:
                        self._logged[nid] = N.note_from_body(r.uid, r.body)
                        added.append(nid)
                else:
                    self._others.append(r)
            if self._folded and len(added) == len(new) and self._plain(added):
                # only new notes that supersede nothing and no retract names: nothing else changes,
                # so skip the full fold (it copies every note: ~0.5 s at 27k notes)
                notes = dict(self.notes)
                for nid in added:
                    notes.setdefault(nid, N.fold([], {nid: self._logged[nid]})[nid])
                self.notes = notes
            else:
                # the same fold as over all records (fold copies its base), at O(retracts) parsing
                self.notes = N.fold(self._others, {**self._logged, **self._base})
            self._folded = True
            self._rebuild()

    def _plain(self, added: list[str]) -> bool:
        named = {o.body.get("note") for o in self._others}
        return not any(self._logged[nid].supersedes or nid in named for nid in added)

    def _rebuild(self) -> None:
        """Node records of the unmerged notes, built aside and swapped in whole (readers do not
        take the lock, so they never see a half-built map). A note's records are reused while its
        status is the same: re-counting the tokens of every note on every write made each
        ``remember`` cost O(notes)."""
        nodes, about, cache = {}, {}, {}
        for nid, note in self.notes.items():
            if nid in self._base_rows:
                continue
            key = (nid, note.status, tuple(note.superseded_by), (note.retraction or {}).get("uid"))
            recs = self._built.get(key) or N.note_to_records(note, self.shard.repo)
            cache[key] = recs
            node, edges = recs
            nodes[nid] = node
            for e in edges:
                about.setdefault(e["dst"], []).append(nid)
        missing = [nid for nid in nodes if nid not in self._vectors]
        if missing and self.embedder is not None:
            from stratum.textprep import embed_text

            vecs = self.embedder.embed([embed_text(nodes[n]) for n in missing])
            for nid, v in zip(missing, vecs):
                self._vectors[nid] = np.asarray(v, dtype=np.float32)
        self._built = cache
        self._nodes, self._about = nodes, about

    def remember(self, *, kind: str, text: str, about: list[str], tags: list[str], supersedes: list[str],
                 author: str, session: str, model: str = "", authenticated: bool = False) -> str:
        """``author``/``authenticated`` come from the caller's identity (the tools pass them), never
        from a request field; ``model`` is self-reported and recorded as such."""
        note = N.write_note(self.log, kind, text, about, author, resolve=self.code.resolve, session=session,
                            tags=tags, supersedes=supersedes, note_exists=self.exists, model=model,
                            authenticated=authenticated)
        self.refresh()   # the record is durable, so the tail sees it now
        return note.id

    # ---- reads ----------------------------------------------------------------------------
    def exists(self, note_id: str) -> bool:
        return note_id in self.notes

    def count(self) -> int:
        return len(self._nodes)

    def status_of(self, note_id: str) -> str | None:
        n = self.notes.get(note_id)
        return n.status if n else None

    def get(self, note_id: str) -> dict | None:
        """An unmerged note's node record (merged notes are ordinary shard rows)."""
        self.refresh()
        return self._nodes.get(note_id)

    def search_docs(self) -> list[dict]:
        """Active unmerged notes, for exhaustive search next to the shard's indexes."""
        self.refresh()
        with self._lock:
            return [{"id": nid, "text": n["full"], "vector": self._vectors.get(nid), "kind": n["kind"],
                     "path": n["path"], "language": ""}
                    for nid, n in self._nodes.items() if n["status"] == N.ACTIVE]

    def notes_about(self, code_id: str) -> list[dict]:
        self.refresh()
        return [self._nodes[n] for n in self._about.get(code_id, [])]

    def about_ids(self, node: dict) -> list[str]:
        return [t["node_id"] for t in json.loads(node.get("meta") or "{}").get("about", [])]

    def item(self, node: dict, level: str) -> Item:
        text = node[level] if level != "summary" else node["summary"]
        it = Item(id=node["id"], kind=node["kind"], path=node["path"] or "", name=node["name"] or "",
                  level=level, text=text, tokens=int(node[f"{level}_tokens"] or 0))
        self.annotate(it, node)
        return it

    def annotate(self, it: Item, rec: dict) -> None:
        """Status and staleness of a note item, from the current fold and the served code."""
        note = self.notes.get(rec["id"])
        if note is None:
            return
        it.meta.update(author=note.author, created_at=note.created_at.isoformat(), status=note.status,
                       merged=str(rec["id"] in self._base_rows).lower())
        if note.status != N.ACTIVE:
            it.warnings.append(f"this note is {note.status}")
        st = N.staleness(note, self.code)
        if st:
            it.warnings.append(st["message"])


class ShardCode:
    """The code lookups of ``notes.CodeIndex`` (resolve, hash_of, in) answered from the shard's
    columns and key indexes: a CodeIndex holds a Python object per node, gigabytes at 1M nodes."""

    def __init__(self, shard):
        self.shard = shard

    def _at(self, row: int | None) -> N.Resolved | None:
        if row is None:
            return None
        col = self.shard.col
        kind = col("kind")[row]
        if kind in S.NOTE_KINDS:
            return None
        return N.Resolved(col("id")[row], col("content_hash")[row], col("path")[row] or "",
                          col("qualname")[row] or "", kind or "")

    def resolve(self, target: str) -> N.Resolved | None:
        return self._at(self.shard.resolve(target))

    def hash_of(self, node_id: str) -> str | None:
        r = self._at(self.shard.row_of.get(node_id))
        return r.content_hash if r else None

    def __contains__(self, node_id: object) -> bool:
        return isinstance(node_id, str) and self._at(self.shard.row_of.get(node_id)) is not None

    def __len__(self) -> int:
        return len(self.shard)
