"""Import resolution rules, per language: real parses of real code, resolved against path sets."""

from __future__ import annotations

import json

from pipeline.imports import FileImports, resolve, resolve_paths
from pipeline.parse import parse_file
from stratum.ids import node_id


def _parsed(files: dict[str, str]):
    out = []
    for path, code in files.items():
        pf = parse_file("r", path, code.encode())
        out.append(FileImports(pf.path, pf.language, tuple(pf.imports)))
    return out


def pairs(files: dict[str, str], others=(), manifests=None) -> set[tuple[str, str]]:
    return resolve_paths(_parsed(files), set(files) | set(others), manifests)


def externals(files: dict[str, str], others=(), manifests=None) -> set[tuple[str, str]]:
    _, ext = resolve("r", _parsed(files), set(files) | set(others), manifests)
    return {(e["path"], e["target"]) for e in ext}


def test_python_absolute_relative_and_submodules():
    files = {
        "pkg/__init__.py": "from . import core, VERSION\nfrom .core import run\n",
        "pkg/core.py": "import pkg.util.text\nimport os.path\nfrom pkg.util import text, helpers\n",
        "pkg/util/__init__.py": "helpers = 1\n",
        "pkg/util/text.py": "from .. import core\nfrom ..core import run as r\nfrom ... import toplevel\n",
        "app.py": "from pkg import core\nimport pkg\nfrom pkg.util.text import *\nimport pkg.core.run\n",
    }
    assert pairs(files) == {
        ("pkg/__init__.py", "pkg/core.py"),                  # VERSION is not a module: __init__ itself (self, dropped)
        ("pkg/core.py", "pkg/util/text.py"),
        ("pkg/core.py", "pkg/util/__init__.py"),             # `helpers` is a name in pkg/util/__init__
        ("pkg/util/text.py", "pkg/core.py"),
        ("app.py", "pkg/core.py"),
        ("app.py", "pkg/__init__.py"),
        ("app.py", "pkg/util/text.py"),
    }
    assert externals(files) == {("pkg/core.py", "os.path"), ("pkg/util/text.py", "...toplevel")}


def test_python_src_layout_package_roots_and_scripts():
    files = {
        "src/lib/__init__.py": "",
        "src/lib/a.py": "from lib import b\n",
        "src/lib/b.py": "",
        "tools/other/__init__.py": "",
        "tools/other/x.py": "import lib.a\nimport other\n",
        "scripts/run.py": "import helper\nimport lib\n",
        "scripts/helper.py": "",
        "tests/test_a.py": "from lib.a import thing\nimport conftest\n",
        "tests/conftest.py": "",
    }
    assert pairs(files) == {
        ("src/lib/a.py", "src/lib/b.py"),
        ("tools/other/x.py", "src/lib/a.py"),
        ("tools/other/x.py", "tools/other/__init__.py"),
        ("scripts/run.py", "scripts/helper.py"),
        ("scripts/run.py", "src/lib/__init__.py"),
        ("tests/test_a.py", "src/lib/a.py"),
        ("tests/test_a.py", "tests/conftest.py"),
    }


def test_javascript_and_typescript_specifiers():
    files = {
        "src/a.ts": ('import b from "./b";\nimport c from "./dir";\nimport d from "../lib/d.js";\n'
                     'import e from "./e.json";\nimport r from "react";\nimport fs from "node:fs";\n'
                     'export { x } from "./x.mjs";\nconst l = await import("./lazy");\n'),
        "src/b.tsx": "", "src/dir/index.ts": "", "lib/d.ts": "", "src/e.json": "", "src/x.mjs": "",
        "src/lazy.jsx": "",
        "old/main.js": 'const h = require("./h");\nconst u = require("../src/dir");\nrequire("./none");\n',
        "old/h.cjs": "",
    }
    assert pairs(files) == {
        ("src/a.ts", "src/b.tsx"), ("src/a.ts", "src/dir/index.ts"), ("src/a.ts", "lib/d.ts"),
        ("src/a.ts", "src/e.json"), ("src/a.ts", "src/x.mjs"), ("src/a.ts", "src/lazy.jsx"),
        ("old/main.js", "old/h.cjs"), ("old/main.js", "src/dir/index.ts"),
    }
    assert externals(files) == {("src/a.ts", "react"), ("src/a.ts", "node:fs"), ("old/main.js", "./none")}


