"""Which files are tests: a `test.py` module inside a package is the package's own code (werkzeug's
test client `src/werkzeug/test.py` was linked as the test of nine library files)."""

from __future__ import annotations

from pipeline.testlinks import is_test_path, link_tests
from stratum.ids import node_id


def test_a_test_module_inside_a_package_is_library_code():
    paths = ["src/werkzeug/__init__.py", "src/werkzeug/test.py", "src/werkzeug/wsgi.py",
             "tests/test_wsgi.py", "app/tests.py", "app/__init__.py", "scripts/test.py"]
    packages = {"src/werkzeug", "app"}
    assert not is_test_path("src/werkzeug/test.py", packages)
    assert is_test_path("app/tests.py", packages)            # Django apps keep their tests so
    assert is_test_path("scripts/test.py", packages)          # not in a package: a test script
    assert is_test_path("tests/test_wsgi.py", packages)
    imports = [{"src": node_id("w", "src/werkzeug/test.py", "file"), "dst": node_id("w", "src/werkzeug/wsgi.py", "file"),
                "kind": "imports"}]
    srcs = {e["src"] for e in link_tests("w", paths, imports)}
    assert node_id("w", "src/werkzeug/test.py", "file") not in srcs
    assert node_id("w", "tests/test_wsgi.py", "file") in srcs
