"""Names git and Linux allow but text does not: a repository folder whose name is not UTF-8 indexes
under a clean, stable name; a store at such a path is refused, clearly and before Lance touches it;
a file name with a newline stays on one line wherever a line of text names it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.errors import InvalidArgument
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False), ray=False)


def _odd_folder(parent: Path, name: bytes) -> Path:
    """``parent/name`` made from raw bytes (Python reads the name back with surrogate escapes)."""
    path = os.fsencode(parent) + b"/" + name
    try:
        os.mkdir(path)
    except OSError as e:                                  # a filesystem that enforces UTF-8 names
        pytest.skip(f"the filesystem refuses a non-UTF-8 name: {e}")
    return Path(os.fsdecode(path))


def _wire_safe(res) -> dict:
    """The answer as the wire carries it: must encode as UTF-8 (gRPC and MCP refuse a lone surrogate)."""
    d = res.to_dict()
    json.dumps(d, ensure_ascii=False).encode("utf-8")
    return d


def test_a_repository_in_a_folder_named_with_non_utf8_bytes_indexes_under_a_clean_stable_name(tmp_path):
    repo = Repo(_odd_folder(tmp_path, b"shop\xff"))
    repo.commit("init", {"pricing.py": "def discount(total):\n    return total * 0.9\n"})
    index_repository(repo.path, tmp_path / "store", CFG)
    t = Tools.open([str(tmp_path / "store")])
    try:
        sid = t.open_session(author="agent").data["session"]
        hit = _wire_safe(t.search(sid, "discount"))["items"][0]
        assert hit["path"] == "pricing.py" and hit["qualname"] == "discount"
        top = _wire_safe(t.tree(sid, depth=1))["items"][0]
        assert top["kind"] == "repo" and top["name"] == "shop\\xff"     # the byte spelled, as git spells it
        status = _wire_safe(t.status(sid))
        assert [s["repo"] for s in status["data"]["shards"]] == ["shop\\xff"]
        nid = _wire_safe(t.get(sid, "pricing.py::discount"))["items"][0]["id"]
    finally:
        t.close()
    repo.commit("more", {"tax.py": "def vat(x):\n    return x * 0.2\n"})
    index_repository(repo.path, tmp_path / "store", CFG)                # incremental: same name, same ids
    t = Tools.open([str(tmp_path / "store")])
    try:
        sid = t.open_session(author="agent").data["session"]
        assert _wire_safe(t.get(sid, "pricing.py::discount"))["items"][0]["id"] == nid
        assert _wire_safe(t.get(sid, "tax.py::vat"))["items"][0]["path"] == "tax.py"
    finally:
        t.close()


def test_store_root_names_a_non_utf8_repositorys_store_as_the_index_names_it(tmp_path, capsys):
    """`stratum index --store-root DIR` named the store after the raw folder name: a path Lance refuses."""
    from pipeline.many import stores_for

    repo = Repo(_odd_folder(tmp_path, b"shop\xff"))
    repo.commit("init", {"pricing.py": "def discount(total):\n    return total * 0.9\n"})
    [store] = stores_for([str(repo.path)], str(tmp_path / "stores"))
    assert Path(store).name == "shop\\xff"
    os.fsencode(store).decode("utf-8")                   # a UTF-8 path: the store opens
    index_repository(repo.path, Path(store), CFG)
    assert stores_for([str(repo.path)], str(tmp_path / "stores")) == [store]     # found again next run


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_store_path_that_is_not_utf8_is_refused_clearly_and_nothing_is_lost(tmp_path):
    repo = Repo(tmp_path / "shop")
    repo.commit("init", {"pricing.py": "def discount(total):\n    return total * 0.9\n"})
    index_repository(repo.path, tmp_path / "store", CFG)
    t = Tools.open([str(tmp_path / "store")])
    try:
        sid = t.open_session(author="agent").data["session"]
        note = t.remember(sid, "rca", "discount() rounds before summing", about=["pricing.py::discount"])
    finally:
        t.close()
    odd = _odd_folder(tmp_path, b"store\xfe")
    odd.rmdir()
    os.rename(tmp_path / "store", odd)                  # the store's folder renamed to a non-UTF-8 name
    before = _files(odd)
    for attempt in (lambda: Tools.open([str(odd)]),
                    lambda: index_repository(repo.path, odd, CFG),
                    lambda: index_repository(repo.path, odd / "inner", CFG)):
        with pytest.raises(InvalidArgument, match=r"store\\xfe.* is not valid UTF-8.*--store"):
            attempt()
    assert _files(odd) == before                        # refused before anything was read or written
    os.rename(odd, tmp_path / "back")
    t = Tools.open([str(tmp_path / "back")])
    try:
        sid = t.open_session(author="agent").data["session"]
        item = t.get(sid, "pricing.py::discount", "api").items[0]
        assert note.data["note_id"] in [n["id"] for n in item.notes]
    finally:
        t.close()


def test_a_file_name_with_a_newline_stays_one_line_wherever_a_line_names_it(tmp_path):
    odd = "a\nb.py"
    repo = Repo(tmp_path / "repo")
    repo.commit("init", {odd: "x = 1\n\n\ndef hello():\n    return x\n", "notes\n.txt": "hi\n",
                         "z.py": "def zeta():\n    pass\n"})
    index_repository(repo.path, tmp_path / "store", CFG)
    t = Tools.open([str(tmp_path / "store")])
    try:
        sid = t.open_session(author="agent").data["session"]
        api = t.get(sid, odd, "api").items[0]
        assert api.path == odd
        assert api.text.split("\n") == ["# a\\nb.py", "def hello()"]     # the header is one line
        assert t.get(sid, odd, "full").items[0].text == "x = 1\n\n\ndef hello():\n    return x\n"
        assert t.get(sid, odd, "summary").items[0].text.startswith("file a\\nb.py (python, ")
        assert t.get(sid, "notes\n.txt", "api").items[0].text == "file notes\\n.txt (1 line, not parsed)"
        hint = t.tree(sid, page_size=2).envelope.next_hint         # a hint names the next page's rows
        assert "function a\\nb.py::hello" in hint and "\n" not in hint
        # the folder listing: one line a child (the name's newline made false lines: "a", "b.py")
        root = t.get(sid, [i.id for i in t.tree(sid, page_size=20).items if i.kind == "repo"][0], "full").items[0]
        assert sorted(root.text.split("\n")[1:]) == ["  a\\nb.py", "  notes\\n.txt", "  z.py"]
        from stratum import textprep
        node = {"kind": "file", "path": odd, "language": "python", "summary": "s", "api": api.text}
        assert "# a" not in textprep.embed_text(node)      # the outline's header is not embedded twice
    finally:
        t.close()
