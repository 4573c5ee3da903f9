"""Agent-style queries from the shell: tree, get, walk, search, status, remember.

Each runs against the local stores (``--store``, repeatable: answers span them all, as `stratum
serve` serves several; default: this repository's) or a running server (``--server host:port``)
through the same tool functions; every answer ends with its token cost
and what remains. A flag left out is not sent, so the tool's own default applies (page sizes,
depth, level, direction), the one gRPC and MCP callers get; the choices are the tools' own too
(``stratum.toolspec.ARGS``).
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Sequence

from stratum.cli import add_common, emit, local_store, one_line, quoted, repository_root, server_place, whole
from stratum.cli.herepaths import in_store, place_from_here, target_from_here
from stratum.freshness import repo_at
from stratum.notetext import terminal_safe
from stratum.schema import AGENT_NOTE_KINDS
from stratum.toolspec import ARGS
from stratum.cli.serve import add_client_flags, client_from_args, local_place


def register(sub) -> None:
    p = sub.add_parser("tree", help="the hierarchy under a path")
    p.add_argument("path", nargs="?", default="")
    p.add_argument("--depth", type=_bounded("--depth", "depth"), default=None,
                   help="levels below PATH (default: the tool's own)")
    _paging(p)
    p.set_defaults(func=lambda a: _call(a, "tree", path=a.path, depth=a.depth, page_size=a.page_size,
                                        page_token=a.page_token))

    p = sub.add_parser("get", help="one node at a detail level")
    p.add_argument("target", help="node id, path, or path::qualified.name")
    p.add_argument("--level", choices=ARGS["level"].choices, default=None,
                   help="detail level (default: the tool's own)")
    p.add_argument("--lines", default="", metavar="START-END",
                   help="only these source lines of the file or symbol (file line numbers, e.g. 1200-1260)")
    _conn(p)
    p.set_defaults(func=lambda a: _call(a, "get", target=a.target, level=a.level, lines=a.lines))

    p = sub.add_parser("walk", help="follow edges from a node")
    p.add_argument("target")
    p.add_argument("--edge", action="append", default=[],
                   help=", ".join(ARGS["edges"].choices) + " (repeatable; default: all)")
    p.add_argument("--direction", choices=ARGS["direction"].choices, default=None,
                   help="out: what this node imports/tests/contains/calls (default); in: who imports, tests "
                        "or calls it, and the notes about it; both")
    _paging(p)
    p.set_defaults(func=lambda a: _call(a, "walk", target=a.target, edges=a.edge, direction=a.direction,
                                        page_size=a.page_size, page_token=a.page_token))

    p = sub.add_parser("search", help="hybrid (vector + keyword) search over code and notes")
    p.add_argument("query", help='words, an identifier, or a pasted traceback; "-" reads it from standard '
                                 'input (pytest -x 2>&1 | stratum search -)')
    p.add_argument("--kind", action="append", default=[], choices=ARGS["kinds"].choices, metavar="KIND",
                   help=", ".join(ARGS["kinds"].choices) + " (repeatable; default: all)")
    p.add_argument("--path", default="", help="path prefix filter")
    p.add_argument("--language", default="")
    _paging(p)
    p.set_defaults(func=lambda a: _call(a, "search", query=_query(a.query), kinds=a.kind, path_prefix=a.path,
                                        language=a.language, page_size=a.page_size, page_token=a.page_token))

    p = sub.add_parser("status", help="loaded versions, staleness, and the session budget")
    _conn(p)
    p.set_defaults(func=lambda a: _call(a, "status"))

    p = sub.add_parser("remember", help="write an experience note (rca, failure, insight)")
    p.add_argument("kind", choices=AGENT_NOTE_KINDS)
    p.add_argument("text")
    p.add_argument("--about", action="append", default=None,
                   help="path, path::symbol or node id (repeatable; rca and failure notes need one)")
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--supersedes", action="append", default=[])
    p.add_argument("--author", default="", help="a name to record on the note instead of yours (os:<login>); "
                   "a name other than your own os:<login> is a claim, so such a note is not a maintainer's")
    _conn(p)
    p.set_defaults(func=lambda a: _call(a, "remember", kind=a.kind, text=a.text, about=a.about or [],
                                        tags=a.tag, supersedes=a.supersedes))


def _conn(p) -> None:
    add_common(p, many=True)            # --store repeatable: every store given is answered from
    add_client_flags(p)                 # --server, --token, --tls-ca, --tls-client-cert/-key
    p.add_argument("--session", default="", help="with --server: reuse this server session (its budget, "
                   "working set and page tokens); a --server answer with more pages prints it in its 'more:' line")
    p.add_argument("--budget", type=_bounded("--budget", "budget"), default=None, help="session token budget")
    p.add_argument("--branch", default="", help="answer for this branch (indexed version + an overlay of its changes)")
    p.add_argument("--commit", default="", help="answer for this commit (not with --branch)")
    p.add_argument("--worktree", default="", help="answer for this worktree of the repository, uncommitted edits too")


def _bounded(flag: str, arg: str):
    """An argparse type: a whole number within the tools' bounds of ``arg`` (``ARGS``, the wire's
    limits), so a local run and a --server run refuse the same values (a probe: --depth 2147483648
    answered locally and was refused by the client)."""
    least, most = ARGS[arg].minimum, ARGS[arg].maximum
    assert least is not None and most is not None, arg      # an argument bounded on both sides
    return whole(least, flag, most)


def _paging(p) -> None:
    _conn(p)
    p.add_argument("--page-size", type=int, default=None,
                   help="the most items a page holds (default: the tool's own, as over gRPC and MCP); a "
                        "search's first page may end early where the evidence drops")
    p.add_argument("--page-token", default="")


def _query(q: str) -> str:
    """The query, or with "-" standard input's text: a whole failure piped in as a command prints it.
    More than a pasted traceback may hold is refused here, before anything is opened."""
    if q != "-":
        return q
    import sys

    from stratum.errors import InvalidArgument
    from stratum.limits import MAX_TRACEBACK_CHARS

    text = sys.stdin.read(MAX_TRACEBACK_CHARS + 1)
    if len(text) > MAX_TRACEBACK_CHARS:
        raise InvalidArgument(f"standard input holds more than {MAX_TRACEBACK_CHARS} characters, the most a "
                              "pasted traceback may hold: pipe one failure (pytest -x) or its tail (| tail -c 30000)")
    return text


def _call(args, tool: str, **kw) -> int:
    """One tool call. Locally, the CLI session has a stable id and page tokens are signed with a
    per-store secret, so a --page-token printed by one command works in the next."""
    kw = {k: v for k, v in kw.items() if v is not None}     # a flag left out: the tool's default
    author = getattr(args, "author", "")
    branch, commit, worktree = getattr(args, "branch", ""), getattr(args, "commit", ""), getattr(args, "worktree", "")
    if args.server:
        worktree = os.path.abspath(worktree) if worktree else ""
        if getattr(args, "store", None):        # it was ignored silently: the server serves its own stores
            from stratum.errors import InvalidArgument
            raise InvalidArgument("--store and --server are two ways to name the index: the server answers "
                                  "from the stores it serves; drop --store (or --server to read a store here)")
        kw = _from_here(kw, [repository_root() or ""])      # the server's checkout is this one's, or no path is here
        place = server_place(branch, commit, worktree) if not args.session else None    # in a linked worktree: its view
        tools = client_from_args(args)
        try:
            opened = None if place is None else _open_remote(tools, args, author, place, branch or commit or worktree)
            sess = opened[0].data["session"] if opened is not None else args.session
            resp = _answered(tools, tool, sess, kw, opened[1] if opened is not None else [])
            if opened is not None:          # what opening said ("author 'eve' ignored ...": a probe), as
                # MCP passes it (``data.opening``): not its freshness line, judged with no items (it
                # contradicted the answer's own, a probe), nor the branch words the answer repeats
                resp.envelope.warnings[:0] = [w for w in opened[0].data.get("opening") or []
                                              if w not in resp.envelope.warnings]
                resp.envelope.warnings.extend(opened[1])        # how this worktree's view was asked for
            if resp.envelope.has_more or args.session:
                tools.detach(sess)      # the next page needs this session: --session SESSION
                if opened is not None:  # one this command opened: a --session given is the caller's own
                    _close_beyond_kept(tools, args, sess)
        finally:
            tools.close()
        if isinstance(resp.data.get("session"), dict):     # status: the session's budget and working set
            resp.data["session_id"] = sess                   # (they were overwritten by its id: a probe)
        else:
            resp.data["session"] = sess
        if args.session and args.budget is not None:   # said, not silently ignored (a probe)
            resp.envelope.warnings.append(f"--budget {args.budget} applies when a session opens; session "
                                          f"{sess} keeps its own budget of {resp.envelope.budget.limit}")
    else:
        from stratum.tools import Tools

        # in a linked worktree: the main checkout's store, for this worktree (--branch HEAD read there)
        stores, branch, commit, worktree, said = local_place(args.store, branch, commit, worktree)
        stores = stores or [local_store(None)]      # outside any repository: says so
        tools = Tools.open(stores, freshness=_freshness(), secret=_stores_secret(stores),
                           overlay_builder=_overlay_builder())
        try:
            shards = tools.shards.shards
            kw = _from_here(kw, [worktree, *(repo_at(str(sh.store.root), sh.manifest.repo_path) for sh in shards)],
                            ["", *(sh.manifest.repo_name for sh in shards)] if len(shards) > 1 else [])
            rev = branch or commit or worktree
            if len(rev) > 48 or not rev.isprintable():    # a worktree's path (session ids are at most 64
                # characters), or a rev whose name holds an invisible character: the id is a digest of it
                import hashlib

                rev = hashlib.blake2b(rev.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
            sess = tools.resume_session("cli" + (f"@{rev}" if rev else ""), author=author, budget=args.budget,
                                        branch=branch, commit=commit, worktree=worktree)
            resp = getattr(tools, tool)(sess, **kw)
            resp.envelope.warnings.extend(w for w in said if w not in resp.envelope.warnings)
        finally:
            tools.close()
    emit(args, resp.to_dict(), render(resp))
    return 0


def _close_beyond_kept(tools, args, sess: str) -> None:
    """Close the sessions this user's CLI left open on the server beyond the last ``kept.KEPT``
    (each query paged left one open: 64 filled the identity's cap, a probe)."""
    from stratum.cli.kept import keep
    from stratum.cli.serve import client_token
    from stratum.errors import StratumError

    for old in keep(args.server, client_token(args), sess):
        try:
            tools.close_session(old)
        except StratumError:        # gone already (idle, or the server restarted)
            pass


def _open_remote(tools, args, author: str, place, asked: str) -> tuple:
    """(the server's open_session answer, lines for the answer) for ``place`` (``server_place``). A
    view this command chose itself (a linked worktree's branch or commit, none named) that the server
    cannot give (its repository lacks the branch: another clone, another repository, a server of
    several) is said, and the answer is the server's default branch, as before: a query in such a
    worktree must not fail for a view nobody asked for. A view named (--branch, --commit) fails as named."""
    from stratum.errors import InvalidArgument

    try:
        opened = tools.open_session(author=author, budget=args.budget, branch=place.branch, commit=place.commit,
                                    worktree=place.worktree)
        return opened, list(place.said)
    except InvalidArgument as e:
        if asked or not (place.branch or place.commit):
            raise
        what = f"branch {place.branch}" if place.branch else f"commit {place.commit[:12]}"
        why = e.message
    return tools.open_session(author=author, budget=args.budget), [
        f"the server cannot answer for this worktree's {what} ({why}): the answer is for its default branch"]


def _answered(tools, tool: str, sess: str, kw: dict, said: list[str]):
    """The tool's answer; when it fails, what opening the session said (``_open_remote``: the
    server's default branch answered, not this worktree's) goes to stderr before the error, as
    `stratum mcp --server` logs it: the answer carried it, an error dropped it ("no node
    'shop/new.py'" for a file this worktree's branch has, with no word the server read its
    default branch, a probe)."""
    from stratum.errors import StratumError

    try:
        return getattr(tools, tool)(sess, **kw)
    except StratumError:
        for line in said:
            print(f"stratum: {terminal_safe(line)}", file=sys.stderr)
        raise


def _from_here(kw: dict, roots: list[str], names: Sequence[str] = ()) -> dict:
    """The call's paths read as typed in the working directory, repository-relative
    (``stratum.cli.herepaths.place_from_here``, as `stratum cochange` reads its path): get's and walk's target,
    remember's --about, tree's PATH, search's --path. ``names``: each root's store with several
    stores: such a path is that store's (``repo:path``, ``stratum.cli.herepaths.in_store``)."""
    out = dict(kw)
    if "target" in out:
        out["target"] = target_from_here(out["target"], roots, names)
    if out.get("about"):
        out["about"] = [target_from_here(t, roots, names) for t in out["about"]]
    if out.get("path"):
        out["path"] = target_from_here(out["path"], roots, names)
    if out.get("path_prefix"):
        got = place_from_here(out["path_prefix"], roots, prefix=True)
        out["path_prefix"] = out["path_prefix"] if got is None else in_store(*got, names)
    return out


def _stores_secret(stores: list[str]) -> bytes:
    """The page-token secret of a CLI call over ``stores``: one store's own (``_cli_secret``); for
    several, a digest of theirs in the order given, so a token printed by `stratum search --store A
    --store B` works in the next call given the same stores."""
    if len(stores) == 1:
        return _cli_secret(stores[0])
    import hashlib

    h = hashlib.sha256(b"stratum cli stores\0")
    for store in stores:
        h.update(_cli_secret(store))
    return h.digest()


def _cli_secret(store: str) -> bytes:
    """A per-store secret for CLI page tokens (created once, readable by the owner only), so a token
    printed by one `stratum search` works in the next process. A store that is not writable (a
    read-only mount, or a full disk) keeps it in the user's cache instead: queries there failed on
    creating it. With nowhere to write it, this process's own serves (a page token then works in
    this call only): a query must not fail for a token's secret."""
    import hashlib
    import secrets
    from pathlib import Path

    if not (Path(store) / "manifest.json").exists():
        return secrets.token_bytes(32)          # no store yet: the tool call will say so
    p = Path(store) / "cli.secret"
    try:
        return _secret_at(p)
    except OSError as e:
        if e.errno not in _UNWRITABLE:
            raise
    from stratum.embedder import cache_root

    key = hashlib.sha256(str(Path(store).resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    try:
        return _secret_at(cache_root() / "cli-secrets" / key)
    except OSError as e:
        if e.errno not in _UNWRITABLE:
            raise
    return secrets.token_bytes(32)


_UNWRITABLE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def _secret_at(p) -> bytes:
    """The secret in file ``p``, made whole and at once if it is missing (two processes racing to make
    it both read the one that won: written aside, then linked into place)."""
    import os
    import secrets

    empty = False
    try:
        got = p.read_bytes()
        if got:
            return got
        empty = True                            # an older build's process died between create and write
    except FileNotFoundError:
        pass
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{os.getpid()}-{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(32))
        if empty:
            os.replace(tmp, p)                  # filled in (a review: an empty one was kept for good)
        else:
            try:
                os.link(tmp, p)
            except FileExistsError:
                pass                            # another process's won
    finally:
        tmp.unlink(missing_ok=True)
    return p.read_bytes()


def _freshness():
    from pipeline.gitio import freshness

    return freshness


def _overlay_builder():
    from pipeline.overlay import builder

    return builder()


def _session_flag(resp) -> str:
    sid = resp.data.get("session_id") or resp.data.get("session")
    return f"--session {sid} " if isinstance(sid, str) and sid else ""


def render(resp) -> str:
    """Human text: one line per item, then the envelope (cost and what remains). Every string from
    the index (paths, names, docstrings, code, notes, warnings) is printed terminal-safe: escape
    sequences and invisible characters spelled out, a one-line field kept on one line. A note's
    own text is quoted, each line behind "> ", with its author and trust on the item's own line (a
    summary line: before its words, in parentheses), so no line a note holds can pass for a line of
    this output (docs/notes.md)."""
    from stratum.schema import NOTE_KINDS

    lines = []
    for it in resp.items:
        where = f"{it.path}::{it.qualname}" if it.qualname else it.path
        if it.level == "summary":
            head = one_line(it.text + (f"  [{where}]" if where and where not in it.text else ""))
            if it.kind in NOTE_KINDS:       # who wrote it, before its words: they cannot come first
                head = one_line(f"({_by(it).strip()}) ") + head
        else:
            head = one_line(f"--- {it.kind} {where}" + (
                f" lines {it.meta['lines']} of {it.meta.get('lines_total')}" if "lines" in it.meta else "") +
                f" [{it.level}, {it.tokens} tokens]" + (_by(it) if it.kind in NOTE_KINDS else ""))
            head += "\n" + (quoted(it.text) if it.kind in NOTE_KINDS else terminal_safe(it.text, lines=True))
        if it.repo:                     # several stores: whose item this is
            head = f"({one_line(it.repo)}) {head}"
        if it.edge:
            link = ", ".join(f"{k} {it.meta[k]}" for k in ("from", "as", "line", "how") if it.meta.get(k))
            head = one_line(f"[{it.edge} {it.direction}{': ' + link if link else ''}] ") + head
        if it.score is not None:
            head = f"{it.score:.4f}  {head}"
        if it.why and it.why != "text":     # what put it there beyond its words (counted in its tokens)
            head += f"  (why: {one_line(it.why)})"
        lines.append(head)
        lines.extend(f"    ! {one_line(w)}" for w in it.warnings)
        if it.meta.get("already_in_context"):
            lines.append(one_line(f"    ! already in this session's context at {it.meta['already_in_context']} "
                                  "level from an earlier answer: sent again, nothing charged"))
        if it.notes and "\n" in head:      # after a file's or class's last definition: whose notes these are
            lines.append(one_line(f"notes on this {it.kind} ({where}):"))
        lines.extend(f"    note: {one_line(n.get('line', ''))}" for n in it.notes)
        if it.meta.get("notes_more"):       # a line range carries its lines' notes: the walk lists the node's
            scope = "about these lines; the whole " + it.kind + "'s" if "lines" in it.meta else "in all"
            lines.append(f"    ({it.meta['notes_total']} notes {scope}: stratum walk {one_line(it.id)} --edge notes)")
    for k, v in resp.data.items():
        if k in ("session",):
            continue
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            lines.append(f"{k}:")           # e.g. status's shards: one line each, key=value
            lines.extend("  " + one_line(", ".join(f"{a}={_shown(a, b)}" for a, b in x.items())) for x in v)
        else:
            lines.append(one_line(f"{k}: {v}"))
    e = resp.envelope
    pg = f"page {e.page} of {e.pages}" if e.pages else f"page {e.page} (total >= {e.total})"
    lines.append(f"-- {e.returned} of {e.total}{'+' if e.total_is_lower_bound else ''} items, {pg}, "
                 f"{e.tokens_returned} tokens (budget {e.budget.used}/{e.budget.limit} used)"
                 + (f"; more: {_session_flag(resp)}--page-token {e.next_page_token}" if e.has_more
                    else "; that is all"))
    if e.next_hint:
        lines.append(f"-- next: {one_line(e.next_hint)}")
    for ev in e.evictions:
        lines.append(one_line(f"-- evicted {ev.label or ev.node_id}: {ev.from_level} -> {ev.to_level} "
                              f"({ev.tokens_freed} tokens, {ev.reason})"))
    fresh = [w for w in e.warnings if w.startswith(FRESHNESS_PREFIXES)]
    if fresh:       # one line: the index is behind, and which returned files differ
        lines.append(one_line("-- stale: " + "; ".join(w.removeprefix("stale: ") for w in fresh)))
    for w in e.warnings:
        if not w.startswith(FRESHNESS_PREFIXES):
            lines.append(f"-- warning: {one_line(w)}")
    return "\n".join(lines)


FRESHNESS_PREFIXES = ("stale: ", "uncommitted changes")


def _shown(key: str, value) -> object:
    """A status field as a reader takes it: a ``*_at`` time in epoch seconds as UTC (``published_at``
    printed 1796558016.478268; --json keeps the number)."""
    if key.endswith("_at") and isinstance(value, (int, float)) and not isinstance(value, bool):
        from datetime import datetime, timezone

        return datetime.fromtimestamp(value, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    return value


def _by(it) -> str:
    """Who wrote a note item and how far that is proven, said on the CLI's own line (the note's
    header inside its quoted text could be imitated by the text below it); a maintainer's says so,
    as get's note line does (``provenance["maintainer"]``: the role held, the author proven)."""
    from stratum.render import who

    author = it.provenance.get("author") or it.meta.get("author") or ""
    return f" note by {who(author, it.trust, bool(it.provenance.get('maintainer')))}"


__all__ = ["register", "render"]
