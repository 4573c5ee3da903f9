"""A branch session links a changed TS file's calls through a barrel (`index.ts`) the branch left
alone, as a full index of the branch does: the overlay read only Python package ``__init__`` files
of the base, so a name a base barrel re-exports (`export { percent as pct } from './money'`) was
not followed from the branch's new call."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
MONEY = "export function percent(x: number): number {\n  return x / 100;\n}\n"
BARREL = "export { percent as pct } from './money';\nexport * from './fmt';\n"
FMT = "export function pad(s: string): string {\n  return ' ' + s;\n}\n"
APP = ("import { pct, pad } from './lib';\n\nexport function show(x: number): string {\n"
       "  return pad(String(pct(x)));\n}\n")


def _calls(t: Tools, sid: str, target: str) -> set[str]:
    return {f"{i.path}::{i.name}" for i in t.walk(sid, target, edges=["calls"], direction="out").items}


def test_a_branchs_call_through_an_unchanged_barrel_is_linked_as_a_full_index_links_it(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"src/lib/money.ts": MONEY, "src/lib/fmt.ts": FMT, "src/lib/index.ts": BARREL,
                      "src/app.ts": "export function show(x: number): string {\n  return String(x);\n}\n"})
    index_repository(r.path, tmp_path / "store", CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("through the barrel", {"src/app.ts": APP})
    index_repository(r.path, tmp_path / "full", CFG)
    git(r.path, "checkout", "-q", "main")

    t = Tools.open([str(tmp_path / "store")], overlay_builder=builder(CFG))
    full = Tools.open([str(tmp_path / "full")])
    try:
        sid, fid = t.open_session(branch="feature").data["session"], full.open_session().data["session"]
        want = _calls(full, fid, "src/app.ts::show")
        assert want == {"src/lib/money.ts::percent", "src/lib/fmt.ts::pad"}, want
        assert _calls(t, sid, "src/app.ts::show") == want
    finally:
        t.close()
        full.close()
