"""An unmerged note as the documents the overlay indexes and serves: its node record (built on
first read, as a merge will write it), the text it is keyword-searched by and the fields embedded.

Why apart from ``stratum.overlay``: these say what a note *is* to the index, the same before and
after a merge (a merge must not move a note), while the overlay decides when to fold, index and
show notes.
"""

from __future__ import annotations

from collections.abc import Mapping

from stratum import notenodes
from stratum import notes as N
from stratum.codetokens import node_text


class NoteNodes(Mapping):
    """Unmerged note id -> its node record (``notes.note_to_records``), built on first read and
    cached per note state (id, status, superseded_by, retraction) in ``built``."""

    def __init__(self, state: dict[str, tuple], notes: dict, repo: str, built: dict):
        self.state, self._notes, self._repo, self.built = state, notes, repo, built

    def __getitem__(self, nid: str) -> dict:
        key = self.state[nid]
        recs = self.built.get(key)
        if recs is None:
            recs = self.built[key] = notenodes.note_to_records(self._notes[nid], self._repo, lazy_tokens=True)
        return recs[0]

    def __iter__(self):
        return iter(self.state)

    def __len__(self) -> int:
        return len(self.state)

    def __contains__(self, nid: object) -> bool:
        return nid in self.state


def index_text(note: N.Note) -> str:
    """What an unmerged note is keyword-searched by: ``codetokens.node_text`` of the fields its
    merged node will have (path, title, text, tags), so a merge does not move it."""
    return node_text({"kind": note.kind, "path": note.about[0].path if note.about else "",
                      "name": N.clean_text(note.title(80)), "doc": N.clean_text(note.text), "tags": note.tags})


def embed_fields(note: N.Note) -> dict:
    """The fields ``textprep.embed_text`` reads for a note (the same as its node record's)."""
    return fields_of(note.kind, note.about[0].path if note.about else "", note.tags, note.text)


def fields_of(kind: str, path: str, tags, text: str) -> dict:
    """``embed_fields`` before the note exists (``remember`` embeds first, then appends): one rule,
    so a record's vector is what a merge would embed (``pipeline.embedreuse.log_vectors``)."""
    return {"kind": kind, "path": path, "tags": list(tags), "doc": N.clean_text(text)}


__all__ = ["NoteNodes", "index_text", "embed_fields", "fields_of"]
