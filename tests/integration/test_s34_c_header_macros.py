"""A C header's export macros are read past, as a C++ file's are (session 33 probe: leveldb's
``include/leveldb/c.h``).

``LEVELDB_EXPORT leveldb_options_t* leveldb_options_create(void);`` in a ``.h`` parsed as C: the grammar
read the macro as the type and broke on the real one; the file was flagged with syntax errors from its
first exported declaration and 6 of its 68 functions (``leveldb_options_create``, ``leveldb_create_snapshot``
...) were no nodes, so a C test's calls of them linked nowhere. ``languages.cppmacros`` hid such macros
from tree-sitter-cpp only; C files now go through it too. A real git repository, the real index job,
the real Tools.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

C_H = """#ifndef SHOP_C_H_
#define SHOP_C_H_

#include "shop/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shop_t shop_t;
typedef struct shop_options_t shop_options_t;

/* Open a shop; NULL on failure. */
SHOP_EXPORT shop_t* shop_open(const shop_options_t* options, const char* name);

SHOP_EXPORT void shop_close(shop_t* shop);

SHOP_EXPORT shop_options_t* shop_options_create(void);

SHOP_EXPORT int shop_major_version(void);

#ifdef __cplusplus
}  /* end extern "C" */
#endif

#endif  /* SHOP_C_H_ */
"""

EXPORT_H = """#ifndef SHOP_EXPORT_H_
#define SHOP_EXPORT_H_
#define SHOP_EXPORT __attribute__((visibility("default")))
#endif
"""

SHOP_C = """#include <stdlib.h>
#include "shop/c.h"

struct shop_t { int open; };
struct shop_options_t { int create; };

shop_t* shop_open(const shop_options_t* options, const char* name) {
  shop_t* s = malloc(sizeof(shop_t));
  s->open = options != NULL && name != NULL;
  return s;
}

void shop_close(shop_t* shop) { free(shop); }

shop_options_t* shop_options_create(void) { return calloc(1, sizeof(shop_options_t)); }

int shop_major_version(void) { return 1; }
"""

SHOP_TEST_C = """#include <stdio.h>
#include "shop/c.h"

int main(int argc, char** argv) {
  shop_options_t* options = shop_options_create();
  shop_t* shop = shop_open(options, "corner");
  if (shop_major_version() < 1) return 1;
  shop_close(shop);
  return 0;
}
"""

FILES: dict[str, str | bytes] = {
    "include/shop/c.h": C_H,
    "include/shop/export.h": EXPORT_H,
    "src/shop.c": SHOP_C,
    "src/shop_test.c": SHOP_TEST_C,
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("s34ch"), FILES, "a C library and its header") as got:
        yield got


def test_every_exported_declaration_of_a_c_header_is_a_node(tools):
    t, s = tools[0], tools[1]
    got = t.get(s, "include/shop/c.h", level="summary").items[0]
    assert got.warnings == [], got.warnings        # no syntax errors from the first exported declaration
    names = {i.qualname for i in t.tree(s, "include/shop/c.h", depth=2, page_size=50).items if i.kind == "function"}
    assert names == {"shop_open", "shop_close", "shop_options_create", "shop_major_version"}
    opened = t.get(s, "include/shop/c.h::shop_options_create", level="summary").items[0]
    # its signature starts at its type, as a C++ header's does (cppmacros._macro_types)
    assert opened.text.startswith("function shop_options_create: shop_options_t* shop_options_create(void)")


def test_a_c_test_calls_reach_the_definitions_through_the_header(tools):
    t, s = tools
    called = {(i.path, i.qualname) for i in t.walk(s, "src/shop_test.c::main", edges=["calls"], page_size=20).items}
    assert {("src/shop.c", n) for n in ("shop_open", "shop_close", "shop_options_create", "shop_major_version")} <= called
