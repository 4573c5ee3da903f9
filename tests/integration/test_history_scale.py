"""History at scale: a 10,000-file commit, and a random branching history where incremental mining
must equal a full mine at every cut and our file lists must equal pydriller's."""

from __future__ import annotations

import random
import subprocess

import pytest

from pipeline import symbols
from pipeline.cochange import compute, compute_with_stats
from pipeline.history import combine, mine
from stratum.config import HistoryConfig
from tests.historyrepo import GitRepo

pytestmark = pytest.mark.slow


def test_ten_thousand_file_commit_is_mined_and_skipped(tmp_path):
    g = GitRepo(tmp_path / "r")
    g.change("a.py", "b.py", day=1)
    g.change("a.py", "b.py", day=2)
    for i in range(10_000):
        g.write(f"data/{i // 1000}/f{i:05d}.txt", f"{i}\n")
    g.write("a.py", "in the bulk commit\n")
    big = g.commit("import a dataset", day=3)
    r = mine(g.root)
    assert r.counters["huge_commits"] == 1 and r.counters["file_changes"] == 10_005
    assert next(c for c in r.commits.to_pylist() if c["sha"] == big)["n_files"] == 10_001
    table, stats = compute_with_stats(r.file_changes, r.commits, HistoryConfig(), head_paths=r.head_paths)
    assert stats["huge_commits_skipped"] == 1
    assert table.to_pylist()[0]["support"] == 2 and table.num_rows == 1      # only a.py <-> b.py
    assert symbols.plan(r.file_changes, r.commits) and big not in symbols.plan(r.file_changes, r.commits)[0]


def random_history(root, seed: int, steps: int) -> tuple[GitRepo, list[str]]:
    """A seeded history: edits, adds, deletes, renames (with edits), branches and merges."""
    rng = random.Random(seed)
    g = GitRepo(root)
    files = [f"pkg/m{i}.py" for i in range(6)]
    for f in files:
        g.write(f, "".join(f"line {f} {j}\n" for j in range(20)))
    heads = [g.commit("start", day=1)]
    day = 1
    branch_n = 0
    for _ in range(steps):
        day += 1
        op = rng.random()
        if op < 0.08 and len(files) > 3:
            f = rng.choice(files)
            new = f"moved/{rng.randrange(1000)}_{f.rsplit('/', 1)[1]}"
            if new not in files:
                g.mv(f, new)
                files[files.index(f)] = new
                g.append(new, f"tweak {day}")
        elif op < 0.13 and len(files) > 3:
            f = rng.choice(files)
            g.rm(f)
            files.remove(f)
        elif op < 0.2:
            f = f"pkg/n{day}.py"
            g.write(f, "".join(f"fresh {day} {j}\n" for j in range(10)))
            files.append(f)
        elif op < 0.27:
            branch_n += 1
            br = f"b{branch_n}"
            g.checkout("-b", br)
            side = rng.sample(files, k=min(2, len(files)))
            for s in side:
                g.append(s, f"side {day}")
            g.commit(f"side work {day}", day=day)
            moved = None
            if rng.random() < 0.5:                        # a pure rename on the branch, while main edits it
                cand = [f for f in files if f not in side]
                if cand:
                    moved = rng.choice(cand)
                    target = f"renamed/{day}_{moved.rsplit('/', 1)[1]}"
                    day += 1
                    g.mv(moved, target)
                    g.commit(f"move {moved} on a branch", day=day)
            day += 1
            g.checkout("main")
            if moved is not None:
                g.append(moved, f"main edits {day}")
                g.commit(f"main edits {moved} {day}", day=day)
                day += 1
                files[files.index(moved)] = target
            other = rng.choice([f for f in files if f not in side and f != target] or files) \
                if moved is not None else rng.choice([f for f in files if f not in side] or files)
            if other in side or (moved is not None and other == target):   # else: a new file
                other = f"pkg/main{day}.py"
                files.append(other)
            g.append(other, f"main {day}")
            g.commit(f"main work {day}", day=day)
            day += 1
            subprocess.run(["git", "-C", str(g.root), "merge", "-q", "--no-ff", "-m", f"merge {br}", br],
                           env=g.env(g.when(day)), check=True, stdout=subprocess.DEVNULL)
            heads.append(g.head())
            continue
        for f in rng.sample(files, k=min(len(files), rng.randint(1, 4))):
            g.append(f, f"edit {day} {rng.random():.6f}")
        heads.append(g.commit(rng.choice(["Fix bug", "feature", "refactor", "docs"]) + f" {day}", day=day))
    return g, heads


def test_incremental_equals_full_at_every_cut_and_matches_pydriller(tmp_path):
    g, heads = random_history(tmp_path / "r", seed=7, steps=120)
    cfg = HistoryConfig(min_support=1)
    full = mine(g.root, cfg)
    key = lambda t: sorted(map(str, t.to_pylist()))  # noqa: E731
    full_cc = compute(full.file_changes, full.commits, cfg, head_paths=full.head_paths)
    cuts = heads[5::17]
    for cut in cuts:
        g.git("branch", "-f", "cut", cut)
        # what an earlier index run stored: a full mine of the repository as it was at the cut
        clone = tmp_path / f"at-{cut[:8]}"
        subprocess.run(["git", "clone", "-q", "--branch", "cut", f"file://{g.root}", str(clone)], check=True)
        before = mine(clone, cfg)
        assert before.head == cut
        inc = mine(g.root, cfg, since=cut)
        commits, changes = combine(before.commits, before.file_changes, inc)
        assert key(commits) == key(full.commits)
        assert key(changes) == key(full.file_changes)
        cc = compute(changes, commits, cfg, head_paths=inc.head_paths)
        assert cc.to_pylist() == full_cc.to_pylist()

    pydriller = pytest.importorskip("pydriller")
    ours: dict[str, set] = {}
    for x in full.file_changes.to_pylist():
        ours.setdefault(x["sha"], set()).add((x["path"], x["change_type"], x["added"], x["deleted"]))
    kinds = {"ADD": "A", "DELETE": "D", "MODIFY": "M", "RENAME": "R"}
    theirs: dict[str, set] = {}
    for c in pydriller.Repository(str(g.root), only_no_merge=True).traverse_commits():
        for m in c.modified_files:
            theirs.setdefault(c.hash, set()).add((m.new_path or m.old_path, kinds[m.change_type.name],
                                                  m.added_lines, m.deleted_lines))
    assert ours == theirs
    assert full.counters["renames"] > 0 and full.counters["merges"] > 0
    # every change of a file that exists at HEAD maps to it, across renames on either branch
    head = set(full.head_paths)
    lost = [x for x in full.file_changes.to_pylist()
            if x["current_path"] is None and x["change_type"] != "D" and x["path"] in head]
    assert not lost
    main_edits_of_moved = [c for c in full.commits.to_pylist() if c["message"].startswith("main edits ")]
    assert main_edits_of_moved
    by_sha = {x["sha"]: x for x in full.file_changes.to_pylist()}
    for c in main_edits_of_moved:
        assert (by_sha[c["sha"]]["current_path"] or "").startswith(("renamed/", "moved/"))
