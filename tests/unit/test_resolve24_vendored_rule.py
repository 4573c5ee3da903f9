"""The vendored rule lives in the core (``stratum.vendored``), where a reader applies it to one path
(``folder_of``), and the index imports it from there; its test of code names stays the parser's."""

from __future__ import annotations

from pipeline.files import Vendored as IndexVendored
from pipeline.languages import EXTENSIONS
from stratum.vendored import CODE_SUFFIXES, Vendored, folder_of


def test_the_index_applies_the_cores_rule_and_code_is_what_the_parser_parses():
    assert IndexVendored is Vendored
    assert CODE_SUFFIXES == frozenset(EXTENSIONS)


def test_one_path_is_judged_as_the_index_judges_the_listing(tmp_path):
    for rel in ("external/glfw/LICENSE.md", "external/glfw/src/w.c", "src/external/x.py",
                "app/external/__init__.py", "app/external/api.py", "lib/external/license.py", "lib/external/y.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    repo = str(tmp_path)
    assert folder_of("third_party/a/b.js", (), None) == "third_party"           # by the path alone
    assert folder_of("third_party/a/b.js", ("third_party/a",), None) is None    # a kept folder
    assert folder_of("third_party/a", (), None, folder=True) == "third_party"
    assert folder_of("third_party", (), None, folder=True) == "third_party"
    assert folder_of("external/glfw/src/w.c", (), repo) == "external"           # at the root
    assert folder_of("src/external/x.py", (), repo) is None                     # no project in it
    assert folder_of("app/external/api.py", (), repo) is None                   # a Python package
    assert folder_of("lib/external/y.py", (), repo) is None                     # license.py is code
    assert folder_of("a/b.py", ("../out",), None) is None                      # a bad kept folder: none
