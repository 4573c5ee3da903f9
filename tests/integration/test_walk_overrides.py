"""Walking the callers of a method that overrides another: a call through the base's type (an
annotated attribute, a parameter) may reach the override, so its callers come with it, marked by
the base method they call (``from``)."""

from __future__ import annotations

from pipeline.job import index_repository
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo


def test_the_callers_of_an_override_include_those_calling_it_through_its_base(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {
        "app/sessions.py": "class SessionInterface:\n    def save_session(self, s):\n        raise NotImplementedError\n\n\n"
                           "class CookieSessions(SessionInterface):\n    def save_session(self, s):\n        return s\n\n"
                           "    def refresh(self, s):\n        return self.save_session(s)\n",
        "app/core.py": "from app.sessions import SessionInterface\n\n\nclass App:\n"
                       "    session_interface: SessionInterface\n\n"
                       "    def finish(self, s):\n        return self.session_interface.save_session(s)\n",
    })
    index_repository(r.path, tmp_path / "store", IndexConfig(num_cpus=1, ray=False))
    t = Tools.open([str(tmp_path / "store")])
    sid = t.open_session().data["session"]
    got = {(i.path, i.qualname): dict(i.meta) for i in
           t.walk(sid, "app/sessions.py::CookieSessions.save_session", edges=["calls"], direction="in").items}
    assert set(got) == {("app/sessions.py", "CookieSessions.refresh"), ("app/core.py", "App.finish")}
    assert got[("app/core.py", "App.finish")]["from"] == "SessionInterface.save_session"     # through the base
    assert got[("app/core.py", "App.finish")]["how"] == "attribute's class"
    assert "from" not in got[("app/sessions.py", "CookieSessions.refresh")]                     # its own caller
    base = {(i.path, i.qualname) for i in
            t.walk(sid, "app/sessions.py::SessionInterface.save_session", edges=["calls"], direction="in").items}
    assert base == {("app/core.py", "App.finish")}          # a base's callers are its own, not its overrides'
    t.close()


def test_on_a_branch_that_changed_the_override_its_base_callers_still_come(tmp_path):
    from pipeline.overlay import builder
    from tests.gitrepo import git

    cookie = ("from app.sessions import SessionInterface\n\n\nclass CookieSessions(SessionInterface):\n"
              "    def save_session(self, s):\n        return s\n")
    r = Repo(tmp_path / "repo")
    r.commit("init", {
        "app/sessions.py": "class SessionInterface:\n    def save_session(self, s):\n        raise NotImplementedError\n",
        "app/cookie.py": cookie,
        "app/core.py": "from app.sessions import SessionInterface\n\n\nclass App:\n    session_interface: SessionInterface\n\n"
                       "    def finish(self, s):\n        return self.session_interface.save_session(s)\n"})
    index_repository(r.path, tmp_path / "store", IndexConfig(num_cpus=1, ray=False))
    git(r.path, "checkout", "-q", "-b", "feat")
    r.commit("edit", {"app/cookie.py": cookie + "\n\ndef extra():\n    return 1\n"})
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([str(tmp_path / "store")], overlay_builder=builder())
    sid = t.open_session(branch="feat").data["session"]
    got = {(i.path, i.qualname): dict(i.meta) for i in
           t.walk(sid, "app/cookie.py::CookieSessions.save_session", edges=["calls"], direction="in").items}
    assert got[("app/core.py", "App.finish")]["from"] == "SessionInterface.save_session"   # base <- changed file
    t.close()


def test_a_callee_that_also_calls_the_base_keeps_its_own_edge(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"app/m.py": "class Base:\n    def m(self):\n        pass\n\n\ndef helper(b: Base):\n"
                                  "    return b.m()\n\n\nclass Child(Base):\n    def m(self):\n        return helper(self)\n"})
    index_repository(r.path, tmp_path / "store", IndexConfig(num_cpus=1, ray=False))
    t = Tools.open([str(tmp_path / "store")])
    sid = t.open_session().data["session"]
    items = t.walk(sid, "app/m.py::Child.m", edges=["calls"], direction="both").items
    assert [(i.qualname, i.direction, i.meta.get("as"), i.meta.get("from")) for i in items] == \
        [("helper", "out", "helper", None)]         # its own call to helper, not helper's b.m() via Base.m
    t.close()
