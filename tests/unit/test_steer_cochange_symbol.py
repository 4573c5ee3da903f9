"""`stratum cochange path::Func` (a symbol, as walk and get take it) answers for its file and says
so; it said "has no history in the index (not a current file of the repository)" of a file that has
one (a steering probe). The library's reading of a path names the file to ask for instead."""

from __future__ import annotations

import json

import pytest

from stratum import analysis as A
from stratum.cli import main
from stratum.errors import NotFound
from tests.unit.test_history_analysis import store  # noqa: F401  (the module's history store fixture)


def test_cochange_of_a_symbol_answers_for_its_file(store, capsys):  # noqa: F811
    _, st = store
    assert main(["cochange", "a.py::run", "--store", str(st.root)]) == 0
    text = capsys.readouterr().out
    assert "answering for a.py, the file of run" in text and "a.py: 2 co-changing files" in text, text
    assert main(["cochange", "a.py::run", "--store", str(st.root), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["path"] == "a.py" and obj["total"] == 2 and "per file" in obj["note"]


def test_the_library_names_the_file_of_a_symbol(store):  # noqa: F811
    _, st = store
    with pytest.raises(NotFound, match=r"a.py::run names a symbol, and co-change history is per file: ask for its file, a.py"):
        A.current_path(A.snapshot(st.root), "a.py::run")
