"""Python imports in a function's body bind there alone (PARSE_FORMAT 29): two links real code had
that this lost (session 25, review r2), through the real index job and the real Tools:

- a ``self`` attribute typed in one method through that method's own import, used in another:
  its type was looked up from the line of the call using it, where that import is not seen, so
  ``self.w.line()`` linked nowhere. pytest's ``TerminalReporter`` (``def __init__(...): import
  _pytest.config; self._tw = _pytest.config.create_terminal_writer(...)``) lost 21 calls to
  ``TerminalWriter`` so. The type is read where the attribute is assigned.
- a package's ``def __getattr__`` (PEP 562, a lazy package) importing ``run``: ``from pkg import
  run`` gets that ``run`` at run time, and linked nowhere.
"""

from __future__ import annotations

import pytest

from stratum.config import EmbedConfig, IndexConfig
from tests.gitrepo import indexed_tools

pytestmark = pytest.mark.slow

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))

WRITER = "class Writer:\n    def line(self):\n        return 1\n"
FILES = {
    "pkg/__init__.py": "",
    "pkg/writer.py": WRITER,
    "pkg/config.py": "from pkg.writer import Writer\n\n\ndef make() -> Writer:\n    return Writer()\n",
    "other/writer.py": WRITER,          # a second Writer with a line(): no name alone decides
    "pkg/report.py": (
        "class Report:\n"
        "    def __init__(self):\n"
        "        from pkg.writer import Writer\n"       # lazy imports, as __init__ methods often have
        "        import pkg.config\n"
        "        self.w = Writer()\n"
        "        self.tw = pkg.config.make()\n"
        "\n"
        "    def out(self):\n"
        "        return self.w.line()\n"
        "\n"
        "    def out_tw(self):\n"
        "        return self.tw.line()\n"
    ),
    "lazy/__init__.py": ("def __getattr__(name):\n    if name == \"run\":\n        from .impl import run\n"
                         "        return run\n    raise AttributeError(name)\n"),
    "lazy/impl.py": "def run():\n    return 1\n",
    "other/run.py": "def run():\n    return 2\n",
    "lazyuser.py": "from lazy import run\n\n\ndef go():\n    return run()\n",
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    with indexed_tools(tmp_path_factory.mktemp("r2scopes"), FILES, "init", CFG) as got:
        yield got


def _calls(tools, target: str) -> set[tuple[str, str]]:
    t, sid = tools
    return {(f"{i.path}::{i.qualname}", i.meta["how"]) for i in t.walk(sid, target, edges=["calls"]).items}


def test_an_attribute_typed_through_its_method_s_own_import_links_its_calls_elsewhere(tools):
    for caller in ("out", "out_tw"):
        assert _calls(tools, f"pkg/report.py::Report.{caller}") == {
            ("pkg/writer.py::Writer.line", "attribute's class")}, caller


def test_a_name_a_package_s_module_getattr_imports_links_there(tools):
    assert _calls(tools, "lazyuser.py::go") == {("lazy/impl.py::run", "imported name")}
