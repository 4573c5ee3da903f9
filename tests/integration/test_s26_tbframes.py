"""Traceback frames that name a module by convention lead to its file again (session 26, h3).

Since session 25 a frame locates a file only where get would resolve its path, and get refuses a path
that shares only its file's name with a repository file. That lost frames users paste every day:
- a JVM frame prints only a file's name beside its class: ``at Main.main(Main.java:3)`` (the default
  package) found nothing though src/main/java/Main.java declares no package; and a packaged frame
  took any file whose path shared two segments (``com.shop.util.Strings`` was com/other/util/Strings.java);
- ``site-packages/six.py`` is the module six: the repository's src/six.py was refused (a file name
  alone), while ``node_modules/express/lib/router/index.js`` was the repository's own lib/router/index.js
  though the repository's package.json names another package;
- a function-less ``/app/manage.py`` frame was app/manage.py though the traceback's other frames show
  the repository was /app (the root manage.py).
Real git repositories, the real index job, the real Tools and the CLI reading a paste on stdin.
"""

from __future__ import annotations

import io
import json

import pytest

from stratum.errors import NotFound
from stratum.tracebacks import FRAME_WHY
from tests.tbframes import frame_items

pytestmark = pytest.mark.slow

CART_JAVA = "package com.shop;\n\npublic class Cart {\n    public int total() {\n        return 1;\n    }\n}\n"
MAIN_JAVA = ("/* The entry point: no package {@link Cart} */\npublic class Main {\n"
             "    public static void main(String[] args) {\n        System.out.println(1);\n    }\n}\n")
LEGACY_MAIN_JAVA = "package com.legacy;\n\npublic class Main {\n    public static void main(String[] a) {\n    }\n}\n"
STRINGS_JAVA = ("package com.other.util;\n\npublic class Strings {\n    public static String pad() {\n"
                "        return \"\";\n    }\n}\n")
PRICE_KT = "package com.shop.pricing\n\nclass Price {\n    fun of(n: Int): Int {\n        return n * 2\n    }\n}\n"
ROUTER_JS = "function handle(req) {\n  return req.next();\n}\nmodule.exports = handle;\n"
ADMIN_TS = "export function panel(id: number) {\n  return id + 1;\n}\n"
FILES: dict[str, str | bytes] = {
    "src/main/java/com/shop/Cart.java": CART_JAVA, "src/main/java/Main.java": MAIN_JAVA,
    "src/main/java/com/legacy/Main.java": LEGACY_MAIN_JAVA, "src/main/java/com/other/util/Strings.java": STRINGS_JAVA,
    "src/main/kotlin/pricing/Price.kt": PRICE_KT,      # Kotlin's convention: the common root package's folders left out
    "src/six.py": "def with_metaclass(meta):\n    return meta\n",
    "src/shop/__init__.py": "", "src/shop/cart.py": "def total(items):\n    return sum(items)\n",
    "tests/fixtures/helpers.py": "def make():\n    return 1\n",      # no source root: no module `helpers`
    "package.json": '{"name": "@acme/web", "version": "1.0.0"}\n', "lib/router/index.js": ROUTER_JS,
    "packages/admin/package.json": '{"name": "admin"}\n', "packages/admin/src/panel.ts": ADMIN_TS,
}
CONTAINER: dict[str, str | bytes] = {
    "manage.py": "import sys\n\nsys.exit(run())\n", "app/__init__.py": "",
    "app/manage.py": "def main():\n    return 1\n",
    "shop/__init__.py": "", "shop/cart.py": "def total(items):\n    return sum(items)\n",
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("s26tb"), FILES, "java, kotlin, python and js") as got:
        yield got


@pytest.fixture(scope="module")
def container(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("s26tbapp"), CONTAINER, "a container's project") as got:
        yield got


def _jvm(*frames: str) -> str:
    return 'Exception in thread "main" java.lang.IllegalStateException: boom\n' + "".join(f"\tat {f}\n" for f in frames)


