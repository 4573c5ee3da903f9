"""Mined ``change`` nodes (pipeline.fixes, on by default): every non-merge commit that is not a bug fix
and touched 1..MAX_FILES code files becomes day-one experience about those files. Real git
repositories, the real index job (Lance, static embedding), the real searcher and tools."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest

from stratum import rank as R
from stratum import signals as SG
from stratum import schema as S

pytestmark = pytest.mark.slow

LIMITS = '''"""Account limits."""

FLOOR = -100.0


def allowed(balance: float, amount: float) -> bool:
    """Whether AMOUNT may be taken from BALANCE."""
    return balance - amount >= FLOOR
'''
BOOK = '''"""The account book."""


def post(book: dict, account: str, amount: float) -> None:
    """Add AMOUNT to ACCOUNT in BOOK."""
    book[account] = book.get(account, 0.0) + amount
'''
QUERY = "overdraft for negative balances"
SUBJECT = "Allow an overdraft for negative balances"


def _bank(path):
    from tests.gitrepo import Repo

    r = Repo(path)
    r.commit("initial bank", {"bank/__init__.py": "", "bank/book.py": BOOK,
                              "bank/limits.py": LIMITS.replace("-100.0", "0.0")})
    r.commit(f"{SUBJECT}\n\nThe floor moves below zero.", {"bank/limits.py": LIMITS})
    r.commit("Rename the helpers everywhere", {f"bank/m{i}.py": f"X = {i}\n" for i in range(6)})
    r.commit("Fix a crash when the account is missing", {"bank/book.py": BOOK.replace("book.get(account, 0.0)",
                                                                                       "(book.get(account) or 0.0)")})
    return r


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig

    base = tmp_path_factory.mktemp("bank")
    repo = _bank(base / "bank")
    rep = index_repository(repo.path, base / "store", IndexConfig(num_cpus=1))
    return repo, base / "store", rep


def _open(store):
    from stratum.tools import Tools

    return Tools.open([str(store)])


def _mined(store) -> dict[str, dict]:
    from stratum.store import Store

    return {n["meta"] and json.loads(n["meta"])["sha"]: n for n in Store(store).snapshot().read("nodes").to_pylist()
            if n["kind"] in S.MINED_NOTE_KINDS}


def _sha(repo, subject):
    from tests.gitrepo import git

    return git(repo.path, "log", "--format=%H", f"--grep={subject}", "--fixed-strings").split()[0]


def test_a_change_is_found_on_a_fresh_index_and_lifts_its_file(bank):
    repo, store, rep = bank
    assert rep.history["mined_changes"] == 2 and rep.history["mined_fixes"] == 1   # initial + overdraft; the fix
    mined = _mined(store)
    change = mined[_sha(repo, SUBJECT)]
    meta = json.loads(change["meta"])
    assert change["kind"] == "change" and change["author"] == "history" and meta["mined"] is True
    assert meta["commit_author"] and meta["time"] and [t["path"] for t in meta["about"]] == ["bank/limits.py"]
    assert change["summary"] == f"change: {SUBJECT}"
    # the commit of six code files says little about where anything is: no node
    assert _sha(repo, "Rename the helpers") not in mined
    assert mined[_sha(repo, "Fix a crash")]["kind"] == "fix"
    tools = _open(store)
    try:
        sh = tools.shards.shards[0]
        assert tools.overlays[str(sh.store.root)].count() == 0          # no agent notes at all
        page = sh.warm.search(QUERY, limit=150)
        assert page.items[0].id == change["id"]                         # the change's subject matches best
        sig = SG.ShardSignals(sh, tools.overlays[str(sh.store.root)])
        ranked = R.rank_files(page.items, sig, R.DEFAULT_WEIGHTS)
        text = R.rank_files(page.items, sig, R.TEXT_ONLY)
        top = ranked[0]
        assert top.path == "bank/limits.py" and top.parts["changes"] > 0 and "past change " in top.why
        assert "mined" not in top.parts and "notes" not in top.parts
        assert top.score > next((f.score for f in text if f.path == "bank/limits.py"), 0.0)
        # the search tool serves it as mined data, and the file first among code
        s = tools.open_session(author="agent").data["session"]
        items = tools.search(s, QUERY, page_size=5).items
        first = next(i for i in items if i.id == change["id"])
        assert first.kind == "change" and first.trust == "mined" and first.why == "past change"
        # its provenance: by "history", from its commit, when that commit was made (ISO, as agents' notes)
        assert (first.provenance["author"], first.provenance["commit"]) == ("history", meta["sha"])
        assert first.provenance["written_at"] == meta["time"] and "T" in meta["time"]
        code = [i for i in items if i.kind not in S.NOTE_KINDS]
        assert code[0].path == "bank/limits.py" and "past change" in code[0].why
        # pulled by search, not pushed: `get` of the file attaches no change lines
        got = tools.get(s, "bank/limits.py", level="api").items[0]
        assert not [n for n in got.notes if n["kind"] == "change"]
    finally:
        tools.close()


def test_changes_follow_the_watermark_survive_full_and_leave_agent_notes_alone(bank, tmp_path):
    from pipeline.fixes import fix_id
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo

    work, store = tmp_path / "bank", tmp_path / "s"      # private copies (the repository's name is its folder's)
    for src, dst in ((bank[0].path, work), (bank[1], store)):
        shutil.copytree(src, dst)
    before = _mined(store)
    tools = _open(store)
    try:
        s = tools.open_session(author="agent").data["session"]
        nid = tools.remember(s, "rca", "posting loses cents: post() adds floats", about=["bank/book.py::post"]
                             ).data["note_id"]
    finally:
        tools.close()
    r = Repo.__new__(Repo)
    r.path, r._n = work, 20
    sha = r.commit("Keep a posting journal in the book", {"bank/book.py": BOOK + "\nJOURNAL = []\n"})
    rep = index_repository(work, store, IndexConfig(num_cpus=1))
    assert rep.history["incremental"] and rep.history["commits"] == 1          # mined from the watermark on
    after = _mined(store)
    assert set(after) == set(before) | {sha} and after[sha]["kind"] == "change"
    assert after[sha]["id"] == fix_id(after[sha]["repo"], sha, "change")
    assert all(after[k]["id"] == v["id"] and after[k]["summary_tokens"] == v["summary_tokens"]
               for k, v in before.items())
    assert rep.notes["carried"] == 1 and rep.notes["new"] == 1          # the agent note only, merged now
    full = index_repository(work, store, IndexConfig(num_cpus=1, full=True))
    assert {k: v["id"] for k, v in _mined(store).items()} == {k: v["id"] for k, v in after.items()}
    assert full.history["mined_changes"] == 3 and full.notes["carried"] == 1 and full.notes["from_previous_version"] == 1
    tools = _open(store)
    try:
        sh = tools.shards.shards[0]
        row = sh.row_of[nid]
        assert sh.col("kind")[row] == "rca" and sh.col("author")[row] == "agent"    # still the agent's note
        assert set(tools.overlays[str(sh.store.root)].notes) == {nid}              # mined nodes are not notes
    finally:
        tools.close()
    off = index_repository(work, tmp_path / "off", replace(IndexConfig(num_cpus=1), mine_changes=False))
    assert "change" not in off.nodes and off.nodes["fix"] == 1


def test_a_deleted_and_restored_file_keeps_its_mined_fix_and_cochange(tmp_path):
    """A file deleted and later restored at the same path keeps the fix, changes and co-change of
    its earlier life (the restore's add used to end that life: the fix pointed at nothing)."""
    from pipeline.job import index_repository
    from stratum.config import EmbedConfig, IndexConfig
    from stratum.store import Store
    from tests.gitrepo import Repo

    r = Repo(tmp_path / "bank")
    r.commit("initial bank", {"bank/__init__.py": "", "bank/book.py": BOOK, "bank/limits.py": LIMITS})
    fix = r.commit("Fix a crash when the floor is missing", {
        "bank/limits.py": LIMITS.replace("FLOOR = -100.0", "FLOOR = -100.0\nCEILING = 1e9"),
        "bank/book.py": BOOK + "\nJOURNAL = []\n"})
    kept = (r.path / "bank/limits.py").read_text()
    r.commit("Drop the limits", delete=["bank/limits.py"])
    r.commit("Bring the limits back", {"bank/limits.py": kept})
    cfg = IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False))
    index_repository(r.path, tmp_path / "store", cfg)
    snap = Store(tmp_path / "store").snapshot()
    nodes, edges = snap.read("nodes").to_pylist(), snap.read("edges").to_pylist()
    file_id = {n["path"]: n["id"] for n in nodes if n["kind"] == "file"}
    node = next(n for n in nodes if n["kind"] == "fix" and json.loads(n["meta"])["sha"] == fix)
    assert [t["path"] for t in json.loads(node["meta"])["about"]] == ["bank/book.py", "bank/limits.py"]
    about = {e["dst"] for e in edges if e["src"] == node["id"] and e["kind"] == "about"}
    assert about == {file_id["bank/book.py"], file_id["bank/limits.py"]}
    assert (file_id["bank/limits.py"], file_id["bank/book.py"]) in {(e["src"], e["dst"]) for e in edges
                                                                   if e["kind"] == "cochange"}


