"""Memory transfer (offline stand-in for the paper's E5): do notes from earlier fixes find the next one?

Walk forward in time over the bug fixes after the index commit C (definitions in
benchmarks/common.py, printed below). For fix k the query is its symptom (subject with file names
removed) and the answer is the code files it changed (as at C). A scripted reader answers it with
the real tools (stratum.tools.Tools: search, walk), in a fresh session per fix, under four conditions:

- A: search over the code at C only (the store as indexed; no notes).
- B: the code plus one rca note per *earlier* fix: every bug fix that is an ancestor of C and every
  window fix committed strictly before fix k. The notes are written with ``Tools.remember`` (the
  real delta log and overlay) just before the first fix they may serve, so at query time the store
  holds no note from fix k or later (checked for every fix: the run stops if one leaks).
- C: B, plus one ``walk`` of co-change edges (history up to C only) from B's top file; the file
  ranking interleaves B's ranking with the walk's (B first), duplicates dropped.
- P (pooled, leave-one-out): one store holding the notes of every fix (before C and the whole
  window), merged into a new store version by a real re-index (pipeline merge), the query's own
  note excluded from its answers. P sees notes of *later* fixes, so it is not a deployable
  condition; it shows whether a larger pool of notes dilutes the answers. The fixes P answered
  through a later fix's note are counted separately.
- prior (a reference, no search): files ranked by how many earlier fixes changed them. Notes are
  about the files fixes touch, so part of what they bring is this popularity prior.

A note (kind rca, written from the fix's message, about the files it changed that exist at C):
``Root cause of "<subject>" is in <files>.`` then ``Fixed in <sha> (<date>).`` and the message body
(trailers dropped, first 600 characters).

The reader: calls ``search(symptom, page_size=10)`` page by page (C: page 1, then the walk, then
the next pages) and stops at the first call whose items carry an answer file (a code item's path,
or a file a note item is about), at most 5 calls. Tokens to answer = the sum of the items' token
costs (cl100k, summary level: the envelopes' ``tokens_returned``) over those calls; a fix not
reached in 5 calls counts what the 5 calls cost. File ranking: the files of the items of 5 search
pages in order (C: interleaved with the walk's files as above), whether or not the reader stopped
earlier. success@k = an answer file among the first k files; recall@k = share of the answer
files among them; MRR over the ranking (0 when absent).

A run repeats (per fix, every column; measured in session 14): the notes' record ids, hence their
note ids, are a sequence seeded by C, and the notes are written in sessions with fixed ids
(``writer_session``). The store at C is indexed once and reused (``common.store_at``); B and P are
fresh copies of it.

Usage: .venv/bin/python benchmarks/memory_transfer.py [REPO ...] [--at NAME=DATE|SHA] [--max-fixes N]
Writes benchmarks/results/memory_<name>.csv (one row per fix, ranks and tokens per condition), the
pre-C fix list benchmarks/results/memory_<name>_notes.csv and memory_summary.json.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import common as C  # noqa: E402

PAGE_SIZE = 10
MAX_CALLS = 5
CONDITIONS = ("A", "B", "C", "P")
IDS_FROM = 1_700_000_000_000     # the notes' record ids are times from here (Unix ms), one per id: see evaluate
_TRAILER = re.compile(r"^(signed-off-by|co-authored-by|reviewed-by|cc|fixes|closes|refs?)\s*:", re.I)


# ---- notes --------------------------------------------------------------------------------------
def note_text(t: C.Task) -> str:
    """An rca note from a fix's message (what its writer knew after fixing it)."""
    body = [ln.strip() for ln in t.message.split("\n")[1:] if ln.strip() and not _TRAILER.match(ln.strip())]
    text = " ".join(body)
    if len(text) > 600:
        text = text[:600].rsplit(" ", 1)[0] + " ..."
    head = f'Root cause of "{t.subject}" is in {", ".join(t.targets)}.'
    tail = f"Fixed in {t.sha[:10]} ({t.time.date().isoformat()})."
    return "\n".join(x for x in (head, tail, text) if x)


