"""The minified rule (``pipeline.files.minified``): a hand-written module with one long data line
is read and parsed with all its definitions; a minifier's output, with or without a license
header and a wrapper around its one long line, and a one-line data file stay skipped."""

from __future__ import annotations

import pytest

from pipeline.files import content_skip_reason, discover, read_source
from pipeline.parse import parse_file
from stratum.config import ParseConfig
from tests.gitrepo import Repo

# one 100 KB base64 constant beside 100 small functions: 303 lines, 350 bytes a line on average
ICONS = "\n".join(['"""Icons for the UI."""', 'LOGO_PNG_B64 = "' + "iVBORw0KGgo" * 9000 + '"', ""] + [
    line for i in range(100)
    for line in (f"def render_icon_{i}(size):", f"    return scale(LOGO_PNG_B64, size * {i})", "")]) + "\n"

# what a minifier writes: statements and blocks joined on one line
_MIN = "".join(f'function r{i}(e,t){{if(!e)return t;var n=e.length;for(var o=0;o<n;o++)t+=e[o]*{i};'
               f'return{{v:t,k:"{i}"}}}}' for i in range(400))
LICENSE = "/*\n" + "".join(f" * Copyright line {i} of a bundled library's license text.\n" for i in range(25)) + " */\n"
WRAPPER = "".join(f"    if (typeof window.ace{i} == 'object') {{\n        window.ace{i}.init(true);\n    }}\n"
                  for i in range(12))
BUNDLES = {
    "dist/app.js": "!function(){" + _MIN + "}();\n",
    "dist/editor.js": LICENSE + "\n" + _MIN + "\n" + WRAPPER,   # ace-like: header, one line, 36 wrapper lines
    "dist/site.css": "".join(f".c{i}{{color:#{i:03x};margin:{i}px}}" for i in range(400)) + "\n",
    "media/logo.svg": '<svg xmlns="http://www.w3.org/2000/svg"><path d="' + "M12 3 L4 9 " * 800 + '"/></svg>\n',
    "data/table.py": "TABLE = [" + ", ".join(str(i) for i in range(3000)) + "]\n",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    r = Repo(tmp_path_factory.mktemp("minified") / "repo")
    r.commit("ui", {"icons.py": ICONS, **BUNDLES})
    return r.path


def test_a_module_with_one_long_data_line_is_parsed_with_all_its_functions(repo):
    cfg = ParseConfig()
    assert "icons.py" in discover(repo, cfg).paths
    src = read_source(repo, "icons.py", cfg)
    assert src.skip_reason is None
    names = {n["qualname"] for n in parse_file("r", "icons.py", src.data, cfg).nodes if n["kind"] == "function"}
    assert names == {f"render_icon_{i}" for i in range(100)}


@pytest.mark.parametrize("path", sorted(BUNDLES))
def test_minified_bundles_and_one_line_data_stay_skipped(repo, path):
    assert read_source(repo, path, ParseConfig()).skip_reason == "minified"


@pytest.mark.parametrize("data, reason", [
    (ICONS.encode(), None),
    (b'"""Readable."""\n' + b"x = 1\n" * 400, None),                            # short lines: never
    (b"A = '" + b"QUJD" * 5000 + b"'\n" + b"# a comment\n" * 30, "minified"),   # comments are no code
])
def test_content_rule(data, reason):
    assert content_skip_reason(data, ParseConfig()) == reason
