"""A path or name written in the other Unicode normal form finds its node (an MCP probe: macOS
file APIs give 'módulo' decomposed (NFD), git keeps the bytes as committed (here composed), and
`get` answered "no node 'src/ünï/módulo.py::café_ñ'", printed exactly like the indexed path)."""

from __future__ import annotations

import unicodedata

from tests.clirun import session_over

NAME = unicodedata.normalize("NFC", "pkg/módulo.py")
FUNC = unicodedata.normalize("NFC", "café_ñ")


def test_a_decomposed_path_and_name_find_the_composed_node(tmp_path):
    files = {NAME: f"def {FUNC}():\n    '''Brew it.'''\n    return 1\n"}
    with session_over(tmp_path / "repo", files) as (tools, sid):
        nfd_path = unicodedata.normalize("NFD", NAME)
        assert nfd_path != NAME
        got = tools.get(sid, nfd_path, level="api").items[0]
        assert got.path == NAME and got.kind == "file"
        sym = tools.get(sid, f"{nfd_path}::{unicodedata.normalize('NFD', FUNC)}", level="summary").items[0]
        assert sym.kind == "function" and sym.path == NAME
        assert tools.get(sid, NAME, level="summary").items[0].path == NAME     # as written, as before
