"""Build real git repositories with scripted histories for the history tests.

Commits get fixed, increasing dates (one day apart unless told) and a fixed identity, and the
user's own git configuration is ignored, so every run builds byte-identical histories.
"""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

EPOCH = datetime(2024, 1, 1, 12, 0, 0, tzinfo=timezone.utc)


class GitRepo:
    def __init__(self, root: Path, *, init: bool = True):
        self.root = Path(root)
        self.day = 0
        if init:
            self.root.mkdir(parents=True, exist_ok=True)
            self.git("init", "-q", "-b", "main")

    def env(self, when: datetime | None = None) -> dict:
        e = dict(os.environ)
        e.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Ada",
                 GIT_AUTHOR_EMAIL="ada@example.com", GIT_COMMITTER_NAME="Ada",
                 GIT_COMMITTER_EMAIL="ada@example.com")
        if when is not None:
            stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
            e.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
        return e

    def git(self, *args: str | bytes, when: datetime | None = None) -> str:
        p = subprocess.run(["git", "-C", str(self.root), *args], env=self.env(when), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise RuntimeError(f"git {args} failed: {p.stderr.decode(errors='replace')}")
        return p.stdout.decode("utf-8", "replace").strip()

    def write(self, path: str | bytes, content: str | bytes = "x\n") -> None:
        p = os.path.join(os.fsencode(self.root), os.fsencode(path))
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(content.encode() if isinstance(content, str) else content)

    def append(self, path: str, line: str) -> None:
        with open(self.root / path, "a") as f:
            f.write(line + "\n")

    def rm(self, path: str) -> None:
        self.git("rm", "-q", path)

    def mv(self, src: str, dst: str) -> None:
        (self.root / dst).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", src, dst)

    def when(self, day: int | None = None) -> datetime:
        if day is None:
            self.day += 1
            day = self.day
        else:
            self.day = max(self.day, day)
        return EPOCH + timedelta(days=day)

    def commit(self, message: str | bytes, *, day: int | None = None, allow_empty: bool = False) -> str:
        """Stage everything and commit; returns the new sha."""
        self.git("add", "-A")
        args = ["commit", "-q", "--no-verify"] + (["--allow-empty"] if allow_empty else [])
        if isinstance(message, bytes):
            msg_file = self.root.parent / f".msg-{self.root.name}"
            msg_file.write_bytes(message)
            args += ["-F", str(msg_file)]
        else:
            args += ["-m", message]
        self.git(*args, when=self.when(day))
        return self.head()

    def commit_raw(self, message: bytes, *, day: int | None = None) -> str:
        """Commit with a message stored byte for byte (`git commit` re-encodes invalid UTF-8)."""
        self.git("add", "-A")
        tree = self.git("write-tree")
        stamp = int(self.when(day).timestamp())
        parent = self.git("rev-parse", "-q", "--verify", "HEAD") if self.has_commits() else ""
        obj = f"tree {tree}\n" + (f"parent {parent}\n" if parent else "")
        obj += f"author Ada <ada@example.com> {stamp} +0000\ncommitter Ada <ada@example.com> {stamp} +0000\n\n"
        p = subprocess.run(["git", "-C", str(self.root), "hash-object", "-t", "commit", "-w", "--stdin",
                            "--literally"], input=obj.encode() + message, stdout=subprocess.PIPE, check=True,
                           env=self.env())
        sha = p.stdout.decode().strip()
        self.git("update-ref", "HEAD", sha)
        return sha

    def has_commits(self) -> bool:
        return subprocess.run(["git", "-C", str(self.root), "rev-parse", "-q", "--verify", "HEAD"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env()).returncode == 0

    def change(self, *paths: str, message: str = "edit", day: int | None = None) -> str:
        """Append a line to each path (creating it) and commit."""
        for p in paths:
            if (self.root / p).exists():
                self.append(p, f"change {self.day + 1}")
            else:
                self.write(p, f"created {self.day + 1}\n")
        return self.commit(message, day=day)

    def merge(self, *branches: str, message: str = "merge", day: int | None = None) -> str:
        self.git("merge", "-q", "--no-ff", "-m", message, *branches, when=self.when(day))
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    def checkout(self, *args: str) -> None:
        self.git("checkout", "-q", *args)
