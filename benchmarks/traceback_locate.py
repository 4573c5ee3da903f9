"""What a pasted traceback costs a search (frames located by get's path rules, session 25).

Definitions: a repository of 300 JS packages (``packages/pN/src/index.ts``, ``util.ts``) and 300
Python packages (``py/mN/__init__.py``), indexed without embeddings; two pastes of 32 frames each:
a JS stack whose frames cross into folders the repository lacks or name a tail two packages share,
and a Python traceback whose frames half resolve (``/srv/py/mN/...``) and half do not. Printed:
``search`` of each paste (page of 5, mean of 10 after one warm call) and ``tracebacks.locate`` alone
(mean of 20).

    .venv/bin/python benchmarks/traceback_locate.py [--code PATH] [--work DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", default=str(HERE / ".out" / "traceback_locate"))
    ap.add_argument("--code", default=str(HERE.parent), help="the checkout whose code runs")
    args = ap.parse_args()
    sys.path.insert(0, args.code)
    from stratum.config import default_store_path
    from stratum.tools import Tools
    from stratum.tracebacks import frames, locate
    from tests.clirun import indexed_repo

    base = Path(args.work)
    store = default_store_path(base)       # where an earlier run indexed it
    if not store.exists():
        files = {}
        for i in range(300):
            files[f"packages/p{i}/src/index.ts"] = f"export function f{i}(x: number) {{\n  return x + {i};\n}}\n"
            files[f"packages/p{i}/src/util.ts"] = f"export function u{i}(x: number) {{\n  return x * {i};\n}}\n"
            files[f"py/m{i}/__init__.py"] = f"def g{i}():\n    return {i}\n"
        indexed_repo(base, files)
    t = Tools.open([str(default_store_path(base))])          # made now, if it was not
    s = t.open_session(author="a").data["session"]
    js = "TypeError: boom\n" + "".join(f"    at f{i} (/app/packages/q{i}/src/index.ts:2:3)\n"
                                       f"    at u{i} (/build/src/util.ts:2:3)\n" for i in range(16))
    py = "Traceback (most recent call last):\n" + "".join(
        f'  File "/srv/py/m{i}/__init__.py", line 2, in g{i}\n  File "/srv/x{i}/__init__.py", line 2, in nope\n'
        for i in range(16)) + "ValueError: x\n"
    for name, q in (("js", js), ("python", py)):
        t.search(s, q, page_size=5)
        t0 = time.perf_counter()
        for _ in range(10):
            t.search(s, q, page_size=5)
        print(f"search, {name} paste: {(time.perf_counter() - t0) / 10 * 1000:.1f} ms")
    sh = next(iter(t.memory))
    for name, q in (("js", js), ("python", py)):
        fs = frames(q)
        t0 = time.perf_counter()
        for _ in range(20):
            got = locate(sh, fs)
        print(f"locate, {name} paste: {(time.perf_counter() - t0) / 20 * 1000:.2f} ms, {len(got)} of {len(fs)} frames located")
    t.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
