"""What a pasted traceback's frames named by convention cost to locate (JVM classes, installed
copies under site-packages, a container root): the mean ``tracebacks.locate`` time per paste over a
repository of 300 Java packages and 300 Python packages the script builds once. Run it with the
code to measure on sys.path (a worktree of another commit for an A/B, pairs A B A B).

    .venv/bin/python benchmarks/traceback_frames.py --code PATH [--work DIR]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default=str(Path(__file__).resolve().parent / ".out" / "traceback_frames"))
    ap.add_argument("--code", required=True)
    args = ap.parse_args()
    sys.path.insert(0, args.code)
    from stratum.config import default_store_path
    from stratum.tools import Tools
    from stratum.tracebacks import frames, locate
    from tests.clirun import indexed_repo

    base = Path(args.work)
    store = default_store_path(base)       # where an earlier run indexed it
    if not store.exists():
        files = {"manage.py": "import sys\n\nsys.exit(1)\n", "app/__init__.py": "", "app/manage.py": "def main():\n    return 1\n"}
        for i in range(300):
            files[f"src/main/java/com/acme/p{i}/Svc.java"] = (f"package com.acme.p{i};\n\npublic class Svc {{\n"
                                                             f"    public int run() {{\n        return {i};\n    }}\n}}\n")
            files[f"src/m{i}/__init__.py"] = ""
            files[f"src/m{i}/core.py"] = f"def f{i}():\n    return {i}\n"
        for i in range(10):
            files[f"src/main/java/Main{i}.java"] = f"public class Main{i} {{\n    public static void main(String[] a) {{\n        int x = {i};\n    }}\n}}\n"
        indexed_repo(base, files)
    t = Tools.open([str(default_store_path(base))])          # made now, if it was not
    s = t.open_session(author="a").data["session"]
    jvm = 'Exception in thread "main" java.lang.IllegalStateException: x\n' + "".join(
        f"\tat com.acme.p{i}.Svc.run(Svc.java:5)\n\tat org.springframework.web.p{i}.Disp.go(Disp.java:{i + 10})\n"
        f"\tat Main{i % 10}.main(Main{i % 10}.java:3)\n" for i in range(11))
    site = "Traceback (most recent call last):\n" + "".join(
        f'  File "/venv/lib/python3.11/site-packages/m{i}/core.py", line 2, in f{i}\n'
        f'  File "/venv/lib/python3.11/site-packages/requests{i}/api.py", line 2, in get\n' for i in range(16)) + "ValueError: x\n"
    app = "Traceback (most recent call last):\n" + '  File "/app/manage.py", line 3, in <module>\n' + "".join(
        f'  File "/app/src/m{i}/core.py", line 2, in f{i}\n' for i in range(31)) + "ValueError: x\n"
    pastes = (("jvm", jvm), ("site-packages", site), ("container", app))
    for name, q in pastes:
        t.search(s, q, page_size=5)
        t0 = time.perf_counter()
        for _ in range(10):
            t.search(s, q, page_size=5)
        print(f"search, {name}: {(time.perf_counter() - t0) / 10 * 1000:.1f} ms")
    sh = next(iter(t.memory))
    for name, q in pastes:
        fs = frames(q)
        locate(sh, fs)
        t0 = time.perf_counter()
        for _ in range(20):
            got = locate(sh, fs)
        print(f"locate, {name}: {(time.perf_counter() - t0) / 20 * 1000:.2f} ms, {len(got)} of {len(fs)} frames located")
    t.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