def test_c_and_cpp_includes():
    files = {
        "lib/include/lib/api.h": "",
        "lib/src/api.c": '#include "lib/api.h"\n#include "internal.h"\n#include <lib/api.h>\n#include <stdlib.h>\n',
        "lib/src/internal.h": "",
        "app/main.cpp": '#include "../lib/src/internal.h"\n#include "config/settings.hpp"\n#include <string>\n',
        "config/settings.hpp": "",
        "include/top.h": "",
        "tools/t.c": '#include "top.h"\n#include "missing.h"\n',
    }
    assert pairs(files) == {
        ("lib/src/api.c", "lib/include/lib/api.h"),
        ("lib/src/api.c", "lib/src/internal.h"),
        ("app/main.cpp", "lib/src/internal.h"),
        ("app/main.cpp", "config/settings.hpp"),
        ("tools/t.c", "include/top.h"),
    }
    assert externals(files) == {("lib/src/api.c", "<stdlib.h>"), ("app/main.cpp", "<string>"),
                                ("tools/t.c", '"missing.h"')}


def test_go_packages_via_go_mod():
    files = {
        "cmd/app/main.go": 'package main\nimport (\n\t"fmt"\n\t"example.com/app/pkg/db"\n\tx "example.com/app/tools/sub/y"\n)\n',
        "pkg/db/db.go": "package db\n", "pkg/db/conn.go": "package db\n", "pkg/db/db_test.go": "package db\n",
        "tools/sub/y/y.go": "package y\n",
    }
    manifests = {"go.mod": "module example.com/app\n\ngo 1.22\n",
                 "tools/sub/go.mod": "module example.com/app/tools/sub\n"}
    assert pairs(files, manifests, manifests) == {
        ("cmd/app/main.go", "pkg/db/db.go"), ("cmd/app/main.go", "pkg/db/conn.go"),
        ("cmd/app/main.go", "tools/sub/y/y.go"),
    }
    assert externals(files, manifests, manifests) == {("cmd/app/main.go", "fmt")}


def test_java_classes_nested_wildcards_and_statics():
    root = "svc/src/main/java/"
    files = {
        root + "com/acme/App.java": ("package com.acme;\nimport com.acme.util.Strings;\n"
                                     "import com.acme.model.Order.Line;\nimport static com.acme.util.Strings.trim;\n"
                                     "import com.acme.model.*;\nimport java.util.List;\n"),
        root + "com/acme/util/Strings.java": "package com.acme.util;\n",
        root + "com/acme/model/Order.java": "package com.acme.model;\n",
        root + "com/acme/model/Item.java": "package com.acme.model;\n",
    }
    assert pairs(files) == {
        (root + "com/acme/App.java", root + "com/acme/util/Strings.java"),
        (root + "com/acme/App.java", root + "com/acme/model/Order.java"),
        (root + "com/acme/App.java", root + "com/acme/model/Item.java"),
    }
    assert externals(files) == {(root + "com/acme/App.java", "java.util.List")}


