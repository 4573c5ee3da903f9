"""The tools agents call: defined once here; gRPC, MCP and the CLI are thin adapters over them.

Each public method's docstring is the description an agent sees. Every answer is a
``stratum.envelope.Response``: items, what remains (page i of n, has_more, a hint of the next page),
and what it cost against the session's token budget, plus any evictions the controller made.
Read-only tools never write; ``remember`` appends to the durable delta log.
"""

from __future__ import annotations

import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Callable

from stratum import schema as S
from stratum.envelope import Budget, Envelope, Eviction, Item, PageTokens, Response, paged
from stratum.errors import InvalidArgument, NotFound
from stratum.shard import Shard, ShardSet

MAX_QUERY_CHARS = 2000
MAX_PAGE_SIZE = 200
DEFAULT_BUDGET = 32000
STATUS_ENTRIES = 50         # working-set entries listed by status (best S(v) first; entries_total counts all)
READ_ONLY = {"tree", "search", "get", "walk", "status"}   # markers: which tools never write
WRITING = {"remember", "pin", "unpin", "prefetch", "open_session", "close_session"}


@dataclass
class Session:
    id: str
    author: str
    model: str
    controller: object
    created: float = field(default_factory=time.time)
    last_used: float = field(default_factory=time.time)


class Tools:
    """The nine tools over a set of read-only shards, with per-session controllers."""

    def __init__(self, shards: ShardSet, *, secret: bytes | None = None,
                 freshness: Callable[[str, str | None], dict] | None = None,
                 default_budget: int = DEFAULT_BUDGET, policy: str = "score", embedder=None):
        from stratum.overlay import NotesOverlay

        self.shards = shards
        self.tokens = PageTokens(secret or secrets.token_bytes(32))
        self.freshness = freshness
        self.default_budget = default_budget
        self.default_policy = policy
        self.embedder = embedder
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()
        self._overlay_lock = threading.Lock()
        self.overlays = {str(s.store.root): NotesOverlay(s, embedder=embedder) for s in shards.shards}

    @classmethod
    def open(cls, stores: list[str], *, secret: bytes | None = None, freshness=None,
             default_budget: int = DEFAULT_BUDGET, policy: str = "score", embedder=None) -> "Tools":
        if embedder is None:
            embedder = _lazy_embedder()
        return cls(ShardSet(list(stores), embedder=embedder), secret=secret, freshness=freshness,
                   default_budget=default_budget, policy=policy, embedder=embedder)

    # ---- sessions -------------------------------------------------------------------------
    def open_session(self, author: str = "", model: str = "", budget: int | None = None,
                     policy: str = "") -> Response:
        """Start a session: a token budget for the agent's context and a controller that tracks what
        it has seen. Pass the returned session id to every other tool."""
        from stratum.controller import Controller
        from stratum.policies import policy_by_name

        if budget is None:
            budget = self.default_budget
        if budget <= 0:
            raise InvalidArgument(f"budget must be a positive number of tokens, got {budget}")
        sid = uuid.uuid4().hex
        ctl = Controller(budget, policy_by_name(policy or self.default_policy), _GraphView(self))
        with self._lock:
            self._sessions[sid] = Session(sid, author, model, ctl)
        r = self._respond(self._session(sid), [], tool="open_session")
        r.data["session"] = sid
        return r

    def resume_session(self, session: str, author: str = "", budget: int | None = None) -> str:
        """Open a session under a caller-chosen id, or keep the live one with that id (the CLI uses
        this so a `--page-token` from one command works in the next). Not an agent tool."""
        with self._lock:
            if session in self._sessions:
                return session
        sid = self.open_session(author=author, budget=budget).data["session"]
        with self._lock:
            s = self._sessions.pop(sid)
            s.id = session
            self._sessions[session] = s
        return session

    def close_session(self, session: str) -> Response:
        """End a session and forget its working set (notes it wrote stay in memory)."""
        s = self._session(session)
        with self._lock:
            self._sessions.pop(session, None)
        return self._respond(s, [], tool="close_session")

    def _session(self, sid: str) -> Session:
        if not sid:
            raise InvalidArgument("session id is empty: call open_session first")
        with self._lock:
            s = self._sessions.get(sid)
        if s is None:
            raise NotFound(f"unknown session {sid!r}: it was closed or the server restarted; open a new one")
        s.last_used = time.time()
        return s

    # ---- read tools -----------------------------------------------------------------------
    def tree(self, session: str, path: str = "", depth: int = 2, page_size: int = 50,
             page_token: str = "") -> Response:
        """The repository hierarchy (dirs, files, classes, functions) under PATH, DEPTH levels deep,
        one summary line each. Start here to see the layout of a repository."""
        s = self._session(session)
        _check_page(page_size)
        if depth < 1:
            raise InvalidArgument("depth must be >= 1")
        args = {"path": path, "depth": depth, "page_size": page_size}
        offset = self._offset(page_token, "tree", args, s)
        rows: list[tuple[Shard, int, int]] = []
        for sh in self.shards.shards:
            start = sh.resolve(path)
            if start is None:
                continue
            stack = [(start, 0)]
            while stack:
                i, d = stack.pop()
                rows.append((sh, i, d))
                if d < depth:
                    kids = [n for n, k, _, _ in sh.neighbors(i, ("contains",), "out")]
                    kids.sort(key=lambda r: (_kind_rank(sh.col("kind")[r]), sh.col("path")[r],
                                             sh.col("qualname")[r]), reverse=True)
                    stack.extend((k, d + 1) for k in kids)
        if not rows:
            raise NotFound(f"no path {path!r} in the indexed repositories")
        page = rows[offset: offset + page_size]
        items = [self._item(sh, i, "summary", indent=d) for sh, i, d in page]
        return self._respond(s, items, tool="tree", args=args, offset=offset, page_size=page_size,
                             total=len(rows), hint_rows=rows[offset + page_size: offset + page_size + 3])

    def search(self, session: str, query: str, kinds: list[str] = (), path_prefix: str = "",
               language: str = "", page_size: int = 10, page_token: str = "") -> Response:
        """Find code and notes by meaning and by keyword (identifiers like snake_case, CamelCase and
        dotted paths work). Filters: kinds (file, class, function, method, rca, failure, insight),
        path_prefix, language. Notes written by earlier sessions rank with the code."""
        s = self._session(session)
        _check_page(page_size)
        query = (query or "").strip()
        if not query:
            raise InvalidArgument("query is empty")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidArgument(f"query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}")
        bad = [k for k in kinds if k not in S.NODE_KINDS]
        if bad:
            raise InvalidArgument(f"unknown kind(s) {bad}; choose from {list(S.NODE_KINDS)}")
        args = {"q": query, "kinds": sorted(kinds), "path": path_prefix, "lang": language, "ps": page_size}
        offset = self._offset(page_token, "search", args, s)
        want = offset + page_size + 1          # fetch one more than we return: honest has_more
        hits: list[tuple[float, str, Shard, int | None, dict | None]] = []
        exact, bound = True, 0
        for sh in self.shards.shards:
            ov = self._overlay(sh)
            page = sh.warm.search(query, kinds=tuple(kinds), path_prefix=path_prefix, language=language,
                                  limit=want, offset=0, extra_docs=ov.search_docs())
            exact = exact and page.total_is_exact
            bound += page.total_or_lower_bound
            for it in page.items:
                if it.row < 0:                      # an unmerged note from the overlay
                    hits.append((it.score, it.id, sh, None, ov.get(it.id)))
                elif sh.col("kind")[it.row] in S.NOTE_KINDS and ov.status_of(it.id) not in (None, "active"):
                    bound -= 1                      # merged, then retracted or superseded since
                else:
                    hits.append((it.score, it.id, sh, it.row, None))
        hits.sort(key=lambda h: (-h[0], h[1]))
        total = max(bound, len(hits))
        window = hits[offset: offset + page_size]
        items = []
        for score, nid, sh, row, note in window:
            it = self._item(sh, row, "summary") if row is not None else self._overlay(sh).item(note, "summary")
            it.score = round(float(score), 6)
            items.append(it)
        more = len(hits) > offset + page_size
        return self._respond(s, items, tool="search", args=args, offset=offset, page_size=page_size,
                             total=max(total, offset + len(items) + (1 if more else 0)),
                             lower_bound=not exact, has_more=more,
                             hint_items=[self._hint(h) for h in hits[offset + page_size: offset + page_size + 3]])

    def get(self, session: str, target: str, level: str = "api") -> Response:
        """One node at a detail level: summary (one line), api (signatures and docstrings: what a
        caller needs) or full (source). TARGET is a node id, a path, or path::Qualified.name.
        Getting a file or symbol at full level marks its file as being edited (focus)."""
        s = self._session(session)
        if level not in S.LEVELS:
            raise InvalidArgument(f"level must be one of {list(S.LEVELS)}, got {level!r}")
        sh, row, note = self._resolve(target)
        item = self._item(sh, row, level) if row is not None else self._overlay(sh).item(note, level)
        return self._respond(s, [item], tool="get")   # a full-level get joins the inferred focus

    def walk(self, session: str, target: str, edges: list[str] = (), direction: str = "out",
             page_size: int = 20, page_token: str = "") -> Response:
        """Follow edges from a node: contains, imports, tests, cochange (files changed together in
        history), about (notes -> code). Use direction "in" to see who imports a file or which notes
        are about it ("notes" is a shorthand for incoming about edges), "both" for either."""
        s = self._session(session)
        _check_page(page_size)
        if direction not in ("out", "in", "both"):
            raise InvalidArgument("direction must be out, in or both")
        kinds = list(edges)
        if "notes" in kinds:
            kinds.remove("notes")
            kinds.append("about")
            direction = "in" if direction == "out" and len(kinds) == 1 else "both"
        bad = [k for k in kinds if k not in S.EDGE_KINDS]
        if bad:
            raise InvalidArgument(f"unknown edge kind(s) {bad}; choose from {list(S.EDGE_KINDS)} or notes")
        args = {"t": target, "e": sorted(kinds), "d": direction, "ps": page_size}
        offset = self._offset(page_token, "walk", args, s)
        sh, row, note = self._resolve(target)
        ov = self._overlay(sh)
        out: list[tuple] = []
        if row is not None:
            for r, k, d, w in sh.neighbors(row, tuple(kinds), direction):
                out.append((sh, r, None, k, d, w))
            if not kinds or "about" in kinds:
                if direction in ("in", "both"):
                    for n in ov.notes_about(sh.col("id")[row]):
                        out.append((sh, None, n, "about", "in", 1.0))
        else:
            if direction in ("out", "both") and (not kinds or "about" in kinds):
                for tid in ov.about_ids(note):
                    r = sh.resolve(tid)
                    if r is not None:
                        out.append((sh, r, None, "about", "out", 1.0))
        # one entry per (neighbour, edge kind): symmetric edges (co-change) are stored both ways
        seen, uniq = set(), []
        for t in out:
            key = (t[1] if t[1] is not None else t[2]["id"], t[3])
            if key not in seen:
                seen.add(key)
                uniq.append(t)
        # strongest edges first (co-change weight, then stable order)
        out = sorted(uniq, key=lambda t: (-(t[5] or 0.0), t[3], t[1] if t[1] is not None else -1))
        page = out[offset: offset + page_size]
        items = []
        for sh2, r, n, k, d, w in page:
            it = self._item(sh2, r, "summary") if r is not None else ov.item(n, "summary")
            it.edge, it.direction = k, d
            if k == "cochange" and r is not None:
                it.meta.update({kk: str(vv) for kk, vv in sh2.edge_attrs(row, r, k).items() if vv is not None})
            items.append(it)
        return self._respond(s, items, tool="walk", args=args, offset=offset, page_size=page_size,
                             total=len(out), hint_rows=[(t[0], t[1]) for t in out[offset + page_size: offset + page_size + 3] if t[1] is not None])

    # ---- writing tools --------------------------------------------------------------------
    def remember(self, session: str, kind: str, text: str, about: list[str], tags: list[str] = (),
                 supersedes: list[str] = ()) -> Response:
        """Write an experience note for later sessions and other agents: kind rca ("the cause of X is
        in F, function G, because ..."), failure ("tried fixing it in F; failed because ...") or
        insight. ABOUT names the code it concerns (node ids, paths or path::symbol). Returns the note
        id once the note is durable on disk; it is searchable at once."""
        s = self._session(session)
        sh = self._shard_for(about)
        nid = self._overlay(sh).remember(
            kind=kind, text=text, about=list(about), tags=list(tags), supersedes=list(supersedes),
            author=s.author or s.model or "unknown", session=s.id)
        r = self._respond(s, [self._overlay(sh).item(self._overlay(sh).get(nid), "summary")],
                          tool="remember")
        r.data["note_id"] = nid
        return r

    def pin(self, session: str, target: str) -> Response:
        """Keep a node in context: pinned nodes are never evicted."""
        s = self._session(session)
        sh, row, note = self._resolve(target)
        nid = sh.col("id")[row] if row is not None else note["id"]
        s.controller.pin(nid)
        return self._respond(s, [], tool="pin")

    def unpin(self, session: str, target: str) -> Response:
        """Release a pin so the node can be evicted again."""
        s = self._session(session)
        sh, row, note = self._resolve(target)
        s.controller.unpin(sh.col("id")[row] if row is not None else note["id"])
        return self._respond(s, [], tool="unpin")

    def prefetch(self, session: str, focus: list[str], budget: int | None = None) -> Response:
        """Warm the working set for the files you are about to edit: their imports, tests and files
        that historically change with them, at the detail each deserves, within BUDGET tokens."""
        s = self._session(session)
        if not focus:
            raise InvalidArgument("prefetch needs at least one focus path or node id")
        ids = []
        for t in focus:
            sh, row, _ = self._resolve(t)
            if row is None:
                raise InvalidArgument(f"{t} is a note; focus must be code")
            ids.append(_file_id(sh, row))
        if budget is not None and budget <= 0:
            raise InvalidArgument(f"prefetch budget must be positive, got {budget}")
        s.controller.set_focus(ids)
        items = []
        for p in s.controller.prefetch_plan(ids, budget):
            sh, row, _ = self._resolve(p.node_id)
            items.append(self._item(sh, row, p.level))
        return self._respond(s, items, tool="prefetch", infer_focus=False)

    def status(self, session: str) -> Response:
        """What memory is loaded (per shard: published version, indexed commit, whether the repository
        has moved on since) and this session's budget and working set."""
        s = self._session(session)
        shards = []
        for sh in self.shards.shards:
            m = sh.manifest
            info = {"store": str(sh.store.root), "repo": m.repo_name, "version": m.version,
                    "indexed_commit": m.indexed_commit, "nodes": len(sh),
                    "published_at": m.published_at,
                    "unmerged_notes": self._overlay(sh).count()}
            if self.freshness is not None:
                info.update(self.freshness(m.repo_path, m.indexed_commit))
            shards.append(info)
        r = self._respond(s, [], tool="status")
        sess = s.controller.status()
        # the working set best first, cut so a long session's status stays a small page
        sess["entries_total"] = len(sess["entries"])
        sess["entries"] = sess["entries"][:STATUS_ENTRIES]
        r.data.update(shards=shards, session=sess, author=s.author)
        return r

    def reload(self) -> list:
        """Pick up newly published store versions; calls already running keep their old shard."""
        switched = self.shards.reload()
        for sh in self.shards.shards:    # build the new versions' overlays now, not on the next call
            self._overlay(sh)
        return switched

    def _overlay(self, sh: Shard):
        """The notes overlay of this very shard object. After a reload the first call with the new
        shard builds its overlay (others wait for it), so no call pairs a new version with the old
        version's unmerged notes: those were merged into it, and would show twice. A call still
        holding an older shard gets the current overlay. A new overlay keeps the old one's log writer."""
        from stratum.overlay import NotesOverlay

        key = str(sh.store.root)
        ov = self.overlays.get(key)
        if ov is not None and (ov.shard is sh or ov.shard.version > sh.version):
            return ov
        with self._overlay_lock:
            ov = self.overlays.get(key)
            if ov is None or (ov.shard is not sh and ov.shard.version < sh.version):
                ov = NotesOverlay(sh, embedder=self.embedder, log=ov.log if ov is not None else None)
                self.overlays = {**self.overlays, key: ov}
            return ov

    def close(self) -> None:
        with self._lock:
            self._sessions.clear()

    # ---- helpers --------------------------------------------------------------------------
    def _resolve(self, target: str) -> tuple[Shard, int | None, dict | None]:
        if not target:
            raise InvalidArgument("target is empty: give a node id, a path or path::symbol")
        for sh in self.shards.shards:
            r = sh.resolve(target)
            if r is not None:
                return sh, r, None
            n = self._overlay(sh).get(target)
            if n is not None:
                return sh, None, n
        raise NotFound(f"no node {target!r}: use a node id, a repo-relative path, or path::Qualified.name")

    def _shard_for(self, about: list[str]) -> Shard:
        for t in about:
            for sh in self.shards.shards:
                if sh.resolve(t) is not None:
                    return sh
        return self.shards.shards[0]

    def _item(self, sh: Shard, row: int, level: str, indent: int = 0) -> Item:
        rec = sh.row(row) if level == "summary" else sh.record(row)
        text = rec["summary"] if level == "summary" else rec[level]
        tokens = rec[f"{level}_tokens"] or 0
        if indent:
            text = "  " * indent + (text or "")
            from stratum.tokens import count

            tokens = count(text)
        it = Item(id=rec["id"], kind=rec["kind"], path=rec["path"], name=rec["name"] or "",
                  qualname=rec["qualname"] or "", level=level, text=text or "", tokens=int(tokens),
                  language=rec["language"] or "", start_line=rec["start_line"] or 0,
                  end_line=rec["end_line"] or 0)
        if rec["kind"] in S.NOTE_KINDS:
            self._overlay(sh).annotate(it, rec)
        return it

    def _hint(self, h) -> str:
        score, nid, sh, row, note = h
        if row is not None:
            return f"{sh.col('kind')[row]} {sh.col('path')[row]}" + (f"::{sh.col('qualname')[row]}" if sh.col('qualname')[row] else "")
        return f"{note['kind']} note {nid}"

    def _offset(self, token: str, tool: str, args: dict, s: Session) -> int:
        if not token:
            return 0
        return self.tokens.check(token, tool=tool, args=args, version=self.shards.version, session=s.id)

    def _respond(self, s: Session, items: list[Item], *, tool: str, args: dict | None = None,
                 offset: int = 0, page_size: int = 0, total: int | None = None, lower_bound: bool = False,
                 has_more: bool | None = None, hint_rows=None, hint_items=None,
                 infer_focus: bool = True) -> Response:
        evictions, warnings = [], []
        if items:
            res = s.controller.admit([(it.id, it.level, it.tokens) for it in items], infer_focus=infer_focus)
            evictions = [e.to_dict() for e in res.evictions]
            if res.warning:
                warnings.append(res.warning)
        b = s.controller.budget()
        st = {"limit": b.limit, "used": b.used, "remaining": b.remaining}
        total = len(items) if total is None else total
        more = (offset + len(items) < total) if has_more is None else has_more
        page, pages = paged(total, offset, page_size or max(len(items), 1), lower_bound)
        token = self.tokens.issue(tool=tool, args=args or {}, offset=offset + len(items),
                                  version=self.shards.version, session=s.id) if more else ""
        hints = hint_items or [f"{sh.col('kind')[r]} {sh.col('path')[r]}" +
                               (f"::{sh.col('qualname')[r]}" if sh.col("qualname")[r] else "")
                               for sh, r, *_ in (hint_rows or [])]
        next_hint = (f"page {page + 1}{' of ' + str(pages) if pages else ''} starts with: " + "; ".join(hints)) if more and hints else ""
        env = Envelope(returned=len(items), total=total, total_is_lower_bound=lower_bound, page=page,
                       pages=pages, has_more=more, next_page_token=token,
                       tokens_returned=sum(it.tokens for it in items),
                       budget=Budget(limit=st["limit"], used=st["used"], remaining=st["remaining"]),
                       evictions=[Eviction(**_ev(e)) for e in evictions], next_hint=next_hint,
                       version=self.shards.version, warnings=warnings)
        return Response(envelope=env, items=items)


