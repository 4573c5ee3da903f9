"""Build real git repositories for tests with the real `git` binary (no fixtures on disk)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path
from typing import Iterator

GIT_ENV = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null"}


def git(repo: Path, *args: str, date: str | None = None, check: bool = True) -> str:
    env = {**os.environ, **GIT_ENV}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    p = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError(f"git {args} failed: {p.stderr}")
    return p.stdout


class Repo:
    """A scratch repository: write files, commit them with fixed dates."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        git(self.path, "init", "-q", "-b", "main")
        self._n = 0

    def write(self, files: dict[str, str | bytes]) -> None:
        for rel, content in files.items():
            p = self.path / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                p.write_text(content)

    def commit(self, message: str, files: dict[str, str | bytes] | None = None, delete: list[str] = ()) -> str:
        self._n += 1
        if files:
            self.write(files)
        for rel in delete:
            git(self.path, "rm", "-q", rel)
        git(self.path, "add", "-A")
        git(self.path, "commit", "-q", "--allow-empty", "-m", message,
            date=f"2024-01-{min(self._n, 28):02d}T12:{self._n % 60:02d}:00+00:00")
        return git(self.path, "rev-parse", "HEAD").strip()

    def mv(self, src: str, dst: str) -> None:
        (self.path / dst).parent.mkdir(parents=True, exist_ok=True)
        git(self.path, "mv", src, dst)


