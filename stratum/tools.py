"""The tools agents call: defined once here; gRPC, MCP and the CLI are thin adapters over them.

Each public method's docstring is the description an agent sees, and each tool is marked once with
``@tool`` (read-only or writing); ``TOOL_NAMES``, ``READ_ONLY`` and ``WRITING`` derive from those
marks. Every answer is a ``stratum.envelope.Response``: items, what remains (page i of n, has_more,
a hint of the next page), and what it cost against the session's token budget, plus any evictions
the controller made. Read-only tools never write; ``remember`` appends to the durable delta log.

The tools are thin: the loaded memory (shards, overlays, reload, target resolution) is
``stratum.memory.Memory``, sessions are ``stratum.sessions.SessionRegistry``, items and envelopes
are ``stratum.render``. Each argument is checked once, by ``@tool`` (``toolspec.check_arg``: its
bytes, type and bounds, the ones every adapter applies), before the tool runs, which then checks
only what is its own (a closed set's choices, an empty query); the caller is
``stratum.identity.current()``.
"""

from __future__ import annotations

import functools
import secrets
from typing import Callable, Collection, Sequence, cast

from stratum import answernotes, checkoutnotes, pagecut, pinnames, searchlists, syntaxwarn, walklinks, whichstore as W
from stratum.notetrust import CLAIMED, session_identified, session_label
from stratum import codeonly as CO
from stratum import linerange as L
from stratum import sessiontargets as ST
from stratum import pathtails as PT
from stratum import render as R
from stratum import tokens as T
from stratum import tracebacks as TB
from stratum import schema as S
from stratum.controller import Controller
from stratum.envelope import PAGE_TOKEN_TTL, PageTokens, Response
from stratum.freshness import repo_at
from stratum.errors import InvalidArgument, NoteRejected, NotFound
from stratum.identity import current
from stratum.limits import MAX_PAGE_SIZE, MAX_QUERY_CHARS, check_kinds, echo, plain_name
from stratum.branchview import BranchView, OverlayCache, depth_first
from stratum.memory import Memory, Target, file_id
from stratum.overlay import NotesOverlay
from stratum.policies import policy_by_name
from stratum.sessions import MAX_SESSIONS, MAX_SESSIONS_PER_IDENTITY, SESSION_TTL, Session, SessionRegistry
from stratum.shard import Shard, ShardSet, one_version_per_call
from stratum.toolspec import _SPECS, ToolSpec, check_arg, tool

DEFAULT_BUDGET = 32000
MAX_OVERLAYS_LOADED = 32     # overlay shards kept for new sessions (a session keeps its own; oldest dropped)
STATUS_ENTRIES = 50         # working-set entries listed by status (best S(v) first; entries_total counts all)
_MOVED = ("notes were written or withdrawn since the first page, so the ranking moved: this page may repeat an "
          "item or skip one; repeat the query without a token for the current ranking")    # search's and walk's