def test_contentless_commits_make_no_nodes_and_lint_fixes_are_changes(tmp_path):
    """On a real history: "wip", "fix tests" and pre-commit.ci's commits leave no mined node (they name
    nothing a task could mean); "fix mypy findings" is a change, not a fix; a bare "fix" whose body
    says what broke is a fix."""
    from pipeline.job import index_repository
    from stratum.config import EmbedConfig, IndexConfig
    from stratum.store import Store
    from tests.gitrepo import Repo

    r = Repo(tmp_path / "bank")
    r.commit("initial bank", {"bank/__init__.py": "", "bank/book.py": BOOK, "bank/limits.py": LIMITS})
    wip = r.commit("wip", {"bank/book.py": BOOK + "\nA = 1\n"})
    tests = r.commit("fix tests", {"bank/book.py": BOOK + "\nA = 2\n"})
    bot = r.commit("[pre-commit.ci] auto fixes from pre-commit.com hooks\n\nfor more information, see "
                   "https://pre-commit.ci", {"bank/book.py": BOOK + "\nA = 3\n"})
    mypy = r.commit("fix mypy findings", {"bank/limits.py": LIMITS + "\nB: int = 1\n"})
    told = r.commit("fix\n\nposting to a closed account raised KeyError", {"bank/book.py": BOOK + "\nA = 4\n"})
    rep = index_repository(r.path, tmp_path / "store", IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False)))
    mined = {json.loads(n["meta"])["sha"]: n["kind"] for n in Store(tmp_path / "store").snapshot().read("nodes")
             .to_pylist() if n["kind"] in S.MINED_NOTE_KINDS}
    assert not {wip, tests, bot} & set(mined)
    assert mined[mypy] == "change" and mined[told] == "fix"
    assert rep.history["mined_fixes"] == 1 and rep.history["mined_changes"] == 2     # the initial commit, mypy
    assert rep.history["mined_contentless"] == 3            # wip, fix tests, pre-commit.ci: said in the run report
