"""Python docstrings with escapes or prefixes are evaluated as literals (pipeline.parse), under
the one AST lock of stratum.npyio, so parsing beside the warm build's .npy loads is safe."""

from __future__ import annotations

import ast

from pipeline.parse import parse_file
from stratum import npyio
from tests.unit.test_npyio import most_inside, saved

CODE = ('r"""Module with a \\d regex."""\n\n'
        'def f():\n    """Caf\\u00e9 \\"quoted\\".\n\n    More.\n    """\n    return 1\n\n'
        'def g():\n    f"not {1} a doc"\n\n'
        "def h():\n    b'bytes are no doc'\n")


def docs(pf) -> dict[str, str | None]:
    return {n["qualname"] or "<file>": n["doc"] for n in pf.nodes}


def test_escaped_and_prefixed_docstrings_are_their_values():
    got = docs(parse_file("r", "a.py", CODE.encode()))
    assert got == {"<file>": "Module with a \\d regex.", "f": 'Caf\u00e9 "quoted".\n\nMore.', "g": None, "h": None}


def test_parsing_beside_npy_loads_never_overlaps_an_ast_build(tmp_path, monkeypatch):
    """4 threads parse the file while 4 load .npy files; no two ``ast.literal_eval`` calls (the
    parse's and numpy's header parse) are ever running at once."""
    paths = saved(tmp_path, 4)
    want = docs(parse_file("r", "a.py", CODE.encode()))

    def work(k: int, bad: list[str]) -> None:
        for _ in range(5):
            if k % 2:
                if int(npyio.load(paths[k // 2])[0, 0]) != k // 2:
                    bad.append(f"load {k}")
            elif docs(parse_file("r", "a.py", CODE.encode())) != want:
                bad.append(f"parse {k}")

    most, bad = most_inside(monkeypatch, ast, "literal_eval", work)
    assert not bad and most == 1
