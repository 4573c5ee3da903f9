"""A store indexed by an older parser parses every file again once (storestate.PARSE_FORMAT):
unchanged files were reused with their stored parse output, so records of a new parser field
(e.g. an import's ``uses``) stayed missing until ``--full``."""

from __future__ import annotations

import pytest

import pipeline.storestate as storestate
from pipeline.job import index_repository
from stratum.config import IndexConfig
from tests.gitrepo import sample_python_repo


def test_an_older_parse_format_parses_every_file_once_and_keeps_vectors(tmp_path, monkeypatch):
    repo = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    cfg = IndexConfig(num_cpus=1)
    first = index_repository(repo.path, store, cfg)
    assert first.parse_format == storestate.PARSE_FORMAT and first.files_parsed > 0
    monkeypatch.setattr(storestate, "PARSE_FORMAT", storestate.PARSE_FORMAT + 1)   # a newer parser
    again = index_repository(repo.path, store, cfg)
    assert not again.up_to_date                         # same HEAD, but the parse output is older
    assert again.files_reused == 0 and again.files_parsed == first.files_parsed
    assert any("every file parsed again" in m for m in again.messages), again.messages
    assert again.embedded == 0                          # unchanged text: its vectors are kept
    then = index_repository(repo.path, store, cfg)      # once only
    assert then.up_to_date


def test_the_current_format_reuses_unchanged_files(tmp_path):
    repo = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    index_repository(repo.path, store, IndexConfig(num_cpus=1))
    repo.commit("cart: a comment", {"shop/cart.py": (repo.path / "shop/cart.py").read_text() + "\n# c\n"})
    rep = index_repository(repo.path, store, IndexConfig(num_cpus=1))
    assert rep.files_parsed == 1 and rep.files_reused > 0
    assert not any("every file parsed again" in m for m in rep.messages)