def pre_c_fixes(checkout: Path, c_paths: set[str]) -> tuple[list[C.Task], dict]:
    """Bug fixes that are ancestors of C, targets = their code files' paths at C (renames followed
    by mining the checkout at C); fixes with no such file are dropped (counted)."""
    hist = C.load_history(checkout)
    out, counts = [], {"fixes": 0, "no_target_at_C": 0}
    for cm in hist:
        if not cm.is_bugfix():
            continue
        counts["fixes"] += 1
        targets = []
        for ch in cm.code_changes:
            if ch.current_path and ch.current_path in c_paths and ch.current_path not in targets:
                targets.append(ch.current_path)
        if not targets:
            counts["no_target_at_C"] += 1
            continue
        out.append(C.Task(cm.sha, cm.time, cm.subject, "", targets, [], True, cm.message))
    return out, counts


def writer_session(tools, c: str, condition: str) -> str:
    """The session a condition's notes are written in, under the same id every run: a merged note is
    keyword-searched by its header too, session id included (32 hex characters that split into a
    varying number of tokens), so a fresh id each run moved P's ranks."""
    sid = hashlib.blake2b(f"{c} {condition}".encode(), digest_size=16).hexdigest()
    return tools.resume_session(sid, author="writer", budget=10 ** 9)


# ---- the reader ---------------------------------------------------------------------------------
def item_files(tools, item) -> list[str]:
    """The files an answer item points the reader to."""
    from stratum import schema as S

    if item.kind in S.NOTE_KINDS:
        sh, row, note = tools.memory.resolve(item.id)
        meta = json.loads((note or sh.row(row))["meta"] or "{}")
        return [t["path"] for t in meta.get("about", [])]
    if item.kind in ("dir", "repo"):
        return []
    return [item.path]


def interleave(a: list[str], b: list[str]) -> list[str]:
    out = []
    for i in range(max(len(a), len(b))):
        out.extend(x[i] for x in (a, b) if i < len(x))
    return C.rank_files([[x] for x in out])


def read(tools, query: str, answers: list[str], *, cochange: bool = False, exclude: set[str] = frozenset(),
         note_time: dict | None = None, now=None) -> dict:
    """One fresh reader session answering ``query``; see the module docstring for the protocol.

    The calls are made in full (5 search pages, and the walk for C) so the ranking does not depend
    on where the reader stopped; tokens count only the calls the reader made until it reached an
    answer file."""
    s = tools.open_session(author="reader", budget=10 ** 9).data["session"]
    want = set(answers)
    calls: list[tuple[int, list[list[str]], list]] = []    # (tokens, files per item, items) per call
    token = ""
    for _ in range(MAX_CALLS):
        r = tools.search(s, query, page_size=PAGE_SIZE, page_token=token)
        items = [it for it in r.items if it.id not in exclude]   # P: the query's own note is not there
        calls.append((sum(it.tokens for it in items), [item_files(tools, it) for it in items], items))
        token = r.envelope.next_page_token
        if not r.envelope.has_more:
            break
    ranking = C.rank_files(f for _, files, _ in calls for f in files)
    if cochange and ranking:
        w = tools.walk(s, ranking[0], ["cochange"], "both", page_size=PAGE_SIZE)
        walk = (w.envelope.tokens_returned, [item_files(tools, it) for it in w.items], list(w.items))
        ranking = interleave(ranking, C.rank_files(walk[1]))
        calls.insert(1, walk)                  # the reader walks right after the first page
    tools.close_session(s)
    from stratum import schema as S

    tokens, reached_at, via_future, by = 0, None, False, ""
    for n, (tok, files, items) in enumerate(calls[:MAX_CALLS], 1):
        tokens += tok
        hit = next((it for it, f in zip(items, files) if want & set(f)), None)
        if hit is not None:
            reached_at = n
            by = "note" if hit.kind in S.NOTE_KINDS else "code"
            via_future = bool(note_time and now is not None and hit.id in note_time and note_time[hit.id] > now)
            break
    return {"ranking": ranking, "rank": C.first_rank(ranking, answers), "tokens": tokens,
            "calls": reached_at or min(len(calls), MAX_CALLS), "reached": reached_at is not None,
            "via_future_note": via_future, "reached_by": by}


