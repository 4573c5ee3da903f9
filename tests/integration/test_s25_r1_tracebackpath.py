"""Review R1 (session 25): a traceback's absolute path to a file at the repository's root is read by
its tail, even when the repository has a folder named like the traceback machine's.

Since c814744 a path that goes on into a folder the repository has, without the file there, names
no file (``pathtails.crossed``). A Docker image's code lives at /app (the common WORKDIR) and a
Flask or FastAPI project has its own ``app/`` package: `File "/app/manage.py", line 2` was refused,
"the folder app holds no 'manage.py'", though /app is the machine's folder and manage.py the
repository's own (before c814744 it served manage.py, as /srv/code/manage.py still does). A
relative app/manage.py stays refused. Real git repository, the real index job, the real Tools."""

from __future__ import annotations

import pytest

from stratum.errors import NotFound
from tests.gitrepo import indexed_tools

pytestmark = pytest.mark.slow
FILES: dict[str, str | bytes] = {"manage.py": "def main():\n    return 1\n", "app/__init__.py": "",
         "app/models.py": "class User:\n    pass\n"}


def test_a_traceback_path_under_slash_app_names_the_root_file_not_the_app_package(tmp_path) -> None:
    with indexed_tools(tmp_path, FILES) as (t, s):
        for target in ("/app/manage.py", "/app/manage.py:2", "/srv/code/manage.py"):
            got = t.get(s, target=target)
            assert [i.path for i in got.items][:1] == ["manage.py"], target
        with pytest.raises(NotFound, match="holds no 'manage.py'"):
            t.get(s, target="app/manage.py")          # relative: the repository's app/ folder, as c814744 meant
