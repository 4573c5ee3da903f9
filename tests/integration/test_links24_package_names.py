"""A test's subject by name is a file of its own package (``pipeline.testlinks``): in a monorepo,
``packages/admin/src/cart.test.ts`` (which imports only ``./admincart``) was recorded as a test
of ``packages/web/src/cart.ts``, listed before web's own test of it, and
``libs/billing/tests/test_money.py`` (which imports only ``billing.invoice``) as a test of
``libs/py/orgutil/money.py``. A JS/TS package is the nearest folder with a ``package.json``, a
Python one with a ``pyproject.toml``/``setup.py``/``setup.cfg``; imports still link across
packages. A repository with one manifest at its top (flask: ``tests/`` + ``src/flask/``, its
examples packages of their own) links as before.
"""

from __future__ import annotations

import pytest
from stratum.config import default_store_path

pytestmark = pytest.mark.slow

MONOREPO = {
    "packages/web/package.json": '{"name": "@org/web"}\n',
    "packages/web/src/cart.ts": "export class Cart {\n  total(): number {\n    return 0;\n  }\n}\n",
    "packages/web/src/cart.test.ts": ('import { Cart } from "./cart";\n'
                                      'test("total", () => { expect(new Cart().total()).toBe(0); });\n'),
    "packages/web/src/api.ts": "export function get(): number {\n  return 1;\n}\n",
    # a marker manifest in a test folder ({"type": ...}) makes no package of the tests
    "packages/web/test/package.json": '{"type": "commonjs"}\n',
    "packages/web/test/api.ts": 'test("get", () => { expect(1).toBe(1); });\n',
    "packages/admin/package.json": '{"name": "@org/admin"}\n',
    "packages/admin/src/admincart.ts": ("export class AdminCart {\n  refund(a: number): number {\n"
                                        "    return -a;\n  }\n}\n"),
    "packages/admin/src/cart.test.ts": ('import { AdminCart } from "./admincart";\n'
                                        'test("refund", () => { expect(new AdminCart().refund(2)).toBe(-2); });\n'),
    "libs/py/pyproject.toml": '[project]\nname = "orgutil"\n',
    "libs/py/orgutil/__init__.py": "",
    "libs/py/orgutil/money.py": "def split(cents, n):\n    return [cents // n] * n\n",
    "libs/py/tests/test_money.py": ("from orgutil.money import split\n\n\n"
                                    "def test_split():\n    assert split(4, 2) == [2, 2]\n"),
    "libs/billing/setup.cfg": "[metadata]\nname = billing\n",
    "libs/billing/billing/__init__.py": "",
    "libs/billing/billing/invoice.py": "def invoice_total(items):\n    return sum(items)\n",
    "libs/billing/tests/test_money.py": ("from billing.invoice import invoice_total\n\n\n"
                                         "def test_total():\n    assert invoice_total([1, 2]) == 3\n"),
}

ONE_PACKAGE = {       # flask's layout: one pyproject.toml at the top, examples with their own
    "pyproject.toml": '[project]\nname = "flask"\n',
    "src/flask/__init__.py": "from .views import View\n",
    "src/flask/views.py": "class View:\n    pass\n",
    "src/flask/helpers.py": "def url_for(x):\n    return x\n",
    "tests/test_views.py": "def test_view():\n    assert True\n",
    "tests/test_helpers.py": "from flask.helpers import url_for\n\n\ndef test_url():\n    assert url_for(1) == 1\n",
    "examples/tutorial/pyproject.toml": '[project]\nname = "flaskr"\n',
    "examples/tutorial/flaskr/__init__.py": "",
    "examples/tutorial/flaskr/views.py": "def index():\n    return 1\n",
    "examples/tutorial/flaskr/auth.py": "def login():\n    return 1\n",
    "examples/tutorial/tests/test_auth.py": "def test_login():\n    assert True\n",
    "examples/tutorial/tests/test_views.py": "def test_index():\n    assert True\n",
}


def _open(tmp_path_factory, name: str, files: dict[str, str]):
    from pipeline.job import index_repository
    from stratum.config import EmbedConfig, IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    r = Repo(tmp_path_factory.mktemp(name) / "repo")
    r.commit("init", files)
    index_repository(r.path, None, IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False)))
    t = Tools.open([str(default_store_path(r.path))])
    return t, t.open_session(author="agent").data["session"]


@pytest.fixture(scope="module")
def mono(tmp_path_factory):
    t, sid = _open(tmp_path_factory, "links24mono", MONOREPO)
    yield t, sid
    t.close()


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    t, sid = _open(tmp_path_factory, "links24one", ONE_PACKAGE)
    yield t, sid
    t.close()


def _tests_of(tools, path: str) -> list[tuple[str, str]]:
    t, sid = tools
    return [(i.path, i.meta.get("by")) for i in t.walk(sid, path, edges=["tests"], direction="in").items]


def test_a_js_test_is_named_after_a_file_of_its_own_package_only(mono):
    assert _tests_of(mono, "packages/web/src/cart.ts") == [("packages/web/src/cart.test.ts", "name")]
    # admin's cart.test.ts tests what it imports, in its own package
    assert _tests_of(mono, "packages/admin/src/admincart.ts") == [("packages/admin/src/cart.test.ts", "import")]
    # a test folder's own package.json does not cut its tests off from their package's files
    assert _tests_of(mono, "packages/web/src/api.ts") == [("packages/web/test/api.ts", "name")]


def test_a_python_test_is_named_after_a_module_of_its_own_package_only(mono):
    assert _tests_of(mono, "libs/py/orgutil/money.py") == [("libs/py/tests/test_money.py", "name")]
    # billing's test_money.py imports billing.invoice: that is what it tests (setup.cfg: its package)
    assert _tests_of(mono, "libs/billing/billing/invoice.py") == [("libs/billing/tests/test_money.py", "import")]


def test_one_package_at_the_top_links_as_before(single):
    assert _tests_of(single, "src/flask/views.py") == [("tests/test_views.py", "name")]
    assert _tests_of(single, "src/flask/helpers.py") == [("tests/test_helpers.py", "name")]
    assert _tests_of(single, "examples/tutorial/flaskr/views.py") == [("examples/tutorial/tests/test_views.py", "name")]
    assert _tests_of(single, "examples/tutorial/flaskr/auth.py") == [("examples/tutorial/tests/test_auth.py", "name")]