def test_rust_mod_use_and_workspace_crates():
    files = {
        "core/src/lib.rs": "mod net;\nmod fs;\nuse crate::net::tcp::Stream;\nuse self::fs::*;\nuse serde::Serialize;\n",
        "core/src/net/mod.rs": "pub mod tcp;\nuse super::fs::File;\nuse crate::Thing;\n",
        "core/src/net/tcp.rs": "use crate::{fs, net::tcp};\nuse super::super::fs as f;\n",
        "core/src/fs.rs": "",
        "cli/src/main.rs": "use core_kit::net::tcp::Stream;\nextern crate core_kit;\n",
    }
    manifests = {"core/Cargo.toml": '[package]\nname = "core-kit"\n\n[dependencies]\nname = "nope"\n',
                 "cli/Cargo.toml": '[package]\nname = "cli"\n'}
    assert pairs(files, manifests, manifests) == {
        ("core/src/lib.rs", "core/src/net/mod.rs"),
        ("core/src/lib.rs", "core/src/fs.rs"),
        ("core/src/lib.rs", "core/src/net/tcp.rs"),
        ("core/src/net/mod.rs", "core/src/net/tcp.rs"),
        ("core/src/net/mod.rs", "core/src/fs.rs"),
        ("core/src/net/mod.rs", "core/src/lib.rs"),
        ("core/src/net/tcp.rs", "core/src/fs.rs"),
        ("cli/src/main.rs", "core/src/net/tcp.rs"),
        ("cli/src/main.rs", "core/src/lib.rs"),
    }
    assert externals(files, manifests, manifests) == {("core/src/lib.rs", "serde::Serialize")}


def test_edges_are_deduplicated_with_meta():
    files = {"a.py": "import b\nfrom b import x\nimport b as again\n", "b.py": ""}
    edges, ext = resolve("r", _parsed(files), set(files))
    assert ext == []
    (e,) = edges
    assert (e["src"], e["dst"], e["kind"]) == (node_id("r", "a.py", "file"), node_id("r", "b.py", "file"), "imports")
    assert json.loads(e["meta"]) == {"text": "import b", "line": 1, "n": 3}


def test_python_namespace_subpackage_inside_a_package():
    files = {
        "src/flask/__init__.py": "",
        "src/flask/helpers.py": "",
        "src/flask/sansio/app.py": "from ..helpers import x\nfrom .scaffold import Scaffold\nfrom . import scaffold\n",
        "src/flask/sansio/scaffold.py": "import flask.helpers\n",
    }
    assert pairs(files) == {
        ("src/flask/sansio/app.py", "src/flask/helpers.py"),
        ("src/flask/sansio/app.py", "src/flask/sansio/scaffold.py"),
        ("src/flask/sansio/scaffold.py", "src/flask/helpers.py"),
    }


# -- names re-exported by a package __init__ ------------------------------------------------------

REEXPORTING = {
    "src/web/__init__.py": ("from .app import App as App\nfrom .blueprints import Blueprint as Blueprint\n"
                            "from .wrappers import Response\nfrom .helpers import url_for as link\n"
                            "from . import json as json\nfrom .globals import *\nVERSION = '1'\n"),
    "src/web/app.py": "class App:\n    pass\n",
    "src/web/blueprints.py": "class Blueprint:\n    pass\n",
    "src/web/helpers.py": "def url_for():\n    pass\n",
    "src/web/globals.py": "request = None\n",
    "src/web/json/__init__.py": "def dumps():\n    pass\n",
    "src/web/wrappers/__init__.py": "from .response import Response as Response\n",
    "src/web/wrappers/response.py": "class Response:\n    pass\n",
}


def test_python_from_import_reaches_the_module_a_package_reexports_from():
    files = {**REEXPORTING,
             "tests/test_bp.py": "from web import Blueprint, VERSION\n",
             "tests/test_resp.py": "from web import Response\n",               # two levels of re-export
             "tests/test_link.py": "from web import link, request\n"}          # renamed; a wildcard's name
    got = pairs(files)
    assert {t for s, t in got if s == "tests/test_bp.py"} == {"src/web/__init__.py", "src/web/blueprints.py"}
    assert {t for s, t in got if s == "tests/test_resp.py"} == {"src/web/__init__.py", "src/web/wrappers/response.py"}
    # `link` is helpers.url_for bound under another name; what `*` binds is not known: __init__ only
    assert {t for s, t in got if s == "tests/test_link.py"} == {"src/web/__init__.py", "src/web/helpers.py"}
    edges, _ = resolve("r", _parsed(files), set(files))
    meta = {e["dst"]: json.loads(e["meta"]) for e in edges if e["src"] == node_id("r", "tests/test_resp.py", "file")}
    assert meta[node_id("r", "src/web/wrappers/response.py", "file")] == {
        "text": "from web import Response", "line": 1, "n": 1, "via": "src/web/__init__.py"}
    assert "via" not in meta[node_id("r", "src/web/__init__.py", "file")]


