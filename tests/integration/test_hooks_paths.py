"""A git hook's script names its repository and store in a comment: a path holding a newline
must not end that comment and run the rest as shell code at every commit (a trust probe: a
directory named "x\\ntouch pwned\\n#" did)."""

from __future__ import annotations

import subprocess

from pipeline import hooks
from tests.gitrepo import Repo, git


def test_a_newline_in_the_repo_or_store_path_stays_inside_the_hooks_comment(tmp_path):
    r = Repo(tmp_path / "hk\ntouch pwned_repo\n#")
    r.commit("init", {"a.py": "def a():\n    return 1\n"})
    store = tmp_path / "st\ntouch pwned_store\n#"
    hooks.install(r.path, store)
    for name in hooks.HOOKS:
        text = (r.path / ".git" / "hooks" / name).read_text()
        # the comment is one line (the commands hold the paths inside single quotes, where a
        # newline is data)
        assert text.splitlines()[2].endswith("in the background; never blocks or fails git."), text
        assert subprocess.run(["sh", "-n", str(r.path / ".git" / "hooks" / name)]).returncode == 0
    git(r.path, "commit", "-q", "--allow-empty", "-m", "second")
    assert not list(r.path.glob("pwned*")) and not list(tmp_path.glob("pwned*"))
    assert not list(r.path.parent.glob("pwned*"))
    hooks.uninstall(r.path)