@one_version_per_call(_SPECS)       # each tool answers from the shards loaded when it starts
class Tools:
    """The nine tools over a set of read-only shards, with per-session controllers."""

    def __init__(self, shards: ShardSet, *, secret: bytes | None = None,
                 freshness: Callable[[str, str | None], dict] | None = None,
                 default_budget: int = DEFAULT_BUDGET, policy: str = "score", embedder=None,
                 session_ttl: float = SESSION_TTL, max_sessions_per_identity: int = MAX_SESSIONS_PER_IDENTITY,
                 max_sessions: int = MAX_SESSIONS, page_token_ttl: float = PAGE_TOKEN_TTL,
                 notes_per_item: int = R.NOTES_PER_ITEM,
                 overlay_builder: Callable[[str, str, str], dict] | None = None):
        self.shards = shards
        # (store root, branch/commit, worktree path) -> overlay info (pipeline/overlay.py, from the composition root)
        self.overlay_builder = overlay_builder
        self._views = OverlayCache(MAX_OVERLAYS_LOADED)
        self.memory = Memory(shards, embedder=embedder, freshness=freshness)
        self.sessions = SessionRegistry(ttl=session_ttl, max_per_identity=max_sessions_per_identity,
                                        max_total=max_sessions)
        self.tokens = PageTokens(secret or secrets.token_bytes(32), ttl=page_token_ttl)
        self.freshness = freshness
        self.default_budget = default_budget
        self.default_policy = policy
        self.notes_per_item = notes_per_item

    @classmethod
    def open(cls, stores: list[str], *, embedder=None, **options) -> "Tools":
        """Tools over the stores at these paths (options: those of the constructor)."""
        if embedder is None:
            from stratum.embedder import LazyEmbedder

            embedder = LazyEmbedder()
        return cls(ShardSet(list(stores), embedder=embedder), embedder=embedder, **options)

    @property
    def overlays(self) -> dict:
        return self.memory.overlays

    # ---- sessions -------------------------------------------------------------------------
    @tool(writes=True, agent=False)
    def open_session(self, author: str = "", model: str = "", budget: int | None = None,
                     policy: str = "", branch: str = "", commit: str = "", worktree: str = "") -> Response:
        """Start a session: a token budget for the agent's context and a controller that tracks what
        it has seen. Pass the returned session id to every other tool. BRANCH, COMMIT or WORKTREE (a
        path): answer for that branch, commit or worktree with its uncommitted changes (the indexed
        version plus an overlay of what differs). ``label``: what its notes say of it."""
        view = self._branch_view(branch, commit, worktree)
        s, warnings = self._open(author, model, budget, policy)
        s.view = view
        r = self._respond(s, [], R.Page("open_session"), warnings=warnings)
        # ``opening``: what the opening itself says ("author ... ignored"), apart from the freshness and
        # branch words every answer carries: a front that opens sessions unseen (MCP) passes it on
        r.data.update(session=s.id, author=s.author, authenticated=_proven(s), label=session_label(s.id),
                      opening=warnings)
        return r

    def resume_session(self, session: str, author: str = "", budget: int | None = None,
                       branch: str = "", commit: str = "", worktree: str = "") -> str:
        """Open a session under a caller-chosen id, or keep the caller's live one with that id (the CLI
        uses this so a `--page-token` from one command works in the next). Not an agent tool."""
        owner = current().name
        if self.sessions.find(session, owner) is None:
            view = self._branch_view(branch, commit, worktree)
            self._open(author, "", budget, "", sid=session)[0].view = view
        return session

    @tool(writes=True, agent=False)
    def close_session(self, session: str) -> Response:
        """End a session and forget its working set (notes it wrote stay in memory)."""
        s = self.sessions.close(session, current().name)
        return self._respond(s, [], R.Page("close_session"))

    def _open(self, author: str, model: str, budget: int | None, policy: str,
              sid: str | None = None) -> tuple[Session, list[str]]:
        ident = current()
        # ``tool`` checked open_session's arguments; resume_session's get the same check here
        author = plain_name("author", check_arg("author", author).strip())
        model = plain_name("model", check_arg("model", model).strip())
        ctl_policy = policy_by_name(check_arg("policy", policy) or self.default_policy)
        budget = check_arg("budget", self.default_budget if budget is None else budget)
        warnings = []
        if ident.authenticated:
            if author and author != ident.name:
                warnings.append(f"author {echo(author)!r} ignored: notes from this session are written "
                                f"as the authenticated identity {ident.name!r}")
            author = ident.name
        else:
            if author.startswith("os:") and author != ident.name:
                raise InvalidArgument(f"author {echo(author)!r}: os: names are the local OS user's (who runs "
                                      "the CLI or MCP on the store); pick another name")
            author = author or model or ident.name
        ctl = Controller(budget, ctl_policy, self.memory.graph)
        s = self.sessions.add(ident.name, author, ident.authenticated, model, ctl, sid=sid)
        return s, warnings

    def _session(self, sid: str) -> Session:
        s = self.sessions.get(sid, current().name)
        if (v := s.view) is not None and v.outdated(list(self.memory)):   # moved, or edited
            b, c, w = v.args
            s.view = v.then(lambda: self._branch_view(b, c, w), lambda at: self._branch_view(b, c, w, at))
        return s

    def _branch_view(self, branch: str, commit: str, worktree: str = "", at: dict | None = None) -> BranchView | None:
        return ST.branch_view(self.memory, self.overlay_builder, self._views, branch, commit, worktree, at)

    def _target(self, s: Session, target: str) -> Target:
        try:
            return ST.target(self.memory, s.view, target)       # (``stratum.sessiontargets``: path:LINE too)
        except NotFound as e:       # a symbol new in a file the checkout changed: say so (``codeonly``)
            why = s.view is None and CO.edited_symbol(self.memory, target)
            if not why:
                raise
            near = e.message[e.message.find("; did you mean"):] if "; did you mean" in e.message else ""
            raise NotFound(why + near) from None

    def _node(self, s: Session, target: str) -> Target:
        return ST.node(self.memory, s.view, target)

    # ---- read tools -----------------------------------------------------------------------
    @tool(writes=False)
    def tree(self, session: str, path: str = "", depth: int = 2, page_size: int = 50,
             page_token: str = "") -> Response:
        """The repository hierarchy (dirs, files, classes, functions) under PATH, DEPTH levels deep,
        one summary line each. Start here to see the layout of a repository."""
        s = self._session(session)
        args = {"path": path, "depth": depth, "page_size": page_size}
        offset = self._offset(page_token, "tree", args, s)
        def order(sh: Shard, r: int) -> tuple:
            return R.kind_rank(sh.col("kind")[r]), sh.col("path")[r], sh.col("qualname")[r]

        rows: list[tuple[Shard, int, int]] = []
        shards, where = self.memory.in_repo(path, prefix=True)     # `repo:path`: that store's (get names it so)
        if s.view is not None:
            rows = s.view.tree_rows(shards, where, depth, order)
        for sh in (shards if s.view is None else ()):
            start = sh.resolve(where)
            if start is not None:
                rows += depth_first((sh, start), R.children, depth, order)
        if not rows:
            raise NotFound(self.memory.unindexed(shards, where) or f"no path {echo(path)!r} in the indexed repositories")
        end = offset + page_size
        items = [R.code_item(sh, i, "summary", self._notes_overlay(s, sh), indent=d) for sh, i, d in rows[offset:end]]
        return self._respond(s, items, R.Page("tree", args, offset, page_size, total=len(rows),
                                              hints=[R.label(sh, i) for sh, i, _ in rows[end:end + R.HINT_ITEMS]]))

    @tool(writes=False)
    def search(self, session: str, query: str, kinds: Sequence[str] = (), path_prefix: str = "",
               language: str = "", page_size: int = 10, page_token: str = "") -> Response:
        """Find code and notes by meaning and by keyword (identifiers like snake_case, CamelCase and
        dotted paths work). Filters: kinds (dir, file, class, function, method, rca, failure, insight;
        mined from history: fix, change; "file" alone: each file once, ranked by its code, notes and
        history, its why naming the symbol that brought it), path_prefix, language. Notes written by earlier sessions
        rank with the code. The first page ends early where the scores drop (next_page_token
        continues with whole pages; the hint says so). A pasted traceback's frames (File "...", line N, in f; path:N) put the
        code they name first; a whole pasted failure may be up to 32,000 characters (the text
        search then reads its error lines and the frames' function names). A test's name, as typed or
        as a runner prints a failure (FAIL path > suite > test, [  FAILED  ] Suite.Name), puts that
        test next."""
        s = self._session(session)
        sent, query = len(query), query.strip()
        if not query or not any(ch.isalnum() for ch in query):   # "!!!", an emoji: a confident page of noise (a probe)
            raise InvalidArgument("query is empty" if not query else "query has no letter or digit to search for")
        paste = TB.read(query, MAX_QUERY_CHARS, sent=sent)    # a pasted traceback's frames; what the text lists read
        text = paste.text
        kinds = check_kinds("kind", kinds, S.SEARCH_KINDS)
        shards, where, path_prefix = searchlists.scope(self.memory, path_prefix)    # `repo:path`: that store
        args = {"q": query, "kinds": sorted(kinds), "path": path_prefix, "lang": language, "ps": page_size}
        offset = self._offset(page_token, "search", args, s)
        want = offset + page_size + 1          # fetch one more than we return: honest has_more
        view = s.view
        got = searchlists.ranked_lists(self.memory, shards, view, text, paste, kinds, where, language, want)
        lists, exact, bound, stamp = got.lists, got.exact, got.bound, got.stamp
        end = offset + page_size
        n_hits = sum(len(ranked) for ranked, _, _ in lists)
        if not n_hits and (language or where):     # `--language klingon`, `--path nonexist/`: say so, not "no results"
            self.memory.check_filters(language, where if view is None else "", shards)
        hits = R.merged_head(lists, end + R.HINT_ITEMS)     # only what this page and its hint read
        if not offset:              # the first page ends at the evidence cliff; later ones are whole
            end = pagecut.page_end([h[0] for h in hits[:end]])
        items = []
        noted = {nid for _, nid, _, _, _, why in hits[offset:end] if TB.leads(why)}
        for score, nid, sh, row, holder, why in hits[offset:end]:
            # a traceback frame's definition (or one its lines call) is where the agent will work:
            # it carries the notes earlier sessions left there (what was tried), as `get` of it would
            it = self._item(sh, row, holder.get(nid) if holder is not None else None, "summary",
                            attach=TB.leads(why), view=view, beside=noted)
            it.score = round(float(score), 6)
            it.why = why
            it.tokens += T.count_cached(why)        # the agent reads it: it counts in the budget
            items.append(it)
        more = n_hits > end
        hints = [R.label(sh, row) if row is not None else
                 R.note_label((holder.get(nid) if holder is not None else None) or {"kind": "note", "id": nid})
                 for _, nid, sh, row, holder, _ in hits[end:end + R.HINT_ITEMS]]
        said = got.warnings + ([] if more or exact else searchlists.ends(n_hits, got.notes_cut))
        if page_token and getattr(offset, "notes", stamp) != stamp:
            # a probe: a note written between pages shifted the list (an item twice, one never shown)
            said.append(_MOVED)
        return self._respond(s, items, R.Page("search", args, offset, page_size,
                                              total=max(bound, n_hits, offset + len(items) + (1 if more else 0)),
                                              lower_bound=not exact, has_more=more, hints=hints, notes=stamp,
                                              cliff=end - offset < page_size and more),
                             warnings=said, asked=shards)

    @tool(writes=False)
    def get(self, session: str, target: str, level: str = "api", lines: str = "") -> Response:
        """One node at a detail level: summary (one line), api (signatures and docstrings: what a
        caller needs; over 1,500 tokens, a large class's outline instead: its header, its doc's first
        paragraph and one line per member, then how to read the rest, meta.api_cut) or full (source). TARGET is a node id, a path, path::Qualified.name, or
        path:LINE (the innermost function or class around that line, as a traceback names it).
        LINES "START-END" (file line numbers, e.g. "1200-1260"; "START" one line, "START-" to the
        end) reads only those source lines of the file or symbol; the item says which lines it holds
        and how many the file has. Getting a file or symbol at full level marks its file as being
        edited (focus). The answer carries the active notes earlier sessions left on it."""
        s = self._session(session)
        if level not in S.LEVELS:
            raise InvalidArgument(f"level must be one of {list(S.LEVELS)}, got {echo(level)!r}")
        span = L.parse(lines)
        t = self._target(s, target)
        in_file = span is not None and t.row is not None and t.shard.col("kind")[t.row] == "file"
        it = syntaxwarn.flag(self._item(t.shard, t.row, t.note, "full" if span else level, view=s.view, attach=not in_file), t)
        if in_file and t.row is not None and span is not None:    # a part of a file: its own notes and
            R.attach_notes(it, answernotes.in_lines(self.memory, t.shard, t.row, span, s.view), cap=self.notes_per_item)  # its lines'
        with L.part_hint(t, whole=level == "full" and span is None):   # a whole file that does not fit: read a part
            return self._respond(s, [L.cut(it, span, L.file_lines(t)) if span else it], R.Page("get"))

    @tool(writes=False)
    def walk(self, session: str, target: str, edges: Sequence[str] = (), direction: str = "out",
             page_size: int = 20, page_token: str = "") -> Response:
        """Follow edges from a node: contains, imports, tests, cochange (files changed together in
        history), calls (a function or method -> what it calls; an item's how, as and line say how
        the call was linked), inherits (a class -> its bases), about (notes -> code). Use "in" to see who
        imports a file, who calls a function (a method's callers include calls to what it overrides,
        item meta "from") or the notes about it ("notes": incoming about edges), "both" for either. A node
        reached by several edges is one item: its edge lists them ("imports,tests") and its
        direction is out, in or both. Each item carries the active notes about it (walk with
        "notes" lists them all)."""
        s = self._session(session)
        kinds = check_kinds("edge kind", edges, S.WALK_EDGE_KINDS)
        if direction not in S.DIRECTIONS:
            raise InvalidArgument("direction must be out, in or both")
        if notes := "notes" in kinds:        # incoming about edges; the other kinds keep the direction asked
            kinds.remove("notes")
            kinds.append("about")
            direction = "in" if direction == "out" and len(kinds) == 1 else direction
        args = {"t": target, "e": sorted(kinds), "d": direction, "ps": page_size}
        offset = self._offset(page_token, "walk", args, s)
        sh, row, note = self._target(s, target)
        ov = self._notes_overlay(s, sh)
        out, base, via = walklinks.gather(self.memory, s.view, sh, ov, row, note, kinds, direction, notes)
        out = R.by_node(out)          # a node reached by several edges is one item: served and charged once
        stamp = ov.records if any(t[0] is None for t in out) or "about" in kinds else 0     # a listing with notes
        end = offset + page_size
        items = []
        shown = {t[5].col("id")[t[0]] for t in out[offset:end] if t[0] is not None}
        for r, n, k, d, _, ns, several in out[offset:end]:
            it = self._item(ns, r, n, "summary", view=s.view, beside=shown)
            it.edge, it.direction = k, d
            if several:
                it.meta["edges"] = several
            if "cochange" in k.split(",") and r is not None and row is not None and ns is sh:
                it.meta.update({kk: vv.isoformat() if hasattr(vv, "isoformat") else vv     # as `cochange` types them
                                for kk, vv in sh.edge_attrs(row, r, "cochange").items() if vv is not None})
            if r is not None and row is not None:
                it.meta.update(walklinks.item_meta(s.view, base, sh, row, ns, r, k, d, via))
            items.append(it)
        hints = [R.label(t[5], t[0]) if t[0] is not None else R.note_label(t[1] or {}) for t in out[end:end + R.HINT_ITEMS]]
        said = walklinks.none_said(sh, row, kinds, direction) if not out and s.view is None else []
        if page_token and getattr(offset, "notes", stamp) != stamp:
            said.append(_MOVED)         # a probe: a note written between pages, one item twice and one never shown
        return self._respond(s, items, R.Page("walk", args, offset, page_size, total=len(out), hints=hints,
                                              notes=stamp), warnings=said)

    # ---- writing tools --------------------------------------------------------------------
    @tool(writes=True, appends=True)
    def remember(self, session: str, kind: str, text: str, about: Sequence[str], tags: Sequence[str] = (),
                 supersedes: Sequence[str] = ()) -> Response:
        """Write an experience note for later sessions and other agents: kind rca ("the cause of X is
        in F, function G, because ..."), failure ("tried fixing it in F; failed because ...") or
        insight. ABOUT names the code it concerns (node ids, paths, path::symbol, path:LINE as get reads
        it; "" or "." for the whole repository). Returns the note id once the note is durable on disk; it is searchable at once.
        Writing the same note again (a retry) returns the first one's id and writes nothing."""
        s = self._session(session)       # which kinds exist: the notes layer says (notes.validate)
        # lists of checked strings (``@tool``)
        about, tags, supersedes = cast(list, about), cast(list, tags), [W.superseded_id(self.memory, o) for o in cast(list, supersedes)]
        about = [self._target(s, a).id if L.at_line(a) else     # path:LINE: the node get serves, by id; a path's
                 PT.recorded(self.memory, s.view, a, lambda x: self._target(s, x)) for a in about]    # tail: its path
        for a in about:         # a note's or mined node's id: get serves it, and it is no code (``codeonly``)
            if refused := CO.note_named(lambda x: self._target(s, x), a, "name the code your note concerns "
                                        "(supersedes= replaces a note)"):
                raise NoteRejected(refused)
        sh, about = self.memory.shard_for(about, s.view)       # on a branch: its code, branch-only code too
        view, said = (s.view, []) if s.view is not None else checkoutnotes.edited_view(  # edited code: as it is seen
            self.memory, sh, about, self.overlay_builder, self._views)
        ov = self.memory.overlay(sh)
        for old in supersedes:          # "no such note" for one another store holds misled (a probe)
            other = self.memory.note_store(old)
            if other is not None and other is not sh:
                raise InvalidArgument(f"note {echo(old)} is in the store of {other.manifest.repo_name}, and this note "
                                      f"is about code of {sh.manifest.repo_name}: a note supersedes only notes "
                                      "of its own store")
        nid, written = ov.remember_or_found(kind=kind, text=text, about=about, tags=tags, supersedes=supersedes,
                                            author=s.author, session=s.id, model=s.model,
                                            authenticated=s.authenticated,
                                            explain=(lambda a: self.memory.unindexed([sh], a)) if view is None else None,
                                            scope=checkoutnotes.note_scope(self.memory, sh, view, s.view,
                                                                           self.overlay_builder, about))
        said += [] if written else [f"an identical active {kind} note of yours exists ({nid}): it is returned, nothing was written"]
        # the writer sees its own note, quarantined or not (an open server's caller is "anonymous"
        # while its session writes as the author it claimed: a durable note was reported as gone)
        found = ov.get(nid, viewer=s.author)
        t = self._target(s, nid) if found is None else Target(ov.shard, None, found)   # None: a re-index merged it
        r = self._respond(s, [self._item(t.shard, t.row, t.note, "summary", view=view)], R.Page("remember"), warnings=said)
        r.data["note_id"] = nid
        return r

    @tool(writes=True)
    def pin(self, session: str, target: str) -> Response:
        """Keep a node in context: pinned nodes are never evicted."""
        s = self._session(session)
        t = self._target(s, target)
        s.controller.pin(t.id, names=pinnames.spellings(target, t))     # unpin by name once it is gone
        return self._respond(s, [], R.Page("pin"))

    @tool(writes=True)
    def unpin(self, session: str, target: str) -> Response:
        """Release a pin so the node can be evicted again."""
        s = self._session(session)
        try:
            nid = self._target(s, target).id
        except (NotFound, InvalidArgument) as e:    # code since deleted, a tail naming two files since: as pinned
            gone = isinstance(e, NotFound)
            nid = s.controller.pinned_as(target) or (gone and answernotes.pinned_file(
                self.memory, target, s.controller.pinned())) or ""
            if not nid:         # naming the session's pins whose code is gone
                raise (NotFound(e.message + pinnames.unpin_hint(self._gone_pins(s, every=True))) if gone else e) from None
        if nid not in s.controller.pinned():     # the name now names other code (path:LINE after an edit)
            nid = s.controller.pinned_as(target) or nid
        was = s.controller.unpin(nid)
        return self._respond(s, [], R.Page("unpin"), warnings=[] if was else [f"{target} was not pinned"])

    @tool(writes=True)
    def prefetch(self, session: str, focus: Sequence[str], budget: int | None = None) -> Response:
        """Warm the working set for the files you are about to edit: their imports, tests and files
        that historically change with them, at the detail each deserves, within BUDGET tokens.
        Each item carries the active notes about it: what was tried there before. The FOCUS files are
        the session's focus until you get a file or symbol at full level (what you edit)."""
        s = self._session(session)
        if not focus:
            raise InvalidArgument("prefetch needs at least one focus path or node id")
        ids = {}        # file id -> its path
        for ref in focus:
            t = self._target(s, ref)
            if (refused := CO.not_code(t, "focus on the files you are about to edit (the code it is about)")) \
                    or t.row is None:
                raise InvalidArgument(refused)
            ids[file_id(t.shard, t.row)] = t.shard.col("path")[t.row]
        # a hint, not an explicit focus: that one no agent tool clears, so the next full get (the code
        # being edited) left the focus here and was the first evicted (a probe)
        s.controller.hint_focus(list(ids))          # (the focus's _target read the notes just now)
        items = []
        free = s.controller.free()
        room = min(budget, free) if budget is not None else free
        cost = functools.cache(self._notes_cost)      # the plan's, then a left-out focus file's words
        plan = s.controller.prefetch_plan(list(ids), budget, extra=cost, version=lambda n: self._version(s, n))
        planned = {p.node_id for p in plan}
        for p in plan:
            try:
                t = self._node(s, p.node_id)      # a node id: no notes read again between plan and items
            except NotFound:        # a planned neighbour in a file the session's branch deleted
                continue
            items.append(self._item(t.shard, t.row, t.note, p.level, view=s.view, beside=planned))
        kept = R.within(items, room)   # notes written meanwhile
        # the focus first: one that fits at no level is said, with what would hold it (no room: said below)
        said = [R.focus_left_out(ids[u.node_id], u.level, u.tokens, cost(u.node_id), room, free,
                                 plan.before.get(u.node_id, 0)) for u in plan.unfit if room > 0]
        said += [f"{len(items) - len(kept)} planned items left out: notes written since the plan made the rest "
                 "too large"] if len(kept) < len(items) else []   # an empty or smaller answer says why
        if budget is not None and budget > free:
            said.append(f"prefetch adds only into the session's free room ({free} of the {budget} tokens asked): "
                        "it never evicts what the session holds; get what else you need (a get evicts what the "
                        "session needs least), or unpin what you no longer need so that it may be evicted")
        if not kept:
            said.append("nothing to prefetch: " + ("the session's context has no free room above its reserve"
                                                   if free <= 0 or (budget is not None and budget <= 0) else
                                                   "the focus and its neighbours are held already, or none fits in "
                                                   f"{room} tokens"))
        return self._respond(s, kept, R.Page("prefetch"), infer_focus=False, warnings=said)

    @tool(writes=False)
    def status(self, session: str) -> Response:
        """What memory is loaded (per shard: published version, indexed commit, whether the repository
        has moved on since) and this session's budget and working set."""
        s = self._session(session)
        r = self._respond(s, [], R.Page("status"), everything=True,     # looks at each repository afresh
                          warnings=self.memory.shards.held_back())     # a store held at its loaded version
        shards = []
        for sh in self.memory:
            m, ov = sh.manifest, self.memory.overlay(sh)
            ov.refresh()         # notes other processes appended since the last call count too
            info = {"store": str(sh.store.root), "repo": m.repo_name, "version": m.version,
                    "indexed_commit": m.indexed_commit, "nodes": len(sh),
                    "published_at": m.published_at, "unmerged_notes": ov.count()}
            if self.freshness is not None:
                info.update(self._repo_status(m, repo_at(str(sh.store.root), m.repo_path)))
            shards.append(info)
        sess = s.controller.status()    # its working set best first, cut: a long session's status stays small
        sess["entries_total"] = len(sess["entries"])
        sess["entries"] = sess["entries"][:STATUS_ENTRIES]
        r.data.update(shards=shards, session=sess, author=s.author, authenticated=_proven(s),
                      label=session_label(s.id), identified_by=session_identified(s.author, s.authenticated))
        if s.view is not None:
            r.data["overlay"] = s.view.describe()
        return r

    @tool(writes=True, agent=False, appends=True)
    def retract(self, session: str, note_id: str, reason: str = "") -> Response:
        """Review: withdraw a note (a tombstone in the delta log); another author's needs the maintainer role."""
        s, (ov, note_id) = self._session(session), self._holder(note_id, "retract")
        r = self._respond(s, [], R.Page("retract"))
        r.data.update(note_id=note_id, record=ov.retract(note_id, author=s.author, reason=reason, session=s.id))
        return r

    @tool(writes=True, agent=False, appends=True)
    def confirm(self, session: str, note_id: str) -> Response:
        """Review: confirm another identity's note, releasing it (and its author) from quarantine."""
        s, (ov, note_id) = self._session(session), self._holder(note_id, "confirm")
        r = self._respond(s, [], R.Page("confirm"))
        r.data.update(note_id=note_id, record=ov.confirm(note_id, author=s.author))
        return r

    def _holder(self, note_id: str, action: str) -> tuple[NotesOverlay, str]:
        """The overlay holding an agent note, quarantined ones too, and its id (``Memory.note_holder``)."""
        self.memory.refresh_notes()
        sh, note_id = self.memory.note_holder(note_id, action)
        return self.memory.overlay(sh), note_id

    def _repo_status(self, m, repo: str) -> dict:
        """REPO's status dict (``freshness.repo_at``): from the look the answer was just checked against, else asked."""
        f = self.memory.freshness
        v = f.last(repo, m.indexed_commit) if f is not None and repo else None
        if v is not None and v.status is not None:
            return dict(v.status)
        return self.freshness(repo, m.indexed_commit) if self.freshness is not None else {}

    # ---- not agent tools ------------------------------------------------------------------
    def reload(self) -> list:
        """Pick up newly published store versions; calls already running keep their old shards."""
        return self.memory.reload()

    def close(self) -> None:
        self.sessions.clear()

    # ---- helpers --------------------------------------------------------------------------
    def _item(self, sh: Shard, row: int | None, note: dict | None, level: str, attach: bool = True,
              view: BranchView | None = None, beside: Collection[str] = ()):
        """A code item carrying the notes about it (``attach``; ``beside``: the ids of the answer's
        other items carrying theirs, ``answernotes.carried``), or a note item. In a branch
        session (``view``) a note's staleness, attached or an item of its own, is judged against
        the code the session sees (``memory.BranchCode``): get, walk, search and remember agree."""
        base = view.base_of(sh, list(self.memory)) if view is not None else sh
        ov = self.memory.overlay(base)
        code = self.memory.branch_code(view, base) if view is not None else None
        if row is None:
            if note is None:
                raise NotFound("the note is gone (retracted or merged meanwhile); search again")
            it = ov.item(note, level)
        else:
            it = R.code_item(sh, row, level, ov)
        if it.kind in S.NOTE_KINDS:
            if code is not None:
                ov.rejudge(it, code.warnings)
        elif attach and row is not None:       # its own and its C/C++ counterpart's (``answernotes.carried``)
            R.attach_notes(it, answernotes.carried(self.memory, sh, row, view, beside), cap=self.notes_per_item)
        return it

    def _notes_overlay(self, s: Session, sh: Shard):
        """The notes overlay of the base shard a (possibly overlay) shard answers for."""
        return self.memory.overlay(s.view.base_of(sh, list(self.memory)) if s.view is not None else sh)

    def _version(self, s: Session, node_id: str) -> str:
        """Which version of a node the session would be served (its content hash; "" gone)."""
        try:
            t = self._node(s, node_id)
        except NotFound:
            return ""
        return t.shard.col("content_hash")[t.row] or "" if t.row is not None else ""

    def _notes_cost(self, node_id: str) -> int:
        """Tokens of the note lines a node's item will carry (the controller plans with them)."""
        t = self.memory.resolve(node_id)
        if t.row is None:
            return 0
        return R.notes_cost(answernotes.carried(self.memory, t.shard, t.row), cap=self.notes_per_item)

    def _offset(self, token: str, tool: str, args: dict, s: Session) -> int:
        if not token:
            return 0
        return self.tokens.check(token, tool=tool, args=args, version=self.memory.version, session=s.id)

    def _gone_pins(self, s: Session, every: bool = False) -> list[dict]:
        return ST.gone_pins(self.memory, s, every)

    def _respond(self, s: Session, items: list, page: R.Page, everything: bool = False, asked=None, **kw) -> Response:
        self.memory.label_repos(items)
        kw["warnings"] = [*(kw.get("warnings") or ()), *pinnames.said(self._gone_pins(s))]    # said once

        def fresh(kept: list) -> tuple[dict, list[str], bool]:        # of the items returned (a page may be cut)
            # a branch, commit or worktree session's answer is that revision's code: the main
            # checkout's HEAD and work tree are not its staleness (Memory.fresh ``checkout``)
            commits, fw, stale = self.memory.fresh([(it.id, it.path, it.kind) for it in kept], everything=everything,
                                                   checkout=s.view is None, asked=asked)   # an empty page: its scope's
            if s.view is None:           # else the branch's commit, and a word that it differs from the index
                return commits, fw, stale
            return s.view.commits_for(commits, list(self.memory)), [s.view.warning()] + fw, stale
        resp = R.respond(s, items, page, tokens=self.tokens, version=self.memory.version, fresh=fresh, **kw)
        for ev in resp.envelope.evictions:      # what left the context, by name (probe P4: ids only)
            ev.label = R.entry_label(self.memory, ev.node_id)
        return resp


def _proven(s: Session) -> bool:
    """A session's ``authenticated`` as its notes' provenance says it (``notetrust.identified_by``):
    the OS user is proven too; status said "authenticated: False" beside notes reading "authenticated"."""
    return session_identified(s.author, s.authenticated) != CLAIMED


TOOLS: tuple[ToolSpec, ...] = tuple(_SPECS)
TOOL_NAMES: tuple[str, ...] = tuple(t.name for t in TOOLS if t.agent)     # the nine agent tools, in order
READ_ONLY: frozenset[str] = frozenset(t.name for t in TOOLS if not t.writes)
WRITING: frozenset[str] = frozenset(t.name for t in TOOLS if t.writes)
APPENDING: frozenset[str] = frozenset(t.name for t in TOOLS if t.appends)     # to the delta log

__all__ = ["Tools", "Session", "ToolSpec", "TOOLS", "TOOL_NAMES", "READ_ONLY", "WRITING", "APPENDING", "MAX_QUERY_CHARS",
           "MAX_PAGE_SIZE", "DEFAULT_BUDGET", "tool"]