def _py(*frames: tuple[str, int, str], error: str = "ValueError: boom") -> str:
    body = "".join(f'  File "{p}", line {n}, in {f}\n    pass\n' for p, n, f in frames)
    return f"Traceback (most recent call last):\n{body}{error}\n"


def test_a_default_package_class_is_the_file_that_declares_no_package(tools):
    t, s = tools
    got = frame_items(t.search(s, _jvm("Main.main(Main.java:4)"), page_size=5).items)
    assert got[:1] == [("src/main/java/Main.java::Main.main", "traceback frame: src/main/java/Main.java:4 in main")]
    assert "src/main/java/com/legacy/Main.java::Main.main" not in [p for p, _ in got]
    with pytest.raises(NotFound):           # get's rule is unchanged: a file's name alone is no name
        t.get(s, "Main.java:4")


def test_a_packaged_class_is_the_file_of_its_package_only(tools):
    t, s = tools
    got = frame_items(t.search(s, _jvm("com.shop.Cart.total(Cart.java:5)", "com.legacy.Main.main(Main.java:4)"),
                           page_size=5).items)
    assert got[:2] == [
        ("src/main/java/com/shop/Cart.java::Cart.total", "traceback frame: src/main/java/com/shop/Cart.java:5 in total"),
        ("src/main/java/com/legacy/Main.java::Main.main", "traceback frame: src/main/java/com/legacy/Main.java:4 in main")]
    # a class of another package whose folders end the same way is not this one
    assert frame_items(t.search(s, _jvm("com.shop.util.Strings.pad(Strings.java:5)"), page_size=10).items) == []
    # Kotlin keeps com.shop.pricing's file under pricing/: the file declaring that package is it (its
    # method there since Kotlin is parsed)
    got = frame_items(t.search(s, _jvm("com.shop.pricing.Price.of(Price.kt:5)"), page_size=5).items)
    assert got[:1] == [("src/main/kotlin/pricing/Price.kt::Price.of",
                        "traceback frame: src/main/kotlin/pricing/Price.kt:5 in of")]


def test_an_installed_copys_module_is_the_repositorys_module_at_a_source_root(tools):
    t, s = tools
    paste = _py(("/usr/lib/python3.11/site-packages/six.py", 2, "with_metaclass"),
                ("/srv/venv/lib/python3.11/dist-packages/shop/cart.py", 2, "total"))
    assert frame_items(t.search(s, paste, page_size=5).items)[:2] == [
        ("src/shop/cart.py::total", "traceback frame: src/shop/cart.py:2 in total"),
        ("src/six.py::with_metaclass", "traceback frame: src/six.py:2 in with_metaclass")]
    # tests/fixtures is no source root: its helpers.py is no module `helpers`
    stray = _py(("/usr/lib/python3.11/site-packages/helpers.py", 2, "make"))
    assert frame_items(t.search(s, stray, page_size=10).items) == []


def test_a_node_modules_frame_is_the_repositorys_file_only_when_it_is_that_package(tools):
    t, s = tools
    other = "TypeError: boom\n    at handle (/srv/web/node_modules/express/lib/router/index.js:2:14)\n"
    assert frame_items(t.search(s, other, page_size=10).items) == []
    own = "TypeError: boom\n    at handle (/srv/x/node_modules/@acme/web/lib/router/index.js:2:14)\n"
    assert frame_items(t.search(s, own, page_size=5).items)[:1] == [
        ("lib/router/index.js::handle", "traceback frame: lib/router/index.js:2 in handle")]
    workspace = "TypeError: boom\n    at panel (/srv/web/node_modules/admin/src/panel.ts:2:10)\n"
    assert frame_items(t.search(s, workspace, page_size=5).items)[:1] == [
        ("packages/admin/src/panel.ts::panel", "traceback frame: packages/admin/src/panel.ts:2 in panel")]


