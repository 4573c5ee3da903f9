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


def test_a_jvm_main_source_named_like_a_test_is_code_and_its_own_test_links_to_it():
    """kotlinpoet's KSP processor `src/main/.../TestProcessor.kt` was a test of 16 files by JUnit 3's
    `TestX` prefix, and its real test `TestProcessorTest.kt` linked to nothing (its subject counted
    as a test)."""
    main = "interop/ksp/test-processor/src/main/kotlin/com/x/TestProcessor.kt"
    test = "interop/ksp/test-processor/src/test/kotlin/com/x/TestProcessorTest.kt"
    assert not is_test_path(main)
    assert not is_test_path("core/src/main/scala/x/ParserSpec.scala")
    assert not is_test_path("src/main/java/x/FooTest.java")
    assert is_test_path(test) and is_test_path("src/test/java/x/TestFoo.java")
    assert is_test_path("TestFoo.java")     # no source sets: JUnit 3's prefix still names a test
    links = {(e["src"], e["dst"]) for e in link_tests("k", [main, test], [])}
    assert (node_id("k", test, "file"), node_id("k", main, "file")) in links
    assert not any(src == node_id("k", main, "file") for src, _ in links)
