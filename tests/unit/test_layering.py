"""The layering holds by contract, not by habit: import-linter contracts (pyproject.toml) and a mypy
check run in ``make test``; these tests show both fail on a violation, and that every module declares
its public surface (``__all__``) with names that exist."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PACKAGES = ("stratum", "pipeline", "serving")


def _modules():
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            rel = p.relative_to(ROOT)
            if "_gen" in rel.parts or p.name == "__main__.py":
                continue
            yield rel


def _lint(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "lint-imports"), "--no-cache"], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def _copy_tree(dest: Path) -> None:
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, dest / pkg, ignore=shutil.ignore_patterns("__pycache__", "_gen"))
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")


def test_the_layering_contracts_hold_on_the_tree():
    r = _lint(ROOT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "broken" in r.stdout and " 0 broken" in r.stdout


@pytest.mark.parametrize("module, line, contract", [
    ("stratum/ids.py", "import ray  # injected by the test", "core imports no Ray"),
    ("stratum/tokens.py", "from pipeline import gitio  # injected", "core imports no Ray"),
    ("pipeline/files.py", "import serving.convert  # injected", "pipeline and serving never import each other"),
    ("pipeline/parse.py", "import ray  # injected", "Ray only in the pipeline's job module"),
])
def test_a_violation_breaks_a_contract(tmp_path, module, line, contract):
    _copy_tree(tmp_path)
    f = tmp_path / module
    f.write_text(f.read_text() + f"\n\ndef _injected():\n    {line}\n")
    r = _lint(tmp_path)
    assert r.returncode != 0, r.stdout[-2000:]
    assert "BROKEN" in r.stdout
    assert contract.split(" (")[0][:30] in r.stdout.replace("\n", " ")


def test_the_type_check_fails_on_a_type_error(tmp_path):
    """The same mypy configuration (pyproject.toml) on a tree with one error in a strict module."""
    pkg = tmp_path / "stratum"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "limits.py").write_text("def cap(x):\n    return x\n\n\nN: int = 'ten'\n")
    for d in ("pipeline", "serving"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "__init__.py").write_text("")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    r = subprocess.run([str(BIN / "mypy"), "--no-incremental"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode != 0
    assert "limits.py:1: error: Function is missing a type annotation" in r.stdout
    assert "limits.py:5: error: Incompatible types in assignment" in r.stdout


@pytest.mark.parametrize("rel", list(_modules()), ids=str)
def test_every_module_declares_its_public_surface(rel):
    """``__all__`` exists and names only what the module defines or imports."""
    tree = ast.parse((ROOT / rel).read_text())
    defined = set()
    exported = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        defined.add(n.id)
                        if n.id == "__all__" and node.value is not None:
                            exported = ast.literal_eval(node.value)
    assert exported is not None, f"{rel} has no __all__"
    missing = [n for n in exported if n not in defined]
    assert not missing, f"{rel}: __all__ names {missing}, which the module does not define"