# ---- the run ------------------------------------------------------------------------------------
def evaluate(repo: Path, at: str, max_fixes: int | None = None, *, out: Path = C.OUT, results: Path = C.RESULTS,
             log=print, num_cpus: int = 2) -> dict:
    """Run the four conditions on ``repo`` at ``at`` (C). The notes' record ids, hence their note
    ids, are the same sequence every run (seeded by C): ids order the merged notes' rows (and so
    the HNSW graph over them) and break ranking ties; fresh ids moved P by about 0.02 MRR between
    runs (docs/bench/memory_transfer.md, session 14)."""
    from stratum.uids import reproducible_uids

    c = C.resolve_commit(repo, at)
    with reproducible_uids(int(c[:12], 16), IDS_FROM):
        return _evaluate(repo, c, max_fixes, out=out, results=results, log=log, num_cpus=num_cpus)


def _evaluate(repo: Path, c: str, max_fixes: int | None, *, out: Path, results: Path, log, num_cpus: int) -> dict:
    from stratum.tools import Tools

    t0 = time.perf_counter()
    src, store = C.store_at(repo, c, log=log, num_cpus=num_cpus, out=out)
    history = C.load_history(repo)
    window = C.window_shas(repo, c)
    c_paths = C.paths_at(repo, c)
    fixes, dropped = C.make_tasks(history, c, window, c_paths, bugfix_only=True, limit=max_fixes)
    before, pre_counts = pre_c_fixes(src, c_paths)
    log(f"{repo.name}: C={c[:12]}, {len(before)} fixes before C give notes, {len(fixes)} fixes evaluated")
    base = store.parent

    # P: every note, merged into the store by a real re-index
    p_store = C.copy_store(store, base / "mt_P")
    tp = Tools.open([str(p_store)])
    sp = writer_session(tp, c, "P")
    p_note: dict[str, str] = {}          # fix sha -> note id
    note_time: dict[str, object] = {}    # note id -> fix time
    for t in before + fixes:
        nid = tp.remember(sp, "rca", note_text(t), t.targets, tags=["memory-transfer"]).data["note_id"]
        p_note[t.sha], note_time[nid] = nid, t.time
    tp.close()
    from pipeline.job import index_repository
    from stratum.config import IndexConfig

    rep = index_repository(src, p_store, IndexConfig(num_cpus=num_cpus))
    merged = rep.notes.get("notes", 0)
    if merged != len(p_note):
        raise SystemExit(f"P: {len(p_note)} notes written, {merged} merged by the re-index")
    tp = Tools.open([str(p_store)])
    if tp.overlays[str(p_store)].count() != 0:
        raise SystemExit("P: notes left unmerged after the re-index")

    ta = Tools.open([str(store)])
    b_store = C.copy_store(store, base / "mt_B")
    tb = Tools.open([str(b_store)])
    sb = writer_session(tb, c, "B")
    b_time: dict[str, object] = {}
    pending = list(before) + list(fixes)   # notes in time order; each written before its first use
    pending.sort(key=lambda t: t.time)
    rows = []
    for t in fixes:
        while pending and pending[0].time < t.time:
            n = pending.pop(0)
            nid = tb.remember(sb, "rca", note_text(n), n.targets, tags=["memory-transfer"]).data["note_id"]
            b_time[nid] = n.time
        view = tb.overlays[str(b_store)].search_docs()
        visible = [view.id(j) for j in range(view.n) if view.eligible[j]]
        leaked = [nid for nid in visible if b_time[nid] >= t.time]
        if leaked or len(visible) != len(b_time):
            raise SystemExit(f"leak check failed at {t.sha[:10]}: {len(leaked)} notes not from earlier fixes")
        covered = any(set(n.targets) & set(t.targets) for n in before + fixes if n.time < t.time)
        row = {**t.to_row(), "notes_visible": len(visible), "notes_pooled": len(p_note) - 1,
               "earlier_note_about_answer": int(covered)}
        res = {"A": read(ta, t.query, t.targets), "B": read(tb, t.query, t.targets),
               "C": read(tb, t.query, t.targets, cochange=True),
               "P": read(tp, t.query, t.targets, exclude={p_note[t.sha]}, note_time=note_time, now=t.time)}
        for k, v in res.items():
            row[f"rank_{k}"] = v["rank"]
            row[f"tokens_{k}"] = v["tokens"]
            row[f"calls_{k}"] = v["calls"]
            row[f"reached_{k}"] = int(v["reached"])
            row[f"reached_by_{k}"] = v["reached_by"]
            for kk in (1, 5):
                row[f"recall{kk}_{k}"] = C.recall_at(v["ranking"], t.targets, kk)
        row["P_via_future_note"] = int(res["P"]["via_future_note"])
        rows.append(row)
    for x in (ta, tb, tp):
        x.close()
    prior = prior_baseline(before, fixes)

    def cond(k: str) -> dict:
        ranks = [r[f"rank_{k}"] for r in rows]
        return {"n": len(rows),
                "success@1": round(C.mean(1.0 if x == 1 else 0.0 for x in ranks), 4),
                "success@5": round(C.mean(1.0 if x and x <= 5 else 0.0 for x in ranks), 4),
                "recall@1": round(C.mean(r[f"recall1_{k}"] for r in rows), 4),
                "recall@5": round(C.mean(r[f"recall5_{k}"] for r in rows), 4),
                "mrr": round(C.mean(C.mrr(x) for x in ranks), 4),
                "reached": round(C.mean(r[f"reached_{k}"] for r in rows), 4),
                "median_tokens": C.median(r[f"tokens_{k}"] for r in rows),
                "mean_tokens": round(C.mean(r[f"tokens_{k}"] for r in rows), 1),
                "median_tokens_reached": C.median(r[f"tokens_{k}"] for r in rows if r[f"reached_{k}"]),
                "reached_by_note": sum(1 for r in rows if r[f"reached_by_{k}"] == "note")}

    summary = {"repo": repo.name, "index_commit": c, "store": str(store), "store_embedding": _embedding(store), "fixes": len(rows),
               "first_fix": rows[0]["date"] if rows else None, "last_fix": rows[-1]["date"] if rows else None,
               "notes_before_C": len(before), "pre_C": pre_counts, "dropped": dropped,
               "notes_pooled_P": len(p_note), "merge_report": rep.notes,
               "median_notes_visible_B": C.median(r["notes_visible"] for r in rows),
               "fixes_with_earlier_note_about_answer": sum(r["earlier_note_about_answer"] for r in rows),
               "mcnemar_A_vs_B": {f"success@{kk}": mcnemar(rows, "A", "B", kk) for kk in (1, 5)},
               "P_answered_via_later_note": sum(r["P_via_future_note"] for r in rows),
               "vs_B": {k: compare(rows, k, "B") for k in ("A", "C", "P")},
               "conditions": {k: cond(k) for k in CONDITIONS},
               "prior_baseline": prior,
               "seconds": round(time.perf_counter() - t0, 1)}
    results.mkdir(parents=True, exist_ok=True)
    cols = ["sha", "date", "subject", "query", "targets", "dropped_targets", "notes_visible",
            "earlier_note_about_answer"] + \
           [f"{m}_{k}" for k in CONDITIONS for m in ("rank", "tokens", "calls", "reached_by")] + ["P_via_future_note"]
    with open(results / f"memory_{repo.name}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in cols})
    with open(results / f"memory_{repo.name}_notes.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["sha", "date", "subject", "targets"])
        for t in before:
            w.writerow([t.sha, t.time.date().isoformat(), t.subject, " ".join(t.targets)])
    return summary


def prior_baseline(before: list[C.Task], fixes: list[C.Task]) -> dict:
    """No search at all: files ranked by how many earlier fixes changed them (ties: path). What
    notes could contribute as a mere popularity prior, to read B's gain against."""
    out = {"success@1": 0.0, "success@5": 0.0}
    for t in fixes:
        counts: dict[str, int] = {}
        for n in before + fixes:
            if n.time < t.time:
                for f in n.targets:
                    counts[f] = counts.get(f, 0) + 1
        ranking = sorted(counts, key=lambda f: (-counts[f], f))
        out["success@1"] += C.hit_at(ranking, t.targets, 1)
        out["success@5"] += C.hit_at(ranking, t.targets, 5)
    return {k: round(v / max(len(fixes), 1), 4) for k, v in out.items()}


def mcnemar(rows: list[dict], a: str, b: str, k: int) -> dict:
    """Exact McNemar test on success@k: fixes only one condition gets right, two-sided p."""
    from math import comb

    def ok(row, c):
        return row[f"rank_{c}"] is not None and row[f"rank_{c}"] <= k
    only_a = sum(1 for r in rows if ok(r, a) and not ok(r, b))
    only_b = sum(1 for r in rows if ok(r, b) and not ok(r, a))
    n = only_a + only_b
    p = min(1.0, 2 * sum(comb(n, i) for i in range(min(only_a, only_b) + 1)) / 2 ** n) if n else 1.0
    return {f"only_{a}": only_a, f"only_{b}": only_b, "p": round(p, 4)}


def compare(rows: list[dict], k: str, base: str) -> dict:
    """Fixes where condition k ranks the first answer file better / worse than ``base`` does."""
    def r(x):
        return x or 10 ** 6
    return {"better": sum(1 for row in rows if r(row[f"rank_{k}"]) < r(row[f"rank_{base}"])),
            "worse": sum(1 for row in rows if r(row[f"rank_{k}"]) > r(row[f"rank_{base}"])),
            "better_at_1": sum(1 for row in rows if row[f"rank_{k}"] == 1 and row[f"rank_{base}"] != 1),
            "worse_at_1": sum(1 for row in rows if row[f"rank_{k}"] != 1 and row[f"rank_{base}"] == 1)}


def _embedding(store: Path) -> dict | None:
    from stratum.store import Store

    return Store(store).manifest().embedding


def table(summaries: list[dict]) -> str:
    lines = ["| repo | fixes | condition | success@1 | success@5 | recall@1 | recall@5 | MRR | reached in 5 calls "
             "| median tokens to answer | mean tokens | tokens vs A (median) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        a = s["conditions"]["A"]["median_tokens"] or 1
        for k, v in s["conditions"].items():
            lines.append(f"| {s['repo']} | {v['n']} | {k} | {v['success@1']:.3f} | {v['success@5']:.3f} | "
                         f"{v['recall@1']:.3f} | {v['recall@5']:.3f} | {v['mrr']:.3f} | {v['reached']:.3f} | "
                         f"{v['median_tokens']:g} | {v['mean_tokens']:g} | {v['median_tokens'] / a:.2f}x |")
        pr = s["prior_baseline"]
        lines.append(f"| {s['repo']} | {s['fixes']} | prior (no search) | {pr['success@1']:.3f} | "
                     f"{pr['success@5']:.3f} | - | - | - | - | - | - | - |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description="memory transfer: notes from earlier fixes vs code-only search")
    ap.add_argument("repos", nargs="*", default=["flask", "requests"])
    ap.add_argument("--at", action="append", default=[], help="NAME=YYYY-MM-DD or NAME=SHA (index commit C)")
    ap.add_argument("--max-fixes", type=int, default=0, help="evaluate at most this many fixes (0: all)")
    args = ap.parse_args()
    at = dict(C.DEFAULT_AT)
    at.update(dict(a.split("=", 1) for a in args.at))
    print(C.__doc__)
    print(__doc__.split("Usage:")[0])
    print(f"command: {' '.join(sys.argv)}\nmachine: {C.machine()}\n")
    out = []
    for r in args.repos:
        repo = (Path(r) if "/" in r else HERE / ".repos" / r).resolve()
        s = evaluate(repo, at.get(repo.name, "HEAD~200"), args.max_fixes or None)
        out.append(s)
        print(json.dumps({k: v for k, v in s.items() if k != "conditions"}, default=str))
    print("\n" + table(out))
    (C.RESULTS / "memory_summary.json").write_text(json.dumps(
        {"command": " ".join(sys.argv), "machine": C.machine(), "results": out}, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