def _ev(e) -> dict:
    d = e if isinstance(e, dict) else e.__dict__
    return {"node_id": d["node_id"], "from_level": d["from_level"], "to_level": d.get("to_level") or "cold",
            "tokens_freed": int(d["tokens_freed"]), "reason": d["reason"]}


def _check_page(page_size: int) -> None:
    if page_size < 1 or page_size > MAX_PAGE_SIZE:
        raise InvalidArgument(f"page_size must be between 1 and {MAX_PAGE_SIZE}, got {page_size}")


def _kind_rank(kind: str) -> int:
    return {"repo": 0, "dir": 1, "file": 2, "class": 3, "function": 4, "method": 5}.get(kind, 6)


def _file_id(sh: Shard, row: int) -> str:
    """The file node containing a node (a file is its own file)."""
    from stratum.ids import node_id

    if sh.col("kind")[row] in ("file", "dir", "repo"):
        return sh.col("id")[row]
    return node_id(sh.repo, sh.col("path")[row], "file", "")


class _GraphView:
    """Graph facts the controller needs, read from the shards (no I/O beyond the warm tier)."""

    def __init__(self, tools: Tools):
        self.tools = tools

    def _find(self, nid: str):
        for sh in self.tools.shards.shards:
            r = sh.row_of.get(nid)
            if r is not None:
                return sh, r
        return None, None

    def file_of(self, nid: str) -> str | None:
        sh, r = self._find(nid)
        return _file_id(sh, r) if sh else None

    def file_id(self, path: str) -> str | None:
        for sh in self.tools.shards.shards:
            r = sh.resolve(path)
            if r is not None:
                return _file_id(sh, r)
        return None

    def neighbors(self, nid: str, kinds=("imports", "tests", "contains")) -> list[str]:
        sh, r = self._find(nid)
        if sh is None:
            return []
        return [sh.col("id")[x] for x, _, _, _ in sh.neighbors(r, tuple(kinds), "both")]

    def cochange(self, nid: str) -> dict[str, float]:
        sh, r = self._find(nid)
        if sh is None:
            return {}
        return {sh.col("id")[x]: float(w or 0.0) for x, _, _, w in sh.neighbors(r, ("cochange",), "both")}

    def levels(self, nid: str) -> dict[str, int]:
        sh, r = self._find(nid)
        if sh is None:
            return {}
        m = sh.meta
        return {lv: int(m.column(f"{lv}_tokens")[r].as_py() or 0) for lv in S.LEVELS}


def _lazy_embedder():
    from stratum.embedder import LazyEmbedder

    return LazyEmbedder()


__all__ = ["Tools", "Session", "READ_ONLY", "WRITING", "MAX_QUERY_CHARS", "MAX_PAGE_SIZE", "DEFAULT_BUDGET"]