def test_a_container_frame_is_read_under_the_root_the_other_frames_show(container):
    t, s = container
    paste = _py(("/app/manage.py", 3, "<module>"), ("/app/shop/cart.py", 2, "total"), error="TypeError: boom")
    assert frame_items(t.search(s, paste, page_size=5).items)[:2] == [
        ("shop/cart.py::total", "traceback frame: shop/cart.py:2 in total"),
        ("manage.py", "traceback frame: manage.py:3 in <module>")]
    # the same frame alone says nothing of a root: get's reading, app/manage.py
    alone = _py(("/app/manage.py", 2, "<module>"), error="TypeError: boom")
    assert [p for p, _ in frame_items(t.search(s, alone, page_size=5).items)] == ["app/manage.py::main"]


def test_the_cli_reads_a_pasted_jvm_trace_and_container_traceback_on_stdin(tools, container, capsys, monkeypatch):
    from tests.clirun import run

    for (t, _), paste, want in (
            (tools, _jvm("Main.main(Main.java:4)"),
             ("src/main/java/Main.java", "traceback frame: src/main/java/Main.java:4 in main")),
            (container, _py(("/app/manage.py", 3, "<module>"), ("/app/shop/cart.py", 2, "total")),
             ("manage.py", "traceback frame: manage.py:3 in <module>"))):
        store = str(next(iter(t.memory)).store.root)
        monkeypatch.setattr("sys.stdin", io.StringIO(paste))
        rc, out, err = run(capsys, "search", "-", "--store", store, "--json")
        assert rc == 0, err
        got = [(i["path"], i["why"].split(";")[0]) for i in json.loads(out)["items"] if i["why"].startswith(FRAME_WHY)]
        assert want in got, got


def test_get_reads_an_installed_copys_path_as_its_traceback_frame_does(tools):
    """``get`` and a pasted frame read one path alike (session 27): get refused ``site-packages/six.py``
    (a file name alone) and served the repository's own lib/router/index.js for a third-party
    package's ``node_modules/express/lib/router/index.js``."""
    t, s = tools
    assert t.get(s, "/usr/lib/python3.11/site-packages/six.py").items[0].path == "src/six.py"
    egg = "/usr/lib/python3.11/site-packages/shop-1.0-py3.11.egg/shop/cart.py"     # setuptools' egg folder
    assert t.get(s, egg).items[0].path == "src/shop/cart.py"
    assert frame_items(t.search(s, _py((egg, 2, "total")), page_size=5).items)[:1] == [
        ("src/shop/cart.py::total", "traceback frame: src/shop/cart.py:2 in total")]
    it = t.get(s, "/usr/lib/python3.11/site-packages/six.py:2").items[0]
    assert (it.path, it.qualname) == ("src/six.py", "with_metaclass")
    it = t.get(s, "/srv/x/node_modules/@acme/web/lib/router/index.js:2").items[0]
    assert (it.path, it.qualname) == ("lib/router/index.js", "handle")
    for other in ("/srv/web/node_modules/express/lib/router/index.js",
                  "/srv/web/node_modules/express/lib/router/index.js:2"):
        with pytest.raises(NotFound, match=r"installed copy \(node_modules/\) of package 'express', "
                                            r"and no package.json here names it"):
            t.get(s, other)
    # a package that is here, without that file: said so, not "no package.json names it" (review r1)
    with pytest.raises(NotFound, match=r"installed copy \(node_modules/\) of package '@acme/web', which is the "
                                        r"repository's root here, and that has no file 'lib/router/missing.js'"):
        t.get(s, "/srv/x/node_modules/@acme/web/lib/router/missing.js")
    with pytest.raises(NotFound, match=r"installed copy \(site-packages/\) of module 'helpers'"):
        t.get(s, "/usr/lib/python3.11/site-packages/helpers.py")
