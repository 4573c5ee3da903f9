"""A store whose mined nodes were made before the index wrote their header (``MINED_FORMAT`` 2: "by
history (mined), <date>", rewritten at read time) makes them once more at its next index, full pass
or incremental, each header then naming its commit and that commit's author; nodes of this format
are kept as they are. Real git histories, the real mine and ``history.combine``."""

from __future__ import annotations

import json
import re

from pipeline.fixes import MINED_FORMAT, mine_fixes
from pipeline.history import combine, mine
from stratum import notenodes
from stratum.notes import Note
from tests.historyrepo import GitRepo


def _as_format_2(node: dict) -> dict:
    """``node`` as the previous format stored it: its header "by history (mined), <date>", its meta
    ``mined_as`` v2 (the token counts left: a level's text is what is compared)."""
    meta = json.loads(node["meta"])
    meta["mined_as"] = meta["mined_as"].replace(f"v{MINED_FORMAT} ", "v2 ")
    old = {k: re.sub(r"^by .*\(mined from commit \w+\), committed ", "by history (mined), ", node[k], flags=re.M)
           for k in ("api", "full")}
    assert all(old[k] != node[k] for k in old)
    return {**node, **old, "meta": json.dumps(meta, sort_keys=True, ensure_ascii=False)}


def test_mined_nodes_of_the_previous_format_are_made_again_naming_the_commit_author(tmp_path):
    g = GitRepo(tmp_path / "r")
    g.write("parser.py", "def parse():\n    return 1\n")
    g.commit("Add the parser")
    g.write("parser.py", "def parse():\n    return 2\n")
    g.git("add", "-A")
    g.git("commit", "-q", "-m", "Fix crash in the parser on empty input", "--author=Grace [ops] Hopper <g@x>",
          when=g.when())
    fix = g.head()
    first = mine(g.root)
    files = {"parser.py": "F-parser"}
    made = mine_fixes(first.commits, first.file_changes, files, "r", changes=True)
    by = {n["doc"]: n for n in made.nodes}
    assert by["Fix crash in the parser on empty input"]["api"].splitlines()[1].startswith(
        f'by "Grace [ops] Hopper" (mined from commit {fix[:12]}), committed '), by
    assert by["Add the parser"]["api"].splitlines()[1].startswith("by Ada (mined from commit ")
    old = [_as_format_2(n) for n in made.nodes]

    again = mine_fixes(first.commits, first.file_changes, files, "r", prev=old, changes=True, same_rule=True)
    assert again.nodes == made.nodes and again.counts["reused"] == 0       # made again, as a fresh index makes them
    g.write("util.py", "U = 1\n")
    g.commit("Add a util module")
    tables = combine(first.commits, first.file_changes, mine(g.root, since=first.head))
    files["util.py"] = "F-util"
    inc = mine_fixes(*tables, files, "r", prev=old, changes=True, same_rule=True)
    assert inc.counts["incremental"] == 0 and inc.counts["reused"] == 0    # not extended: made again in full
    assert [n for n in inc.nodes if n["doc"] != "Add a util module"] == made.nodes
    kept = mine_fixes(*tables, files, "r", prev=inc.nodes, changes=True, same_rule=True)
    assert kept.nodes == inc.nodes and kept.counts["reused"] == len(inc.nodes)      # this format's: kept


def test_a_mined_note_without_its_commit_s_author_says_the_commit_alone():
    """The history recorded no author (an empty name): the header says the commit, never "by history"."""
    from datetime import datetime, timezone

    note = Note(id="f1", record_uid="", kind="fix", text="Fix crash", about=[], author="history", session=None,
                tags=["mined"], created_at=datetime(2024, 1, 2, 12, 2, tzinfo=timezone.utc))
    node, _ = notenodes.note_to_records(note, "r", mined={"sha": "a" * 40, "commit_author": ""})
    assert node["api"].splitlines()[1] == f"(mined from commit {'a' * 12}), committed 2024-01-02 12:02 UTC; tags: mined"
    assert json.loads(node["meta"])["sha"] == "a" * 40