def test_python_bare_package_import_reaches_only_the_names_the_file_reads():
    files = {**REEXPORTING,
             "tests/test_app.py": ("import web\nimport web.json as wj\n\n\ndef test_app():\n"
                                   "    '''web.Blueprint is only named here'''\n    # web.Response too\n"
                                   "    assert web.App() and web.json.dumps and wj.dumps\n"),
             "tests/test_mod.py": "from web import wrappers as w\n\n\ndef test_r():\n    w.Response()\n"}
    got = pairs(files)
    assert {t for s, t in got if s == "tests/test_app.py"} == {
        "src/web/__init__.py", "src/web/app.py", "src/web/json/__init__.py"}
    assert {t for s, t in got if s == "tests/test_mod.py"} == {
        "src/web/wrappers/__init__.py", "src/web/wrappers/response.py"}


def test_python_reexport_cycle_ends():
    # a and b re-export `thing` from each other (nothing defines it): the import stays on a's
    # __init__, whichever file is resolved first; c.py importing its package's name back is no cycle
    files = {"a/__init__.py": "from b import thing\n", "b/__init__.py": "from a import thing\n",
             "c/__init__.py": "from .c import name\nfrom . import name as again\n", "c/c.py": "from c import name\n",
             "use.py": "from a import thing\nimport c\nc.name\nc.again\n"}
    got = pairs(files)
    assert {t for s, t in got if s == "use.py"} == {"a/__init__.py", "c/__init__.py", "c/c.py"}
    assert {t for s, t in pairs({**files, "0.py": "from b import thing\n"}) if s == "use.py"} == \
        {"a/__init__.py", "c/__init__.py", "c/c.py"}


def test_attribute_uses_are_read_off_code_not_text():
    src = ("import flask\nimport os\nimport typing as t\nfrom pkg import sub as s, Klass\n\n"
           "x = flask.Flask(flask . request)\ny = '''flask.session''' # flask.g\nz = a.flask.url_for\n"
           "s.one(s.two, s.one)\nKlass.attr\nos.path\nt.Any\n")
    refs = {r.target: r for r in parse_file("r", "m.py", src.encode()).imports}
    assert refs["flask"].uses == ("Flask", "request")
    assert refs["os"].uses == () and refs["typing"].uses == ()          # the standard library is not scanned
    assert refs["pkg"].uses == ("sub.one", "sub.two") and refs["pkg"].bound == ("s", "Klass")


def test_python_reexports_read_from_context_files():
    # an overlay resolves its changed files only; the base's package __init__ files come as context
    test = {"tests/test_bp.py": "from web import Blueprint\n"}
    base = set(REEXPORTING)
    assert pairs(test, base) == {("tests/test_bp.py", "src/web/__init__.py")}
    assert resolve_paths(_parsed(test), set(test) | base, context=_parsed(REEXPORTING)) == {
        ("tests/test_bp.py", "src/web/__init__.py"), ("tests/test_bp.py", "src/web/blueprints.py")}
    edges, _ = resolve("r", _parsed(test), set(test) | base, context=_parsed(REEXPORTING))
    assert {e["src"] for e in edges} == {node_id("r", "tests/test_bp.py", "file")}     # no edges of the context


def test_stored_import_records_read_back_as_tuples():
    from dataclasses import asdict
    from pipeline.imports import ImportRef

    ref = ImportRef("from", "pkg", ("sub", "Klass"), bound=("s", "Klass"), uses=("sub.one",))
    back = ImportRef(**json.loads(json.dumps(asdict(ref))))     # how a re-index reads a file node's meta
    assert back == ref and hash(back) == hash(ref)
