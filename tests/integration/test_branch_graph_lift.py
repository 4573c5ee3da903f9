"""In a session on a branch, a file the branch changed keeps the lifts its path earns from the default
branch's strongest hits: imported by one of them, co-changing with one (stratum.searchlists: the branch's
list is reranked among the default branch's candidates; signals.BranchListSignals). Its version on the
branch was its own row and the lift, keyed on the default branch's row, never reached it (flask, "session
cookie signing secret key": tag.py 42nd on main, "imported by src/flask/sessions.py", 62nd on a branch
that added a function to it, "text"). Over a real git repository indexed by the real pipeline and the
real branch overlay builder."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
QUERY = "sign the session cookie with the secret key"
SESSION, TAGGER, JAR = "shop/session.py", "shop/tagger.py", "shop/jar.py"
LOGIN, LOGOUT = "shop/login.py", "shop/logout.py"
IMPORT = "from shop.session import sign_session_cookie\n\n\n"
UNTAG = 'def untag_value(text):\n    """the value a tag stands for"""\n    return text[1:]\n\n\n'


def _repo(tmp_path) -> str:
    """main: session.py (the query's words) imports tagger.py and changes with jar.py (both match the
    query weakly), twenty helpers match it as weakly, login.py imports session.py; branch feature adds
    a function at the top of tagger.py and of jar.py (their other functions move down: the branch's
    versions are told apart), login.py stops importing session.py and logout.py starts."""
    r = Repo(tmp_path / "repo")
    files = {"shop/__init__.py": "",
             SESSION: IMPORT.replace("session import sign_session_cookie", "tagger import tag_value") +
                      "def sign_session_cookie(value, secret_key):\n"
                      '    """sign the session cookie with the secret key"""\n'
                      "    return tag_value(value) + secret_key\n",
             TAGGER: 'def tag_value(value):\n    """a compact tag for a value stored in a cookie"""\n    return repr(value)\n',
             JAR: 'def jar_of(values):\n    """a cookie jar for the values"""\n    return list(values)\n',
             LOGIN: IMPORT + "def login(user):\n    return sign_session_cookie(user, 'k')\n",
             LOGOUT: "def logout(user):\n    return user\n"}
    for i in range(20):
        files[f"shop/util{i}.py"] = (f'def helper_{i}(value):\n    """the {i} cookie jar helper for a value"""\n'
                                     f"    return value + {i}\n")
    r.commit("init", files)
    for n in range(3):          # session.py and jar.py change together
        r.commit(f"tweak {n}", {SESSION: files[SESSION] + f"\n# {n}\n", JAR: files[JAR] + f"\n# {n}\n"})
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("untag", {TAGGER: UNTAG + files[TAGGER], JAR: UNTAG.replace("untag_value", "unjar") + files[JAR] + "\n# 2\n",
                       LOGIN: "def login(user):\n    return user\n",
                       LOGOUT: IMPORT + "def logout(user):\n    return sign_session_cookie(user, '')\n"})
    git(r.path, "checkout", "-q", "main")
    return str(store)


def _best(items, path: str, name: str):
    """(position, item) of the function NAME of PATH on a page."""
    return next((k, it) for k, it in enumerate(items) if it.path == path and it.name == name)


def test_a_file_the_branch_changed_keeps_the_lift_its_importer_and_co_change_give_it(tmp_path):
    store = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    base = t.open_session().data["session"]
    feature = t.open_session(branch="feature").data["session"]
    main_items, items = (t.search(sid, QUERY, page_size=40).items for sid in (base, feature))
    for path, name, why in ((TAGGER, "tag_value", f"imported by {SESSION}"), (JAR, "jar_of", f"co-changes with {SESSION}")):
        k_main, on_main = _best(main_items, path, name)
        assert why in on_main.why, on_main.why
        k, it = _best(items, path, name)
        # the branch's version (moved down by the function added above it), lifted by the same file
        assert (on_main.start_line, it.start_line) == (1, 6), (on_main.start_line, it.start_line)
        assert why in it.why, (k, k_main, it.why)
        # the default branch's version is not served beside it
        assert [i.start_line for i in items if i.path == path and i.name == name] == [6]
        if path == TAGGER:      # an import lifts it where main has it (co-change, weighted 0.05, barely moves)
            assert abs(k - k_main) <= 2, (k, k_main, it.why)
    t.close()


def test_a_changed_files_imports_count_as_the_branch_has_them(tmp_path):
    # the default branch's graph says login.py imports session.py; the branch's login.py does not,
    # and its logout.py does: the lift an importer gets from session.py follows the branch's edges
    store = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    why = f"imports {SESSION}"
    for sid, lifted, not_lifted in ((t.open_session().data["session"], LOGIN, LOGOUT),
                                    (t.open_session(branch="feature").data["session"], LOGOUT, LOGIN)):
        items = t.search(sid, QUERY, page_size=60).items
        got: dict[str, str] = {}
        for it in items:        # a file's best item carries its lift
            got.setdefault(it.path, it.why)
        assert why in got.get(lifted, ""), got
        assert why not in got.get(not_lifted, ""), got
    t.close()
