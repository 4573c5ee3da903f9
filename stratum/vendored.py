"""Which files lie in other projects' code (skipped as vendored): the rule, for the index and for
what `get` and `tree` say of a path the index lacks.

The index applies it to git's listing of the repository (``pipeline.files.discover``). A reader of
a store applies it to the one path it was asked for (``folder_of``), with the folders the store
keeps (``--keep-dir``, its manifest's settings): `get` of a vendored file said "the index skipped
it" only for the few paths a reason keeps as samples in the run's report, and for the others "new
since the indexed commit, or skipped" (a probe). Pure but for ``folder_of``, which reads the
folders of the checkout that decide a folder vendored only where third-party code sits.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable

from stratum.config import ParseConfig, keep_dirs_of
from stratum.errors import InvalidArgument

# What shows a folder holds a copied-in project (Vendored): its license (LICENSE, COPYING.txt,
# LICENSE-MIT; not code such as license.py), or its package manifest.
LICENSE_NAME = re.compile(r"(?i)(licen[cs]e|copying|notice)([._-].*)?")
PROJECT_MANIFEST = re.compile(r"(?i)package\.json|setup\.py|pyproject\.toml|cargo\.toml|go\.mod|composer\.json"
                              r"|.*\.gemspec|.*\.podspec")
# The extensions of the languages the index parses (pipeline.languages.EXTENSIONS; a unit test keeps
# them equal): a license-named file with one is code (license.py), not a copied-in project's license.
CODE_SUFFIXES = frozenset({".c", ".c++", ".cc", ".cjs", ".cpp", ".cts", ".cxx", ".go", ".h", ".h++", ".hh", ".hpp",
                           ".hxx", ".inl", ".ipp", ".java", ".js", ".jsx", ".kt", ".kts", ".mjs", ".mts", ".py", ".pyi", ".rs",
                           ".scala", ".tpp", ".ts", ".tsx"})
LISTED_PER_FOLDER = 2000        # entries ``folder_of`` reads in a folder of the checkout (and in each below it)


class Vendored:
    """Which files lie in other projects' code, over one listing of the repository's paths.

    A folder named in ``cfg.vendored_dirs`` (node_modules, vendor, third_party...) is vendored
    wherever it sits. One named in ``cfg.maybe_vendored_dirs`` (``external``: first-party code uses
    the name too, as sympy/external does) is vendored only where third-party code sits: at the
    repository root, or holding a copied-in project (a license or package manifest in it or in a
    folder right under it: external/glfw/LICENSE.md), and never when it is a Python package (an
    ``__init__.py`` in it: its parent's code imports it as its own). Below a folder of
    ``cfg.keep_dirs`` (``--keep-dir``) that folder and those above it do not count; a vendored
    folder further down still does. Measured on the repositories at hand (docs/operations.md): only sympy's
    ``sympy/external`` (16 files, a Python package) changed, from skipped to kept."""

    def __init__(self, paths: Iterable[str], cfg: ParseConfig):
        self.always = frozenset(cfg.vendored_dirs)
        self.maybe = frozenset(cfg.maybe_vendored_dirs) - self.always
        self.keep = tuple(d + "/" for d in keep_dirs_of(cfg.keep_dirs))
        self.packages: set[str] = set()         # folders holding an __init__.py
        self.projects: set[str] = set()         # folders holding, or right above, a license or manifest
        if self.maybe:
            for p in paths:
                parent, _, base = p.rpartition("/")
                if base == "__init__.py":
                    self.packages.add(parent)
                elif PROJECT_MANIFEST.fullmatch(base) or (LICENSE_NAME.fullmatch(base) and not is_code(base)):
                    self.projects.add(parent)
                    self.projects.add(parent.rpartition("/")[0])

    def folder(self, path: str) -> str | None:
        """The folder that makes ``path`` vendored (None: it is not)."""
        parts = path.split("/")
        depth = 0                               # folders at or above a kept one do not count
        for k in self.keep:
            if path.startswith(k):
                depth = max(depth, k.count("/"))
        for i in range(depth, len(parts) - 1):
            name = parts[i]
            if name in self.always:
                return "/".join(parts[:i + 1])
            if name in self.maybe:
                folder = "/".join(parts[:i + 1])
                if folder not in self.packages and (i == 0 or folder in self.projects):
                    return folder
        return None


def is_code(name: str) -> bool:
    """Whether a file name has the extension of a language the index parses (as
    ``pipeline.languages.language_for_path`` reads it)."""
    dot = name.rfind(".")
    return dot > name.rfind("/") and name[dot:].lower() in CODE_SUFFIXES


def folder_of(path: str, keep_dirs: Iterable[str], repo: str | None, folder: bool = False) -> str | None:
    """The folder that makes the repository path PATH (a FOLDER itself: it counts too) vendored by
    the rule with the store's kept folders, or None. A folder vendored only where third-party code
    sits (``external``) is judged by what the checkout at REPO holds in it and in the folders right
    under it (the index judged git's listing of the indexed commit): a license, a manifest, an
    ``__init__.py``. A kept folder the store recorded that is no longer valid counts as none."""
    try:
        cfg = ParseConfig(keep_dirs=keep_dirs_of(keep_dirs))
    except InvalidArgument:
        cfg = ParseConfig()
    path = path.strip("/") + ("/" if folder else "")
    parts = path.split("/")
    maybe = frozenset(cfg.maybe_vendored_dirs) - frozenset(cfg.vendored_dirs)
    listing = [p for i, name in enumerate(parts[:-1]) if name in maybe and repo
               for p in _listed(Path(repo), "/".join(parts[:i + 1]))]
    return Vendored(listing, cfg).folder(path)


def _listed(repo: Path, folder: str) -> list[str]:
    """The files of FOLDER of the checkout and of the folders right under it, as repository paths
    (links not followed; at most ``LISTED_PER_FOLDER`` entries read in each)."""
    out: list[str] = []
    for entry in _entries(repo / folder):
        if entry.is_file(follow_symlinks=False):
            out.append(f"{folder}/{entry.name}")
        elif entry.is_dir(follow_symlinks=False):
            out += [f"{folder}/{entry.name}/{e.name}" for e in _entries(repo / folder / entry.name)
                    if e.is_file(follow_symlinks=False)]
    return out


def _entries(folder: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as it:
            return [e for _, e in zip(range(LISTED_PER_FOLDER), it)]
    except OSError:             # gone, not a folder, unreadable: nothing there
        return []


__all__ = ["LICENSE_NAME", "PROJECT_MANIFEST", "CODE_SUFFIXES", "Vendored", "is_code", "folder_of"]
