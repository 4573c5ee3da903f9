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
