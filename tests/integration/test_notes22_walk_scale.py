"""`walk FILE --edge notes` costs what the file's notes cost, not what every unmerged note costs: it
looked for its symbols' withdrawn notes by a pass over every unmerged note (~2.7 ms of a 3.3 ms walk
at 10,000 notes, session 22); they are found by path now (``notedpaths.NotedPaths``). The walk of a
file with a few notes is timed beside 200 and beside 10,000 unmerged notes about other files; what
it lists is the same."""

from __future__ import annotations

import time

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


def _walk_cost(t: Tools, s: str) -> tuple[float, list[tuple[str, str]]]:
    """(the fastest of 40 walks of pkg/m0.py's notes, what it lists)."""
    def walk():
        return [(i.id, i.meta.get("status", "active")) for i in t.walk(s, "pkg/m0.py", edges=["notes"]).items]
    listed = walk()                 # the fold's by-path map is built once per change: not timed
    best = float("inf")
    for _ in range(40):
        t0 = time.perf_counter()
        walk()
        best = min(best, time.perf_counter() - t0)
    return best, listed


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
        few, listed = _walk_cost(t, s)
        _append(store, sh, 200, 9_800)
        t.memory.overlay(sh).refresh()
        many, listed_many = _walk_cost(t, s)
    finally:
        t.close()
    assert sorted(st for _, st in listed) == ["active", "active", "superseded"], listed
    assert listed_many == listed
    # a pass over 10,000 notes made it ~5x dearer; the walk itself varies by far less than 2.5x
    assert many < 2.5 * few, (f"{many * 1e3:.2f} ms beside 10,000 notes, {few * 1e3:.2f} ms beside 200")