@contextlib.contextmanager
def indexed_tools(base: Path, files: dict[str, str | bytes], message: str = "initial", cfg=None) -> Iterator[tuple]:
    """(Tools, an open session's id) over a one-commit repository of ``files`` under ``base``, indexed
    in process by the real pipeline (``cfg``: its settings; default one CPU); the tools closed after."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.tools import Tools

    r = Repo(base / "repo")
    r.commit(message, files)
    index_repository(r.path, base / "store", cfg or IndexConfig(num_cpus=1))
    t = Tools.open([str(base / "store")])
    try:
        yield t, t.open_session(author="agent").data["session"]
    finally:
        t.close()


def noted_repo(base: Path, files: dict[str, str | bytes], about: str, text: str, cfg) -> tuple[Repo, str, str]:
    """A one-commit repository of ``files`` under ``base``, indexed into ``base/store`` with ``cfg``
    by the real pipeline, and an rca note ``text`` about ``about`` written by "writer" through the
    real Tools (unmerged): (repo, store, note id)."""
    from pipeline.job import index_repository
    from stratum.tools import Tools

    r = Repo(base / "repo")
    r.commit("init", files)
    store = str(base / "store")
    index_repository(r.path, store, cfg)
    t = Tools.open([store])
    try:
        s = t.open_session(author="writer").data["session"]
        return r, store, t.remember(s, "rca", text, [about]).data["note_id"]
    finally:
        t.close()


def sample_python_repo(path: Path) -> Repo:
    """A small package with real history: co-changes, a rename, a bug fix, tests."""
    r = Repo(path)
    r.commit("initial layout", {
        "README.md": "# shop\n",
        "shop/__init__.py": '"""A tiny shop."""\n',
        "shop/cart.py": (
            '"""Shopping cart."""\n\nfrom shop.pricing import price_of\n\n\n'
            'class Cart:\n    """Items a customer intends to buy."""\n\n'
            '    def __init__(self):\n        self.items = []\n\n'
            '    def add(self, sku: str, qty: int = 1) -> None:\n        """Add QTY of SKU."""\n'
            '        self.items.append((sku, qty))\n\n'
            '    def total(self) -> float:\n        """Sum of line prices."""\n'
            '        return sum(price_of(s) * q for s, q in self.items)\n'),
        "shop/pricing.py": (
            '"""Prices and discounts."""\n\nPRICES = {"apple": 0.5, "pear": 0.75}\n\n\n'
            'def price_of(sku: str) -> float:\n    """Unit price of a SKU in euros."""\n    return PRICES[sku]\n'),
        "tests/test_cart.py": (
            'from shop.cart import Cart\n\n\ndef test_total():\n    c = Cart()\n    c.add("apple", 2)\n'
            '    assert c.total() == 1.0\n'),
    })
    r.commit("add discounts to pricing and cart", {
        "shop/pricing.py": (
            '"""Prices and discounts."""\n\nPRICES = {"apple": 0.5, "pear": 0.75}\n\n\n'
            'def price_of(sku: str) -> float:\n    """Unit price of a SKU in euros."""\n    return PRICES[sku]\n\n\n'
            'def discount(total: float, code: str) -> float:\n    """Apply a discount CODE to a TOTAL."""\n'
            '    return total * 0.9 if code == "TEN" else total\n'),
        "shop/cart.py": (
            '"""Shopping cart."""\n\nfrom shop.pricing import discount, price_of\n\n\n'
            'class Cart:\n    """Items a customer intends to buy."""\n\n'
            '    def __init__(self):\n        self.items = []\n        self.code = ""\n\n'
            '    def add(self, sku: str, qty: int = 1) -> None:\n        """Add QTY of SKU."""\n'
            '        self.items.append((sku, qty))\n\n'
            '    def total(self) -> float:\n        """Sum of line prices after the discount code."""\n'
            '        return discount(sum(price_of(s) * q for s, q in self.items), self.code)\n'),
    })
    r.commit("add invoice rendering", {
        "shop/invoice.py": (
            '"""Render invoices as text."""\n\nfrom shop.cart import Cart\n\n\n'
            'def render_invoice(cart: Cart) -> str:\n    """One line per item and the total."""\n'
            '    lines = [f"{s} x{q}" for s, q in cart.items]\n'
            '    return "\\n".join(lines + [f"total {cart.total():.2f}"])\n'),
    })
    r.commit("fix rounding bug in discount and cart total", {
        "shop/pricing.py": (
            '"""Prices and discounts."""\n\nPRICES = {"apple": 0.5, "pear": 0.75}\n\n\n'
            'def price_of(sku: str) -> float:\n    """Unit price of a SKU in euros."""\n    return PRICES[sku]\n\n\n'
            'def discount(total: float, code: str) -> float:\n    """Apply a discount CODE to a TOTAL, rounded to cents."""\n'
            '    return round(total * 0.9, 2) if code == "TEN" else total\n'),
        "shop/cart.py": (
            '"""Shopping cart."""\n\nfrom shop.pricing import discount, price_of\n\n\n'
            'class Cart:\n    """Items a customer intends to buy."""\n\n'
            '    def __init__(self):\n        self.items = []\n        self.code = ""\n\n'
            '    def add(self, sku: str, qty: int = 1) -> None:\n        """Add QTY of SKU."""\n'
            '        self.items.append((sku, qty))\n\n'
            '    def total(self) -> float:\n        """Sum of line prices after the discount code, in cents precision."""\n'
            '        return discount(round(sum(price_of(s) * q for s, q in self.items), 2), self.code)\n'),
        "tests/test_cart.py": (
            'from shop.cart import Cart\n\n\ndef test_total():\n    c = Cart()\n    c.add("apple", 2)\n'
            '    assert c.total() == 1.0\n\n\ndef test_discount_rounds():\n    c = Cart()\n    c.code = "TEN"\n'
            '    c.add("pear", 3)\n    assert c.total() == 2.02\n'),
    })
    return r


def stuck_refs(repo: Path) -> Path:
    """Make ``repo``'s packed-refs a FIFO nobody writes: git hangs reading its refs (a stuck mount),
    until ``release`` gives it an end. Returns the FIFO."""
    fifo = Path(repo) / ".git" / "packed-refs"
    fifo.unlink()
    os.mkfifo(fifo)
    return fifo


def release(fifo: Path) -> None:
    """Every git waiting on ``stuck_refs``'s FIFO gets its end, and none that starts later waits:
    the path becomes an empty file first. A write-end opened and closed at once released only the
    gits already reading; one a killed run's worker started a moment later blocked for good (a
    leaked ``git rev-list``, seen 20-30 min after the test)."""
    with contextlib.suppress(OSError):
        held = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)   # a writer: gits blocked in open() go on
        try:
            empty = fifo.with_name(fifo.name + ".released")
            empty.write_bytes(b"")
            os.replace(empty, fifo)                        # later opens read an empty file
        finally:
            os.close(held)                                 # readers of the FIFO get their end
