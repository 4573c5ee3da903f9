"""Every `stratum ...` command the README, docs and deploy manifests give parses with the CLI's own
parser: a renamed or removed flag breaks a documented command (or a nightly job) silently otherwise.

A command line of a fenced block must parse whole; synopsis lines (``[--flag]``, ``<placeholder>``,
``...``, ``a|b``) are usage summaries and are skipped. An inline mention (`stratum index --keep N`)
need not be a whole command: its subcommand and every ``--flag`` it names must exist."""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest
import yaml

from stratum.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _subparsers(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub[0].choices) if sub else {}


def _parses(argv: list[str]) -> str | None:
    """None when the parser takes ``argv``, else its complaint."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            build_parser().parse_args(argv)
    except SystemExit as e:
        if e.code:
            return err.getvalue().strip().splitlines()[-1]
    return None


def _unknown_flags(argv: list[str]) -> list[str]:
    """The ``--flags`` of ``argv`` its (sub)command does not have: what an inline mention such as
    `stratum index --keep N` can be checked for (it need not be a whole command)."""
    p, i = build_parser(), 0
    while i < len(argv) and argv[i] in _subparsers(p):
        p, i = _subparsers(p)[argv[i]], i + 1
    known = {o for a in p._actions for o in a.option_strings}
    return [a.split("=")[0] for a in argv[i:] if a.startswith("--") and a.split("=")[0] not in known]


def _doc_commands() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(where, command) of each command line of a fenced block (whole commands), and of each
    inline `stratum ...` span (mentions)."""
    subs = "|".join(sorted(_subparsers(build_parser()), key=len, reverse=True))
    lead = r"(?:\$\s+)?(?:\S*/)?(?:stratum|python -m stratum\.cli)\s+"
    in_block = re.compile(rf"^\s*{lead}((?:{subs})\b.*)$")
    inline = re.compile(rf"`{lead}((?:{subs})\b[^`]*)`")
    blocks: dict[str, str] = {}
    spans: dict[str, str] = {}
    for f in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = f.read_text()
        for kind, found in (
                (blocks, [m.group(1) for b in re.findall(r"```[a-z]*\n(.*?)```", text, re.S)
                          for line in b.replace("\\\n", " ").splitlines() if (m := in_block.match(line))]),
                (spans, inline.findall(re.sub(r"```.*?```", "", text, flags=re.S)))):
            for raw in found:
                cmd = re.split(r"\s(?:#|\||&&|;|>|2>)", raw)[0].strip()
                if kind is blocks and re.search(r"\[|<|\.\.\.|…|\S\|\S", cmd):
                    continue        # a synopsis, not a command
                kind.setdefault(f"{f.relative_to(ROOT)}: {cmd}", cmd)
    return list(blocks.items()), list(spans.items())


BLOCKS, SPANS = _doc_commands()


def test_the_docs_give_commands_to_check():
    assert len(BLOCKS) >= 10 and len(SPANS) >= 50, (BLOCKS, SPANS)


@pytest.mark.parametrize("where,cmd", BLOCKS, ids=[d for d, _ in BLOCKS])
def test_a_documented_command_parses(where, cmd):
    assert _parses(shlex.split(cmd)) is None, where


@pytest.mark.parametrize("where,cmd", SPANS, ids=[d for d, _ in SPANS])
def test_a_documented_flag_exists(where, cmd):
    try:
        argv = shlex.split(cmd)
    except ValueError:
        argv = cmd.split()
    assert _unknown_flags(argv) == [], where


def test_the_serving_deployment_args_parse():
    docs = list(yaml.safe_load_all((ROOT / "deploy/k8s/serving.yaml").read_text()))
    args = [c["args"] for d in docs if d and d.get("kind") == "Deployment"
            for c in d["spec"]["template"]["spec"]["containers"]]
    assert args and args[0][0] == "serve"
    for a in args:
        assert _parses(a) is None, a


def test_the_nightly_rayjob_command_parses():
    docs = list(yaml.safe_load_all((ROOT / "deploy/k8s/rayjob-nightly.yaml").read_text()))
    rayjob = next(yaml.safe_load(d["data"]["rayjob.yaml"]) for d in docs if d and d.get("kind") == "ConfigMap")
    cmds = re.findall(r"stratum (index [^|;']+?)\s*(?:\|\||;|'|$)", rayjob["spec"]["entrypoint"])
    assert len(cmds) == 1, rayjob["spec"]["entrypoint"]
    argv = shlex.split(cmds[0])
    assert _parses(argv) is None, cmds[0]
    assert "--repos-file" in argv and "--store-root" in argv


def test_the_image_entrypoint_is_the_cli():
    text = (ROOT / "deploy/Dockerfile").read_text()
    assert 'ENTRYPOINT ["stratum"]' in text
    scripts = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^stratum\s*=\s*"stratum\.cli:main"', scripts, re.M), "the image runs `stratum`: a console script"
