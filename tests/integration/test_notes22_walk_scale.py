"""`walk FILE --edge notes` finds its symbols' withdrawn notes by path (``notedpaths.NotedPaths``), not
by a pass over every unmerged note: beside 200 and beside 10,000 unmerged notes about other files it
lists the same notes, with their status, and the by-path map holds the file's withdrawn note. What
the walk costs is measured in benchmarks/walk_notes_scale.py (3.3 ms -> 1.0 ms at 10,000 notes,
session 22), not asserted here."""

from __future__ import annotations

from pipeline.job import index_repository
from stratum import notes as N
from stratum.config import EmbedConfig, IndexConfig
from stratum.deltalog import DeltaLog
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
FILES = 100


def _append(store, sh, start: int, n: int) -> None:
    """N notes about the other files' functions, as remember writes them (no vectors)."""
    log = DeltaLog(store / "deltalog")
    records, resolved = [], {}
    for i in range(start, start + n):
        about = f"pkg/m{1 + i % (FILES - 1)}.py::f{i % 3}"
        if about not in resolved:
            resolved[about] = N.validate("insight", "x", [about], "bench", resolve=sh.code.resolve)
        targets = resolved[about]
        records.append(("note", N.note_body("insight", f"finding {i}", targets, "bench", session="b",
                                            commit=sh.manifest.indexed_commit)))
    log.append_many(records)
    log.seal()


def _listed(t: Tools, s: str) -> list[tuple[str, str]]:
    return [(i.id, i.meta.get("status", "active")) for i in t.walk(s, "pkg/m0.py", edges=["notes"]).items]


def test_a_files_notes_walk_does_not_pass_over_every_unmerged_note(tmp_path):
    r = Repo(tmp_path / "repo")
    body = "".join(f"def f{j}(x):\n    return x + {j}\n\n\n" for j in range(3))
    r.commit("init", {"pkg/__init__.py": "", **{f"pkg/m{i}.py": body for i in range(FILES)}})
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    t = Tools.open([str(store)], embedder=None)
    try:
        s = t.open_session(author="agent").data["session"]
        old = t.remember(s, "rca", "f0 adds before checking x", ["pkg/m0.py::f0"]).data["note_id"]
        t.remember(s, "rca", "f0 adds before it checks x is a number", ["pkg/m0.py::f0"], supersedes=[old])
        t.remember(s, "insight", "f1 is pure", ["pkg/m0.py::f1"])
        sh = next(iter(t.memory))
        _append(store, sh, 0, 200)
        t.memory.overlay(sh).refresh()
        listed = _listed(t, s)
        _append(store, sh, 200, 9_800)
        t.memory.overlay(sh).refresh()
        listed_many = _listed(t, s)
        noted = t.memory.by_path(sh, t.memory.overlay(sh))
    finally:
        t.close()
    assert sorted(st for _, st in listed) == ["active", "active", "superseded"], listed
    assert listed_many == listed
    assert [nid for nid, _, _ in noted.others["pkg/m0.py"]] == [old]     # the withdrawn one, by its path
