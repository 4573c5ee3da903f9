"""Regenerate serving/_gen from proto/stratum/v1/stratum.proto (the `make proto` target).

protoc names the generated modules after the proto path (``stratum.v1.stratum_pb2``), which would
collide with our own top-level ``stratum`` package. So we run grpc_tools.protoc into a scratch
directory, flatten the output into ``serving/_gen/`` and point the imports at ``serving._gen``.
The same function regenerates into a temporary directory in the sync test, which compares bytes.

    python -m serving.protogen            # rewrite serving/_gen
    python -m serving.protogen --check    # exit 1 when serving/_gen is out of date
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PROTO = "stratum/v1/stratum.proto"
GEN_DIR = Path(__file__).resolve().parent / "_gen"
GENERATED = ("stratum_pb2.py", "stratum_pb2.pyi", "stratum_pb2_grpc.py")

_REWRITES = (
    ("from stratum.v1 import stratum_pb2 as", "from serving._gen import stratum_pb2 as"),
    ("'stratum.v1.stratum_pb2'", "'serving._gen.stratum_pb2'"),
)


def generate(out_dir: str | Path) -> list[Path]:
    """Write the generated modules into ``out_dir``; the paths written."""
    from grpc_tools import protoc  # dev dependency: only needed to regenerate

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        include = str(Path(protoc.__file__).parent / "_proto")   # well-known types
        rc = protoc.main(["grpc_tools.protoc", f"-I{PROTO_ROOT}", f"-I{include}",
                          f"--python_out={scratch}", f"--grpc_python_out={scratch}",
                          f"--pyi_out={scratch}", str(PROTO_ROOT / PROTO)])
        if rc != 0:
            raise RuntimeError(f"protoc failed with exit code {rc} on {PROTO_ROOT / PROTO}")
        written = []
        for name in GENERATED:
            text = (Path(scratch) / "stratum" / "v1" / name).read_text()
            for old, new in _REWRITES:
                text = text.replace(old, new)
            dest = out_dir / name
            dest.write_text(text)
            written.append(dest)
    return written


def stale_files(gen_dir: str | Path = GEN_DIR) -> list[str]:
    """Names of generated files in ``gen_dir`` that differ from a fresh generation."""
    with tempfile.TemporaryDirectory() as fresh:
        generate(fresh)
        return [name for name in GENERATED
                if not (Path(gen_dir) / name).is_file()
                or (Path(gen_dir) / name).read_bytes() != (Path(fresh) / name).read_bytes()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m serving.protogen", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report whether serving/_gen is current")
    args = ap.parse_args(argv)
    if args.check:
        stale = stale_files()
        if stale:
            print(f"out of date with {PROTO}: {', '.join(stale)}; run `make proto`", file=sys.stderr)
            return 1
        print("serving/_gen is up to date")
        return 0
    for path in generate(GEN_DIR):
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


__all__ = ["generate", "stale_files", "main", "PROTO", "PROTO_ROOT", "GEN_DIR", "GENERATED"]


if __name__ == "__main__":
    sys.exit(main())
