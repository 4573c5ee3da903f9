"""Merge experience notes from the delta log into a new version: note nodes + ``about`` edges.

Pure and idempotent: note ids derive from log record ids, so merging the same records again (or
records whose notes the previous version already holds) adds nothing twice. Retracts and
supersedes are applied (``stratum.notes.fold_records``); a note whose code is all gone is kept and
marked orphaned; ``about`` edges point only at code that exists in the new version. A note written
in a branch session about code only that branch had (a *pending* target, ``stratum.branchnotes``)
is kept active and unattached until that code is in the new version; then its target lands (the
branch marks are dropped, the content hash stays the writer's: stale if the code changed since)
and it is attached like any other.

The caller publishes the version, then retires the log segments holding ``merged_record_ids``
(never before: until the publish, the log is the only durable copy of a new note).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

import pyarrow as pa

from stratum import notes as N
from stratum import tokens
from stratum.codelookup import CodeLookup
from stratum.schema import AGENT_NOTE_KINDS


@dataclass
class MergeResult:
    nodes: list[dict]                   # every note node of the new version (schema.NODES records)
    edges: list[dict]                   # their about edges (schema.EDGES records), to existing code only
    merged_record_ids: list[str]        # log record uids reflected in ``nodes`` (notes and retracts)
    new_ids: list[str]                  # note ids not in the previous version
    orphaned: list[str]                 # note ids whose targets are all gone
    pending: list[str] = field(default_factory=list)            # about code only a branch has (not merged yet)
    unknown_retracts: list[str] = field(default_factory=list)   # retract uids naming no known note

    def summary(self) -> dict:
        by_status: dict[str, int] = {}
        for n in self.nodes:
            by_status[n["status"]] = by_status.get(n["status"], 0) + 1
        # "orphaned" is the status's count, as in by_status: a retracted or superseded note whose code
        # is gone too has that status, not orphaned (``orphaned`` above lists every note whose code is gone)
        return {"notes": len(self.nodes), "new": len(self.new_ids), "orphaned": by_status.get(N.ORPHANED, 0),
                "pending": len(self.pending),
                "about_edges": len(self.edges), "records": len(self.merged_record_ids),
                "unknown_retracts": len(self.unknown_retracts), "by_status": by_status}


def merge(prev_nodes, log_records: Iterable, code, *, repo: str | None = None,
          encoding: str = tokens.DEFAULT_ENCODING, prev_encoding: str = tokens.DEFAULT_ENCODING,
          renames: Mapping[str, str] | None = None
          ) -> MergeResult:
    """Notes of the previous version + log records -> the note nodes and edges of the new one.

    ``prev_nodes``: the previous version's nodes (a pyarrow Table or dict records; code nodes
    among them are ignored). ``log_records``: ``stratum.deltalog.Record``s (e.g. ``scan().records``).
    ``code``: the new version's code nodes (Table or dict records) or a ``codelookup.CodeLookup``
    (the resolver the shard and the overlay use, so targets mean the same thing everywhere).
    ``repo``: the repo name written on new note nodes (default: taken from the code nodes).
    ``encoding`` / ``prev_encoding``: token encodings of the new and the previous version (the
    manifests' ``token_encoding``); the previous counts are reused only when they are the same.
    """
    prev_rows = _rows(prev_nodes)
    if repo is None and code is not None and not isinstance(code, CodeLookup):
        rows = _rows(code.select(["repo"]) if isinstance(code, pa.Table) and "repo" in code.column_names
                     else ([] if isinstance(code, pa.Table) else code))
        repo = next((r.get("repo") for r in rows if r.get("repo")), None)
    index = CodeLookup.of(code)
    prev = N.notes_from_nodes(prev_rows)
    prev_node = {r["id"]: r for r in prev_rows if r.get("id") in prev} if prev_encoding == encoding else {}
    if repo is None:
        repo = next((r.get("repo") for r in prev_rows if r.get("kind") in AGENT_NOTE_KINDS and r.get("repo")), "")
    folded = N.fold_records(log_records, prev)
    out_nodes: list[dict] = []
    out_edges: list[dict] = []
    orphaned: list[str] = []
    pending: list[str] = []
    for nid in sorted(folded.notes):
        note = folded.notes[nid]
        if renames:
            _follow_renames(note, index, renames)
        if any(t.pending for t in note.about):
            note.about = [replace(t, branch="", branch_commit="") if t.pending and t.node_id in index else t
                          for t in note.about]          # branch code now indexed: it landed
            if any(t.pending for t in note.about):
                pending.append(nid)
        note.orphaned = N.is_orphaned(note, index.__contains__)
        if note.orphaned:
            orphaned.append(nid)
        node, edges = N.note_to_records(note, repo or "", encoding=encoding, prev=prev_node.get(nid))
        out_nodes.append(node)
        out_edges.extend(e for e in edges if e["dst"] in index)
    return MergeResult(
        nodes=out_nodes, edges=out_edges, merged_record_ids=sorted(set(folded.applied)),
        new_ids=sorted(set(folded.notes) - set(prev)), orphaned=orphaned,
        unknown_retracts=folded.unknown_retracts, pending=pending)


def _follow_renames(note: N.Note, index: CodeLookup, renames: Mapping[str, str]) -> None:
    """A target whose code is gone under its old path follows a rename of its file (or of a folder
    above it) to the same path::qualname at the new place: a `git mv` orphaned every agent note
    on the file while the mined history followed it. Its content hash stays what the writer saw,
    so the note goes stale only if the code itself changed."""
    moved = []
    for t in note.about:
        if t.node_id in index or not t.path:
            moved.append(t)
            continue
        path, hops = t.path, 0
        while hops < 10:                     # a chain of renames, each one followed
            new = renames.get(path) or next((n + path[len(o):] for o, n in renames.items()
                                             if path.startswith(o + "/")), None)
            if new is None or new == path:
                break
            path, hops = new, hops + 1
        r = index.resolve(f"{path}::{t.qualname}" if t.qualname else path) if hops else None
        moved.append(replace(t, node_id=r.node_id, path=r.path) if r is not None else t)
    note.about = moved


def renames_of(file_changes) -> dict[str, str]:
    """old path -> new path of every rename in ``file_changes`` (schema.FILE_CHANGES), later ones last."""
    if file_changes is None or not file_changes.num_rows:
        return {}
    import pyarrow.compute as pc

    r = file_changes.filter(pc.equal(file_changes.column("change_type"), "R"))
    if "committed_at" in r.column_names:
        r = r.sort_by([("committed_at", "ascending")])
    return {o: n for o, n in zip(r.column("old_path").to_pylist(), r.column("path").to_pylist()) if o and n}


def _rows(x) -> list[Mapping]:
    if x is None:
        return []
    if hasattr(x, "to_pylist"):
        return x.to_pylist()
    return list(x)


__all__ = ["merge", "MergeResult", "renames_of"]
