"""One spelling of a path as dataset text (``gitio.path_text``), read back to one name
(``gitio.structure_path``), typed the same way through ``stratum.analysis`` (the core's twin)."""

from __future__ import annotations

import os

import pytest

from pipeline import gitio
from pipeline.history import mine
from stratum.analysis import _repo_relative
from tests.historyrepo import GitRepo

NAMES = [b"app.py", b"caf\xe9.py", b"caf\\xe9.py", b"a\\b.py", b"a\\\\xe9", b"\\", b"x\\\xff\\",
         "r\u00e9sum\u00e9.py".encode(), b"d\xff/e\\x41.py"]


def test_each_name_has_its_own_spelling_and_reads_back():
    texts = [gitio.path_text(b) for b in NAMES]
    assert len(set(texts)) == len(NAMES)                               # one text, one file
    assert texts[:4] == ["app.py", "caf\\xe9.py", "caf\\\\xe9.py", "a\\\\b.py"]
    for b, text in zip(NAMES, texts):
        text.encode("utf-8")                                           # Arrow-safe
        try:
            name = b.decode("utf-8")
        except UnicodeDecodeError:
            assert gitio.structure_path(text) is None                  # no node has it: matches none
        else:
            assert gitio.structure_path(text) == name                  # the node's own name


@pytest.mark.parametrize("raw", NAMES)
def test_a_typed_name_is_spelled_as_the_history_spells_it(raw):
    """``stratum cochange NAME`` (the core cannot import the pipeline: two functions kept equal)."""
    typed = os.fsdecode(raw)
    assert _repo_relative(typed, None) == gitio.path_text(typed) == gitio.path_text(raw)


def test_the_miner_stores_the_spelling_and_counts_names_that_are_not_utf8(tmp_path):
    g = GitRepo(tmp_path / "r")
    for name in (b"caf\xe9.py", b"caf\\xe9.py", b"x\\\xff.py"):
        g.write(name, "x = 1\n")
    g.commit("three names")
    r = mine(g.root)
    paths = sorted(r.file_changes.column("path").to_pylist())
    assert paths == ["caf\\\\xe9.py", "caf\\xe9.py", "x\\\\\\xff.py"]
    assert r.counters["non_utf8_paths"] == 2
    assert sorted(r.file_changes.column("current_path").to_pylist()) == paths
