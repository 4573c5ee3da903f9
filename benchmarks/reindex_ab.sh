#!/bin/bash
# A one-file re-index, A/B in one run (docs/bench/index_speed.md, "Session 26"): each run copies the
# primed store afresh, indexes the repository in a fresh process under /usr/bin/time -v, and prints
# wall, CPU (user + system), peak RSS, the report's stage seconds and the warm build's (its manifest's
# indexes.seconds: prepare is the rows' hashes; redone: keyword documents the update made again), one line a run.
#
#   WORK=<dir> benchmarks/reindex_ab.sh OUT.tsv A B A B ...
#
# WORK holds: store1 (the store, primed: indexed cold, then once after a first one-line commit; that
# second index made by B's code, or B links every caller: the calls edges a re-index keeps carry the
# linker's key, pipeline.callkeep.link_key, and a store of other code has another),
# repo (the repository, one more one-line commit on top: the change measured), A (the code to compare:
# `git worktree add $WORK/A <commit>` with .venv symlinked into it). B is this tree.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
W=${WORK:?set WORK}
export RAY_TMPDIR=${RAY_TMPDIR:-$here/.tmp/ray}
out=$1; shift
for side in "$@"; do
  rm -rf "$W/run" && cp -a "$W/store1" "$W/run"
  case $side in A) dir=$W/A;; B) dir=$here;; *) echo "side A or B" >&2; exit 2;; esac
  load=$(cut -d' ' -f1 /proc/loadavg)
  ( cd "$dir" && /usr/bin/time -v .venv/bin/python -m stratum.cli index "$W/repo" --store "$W/run" \
      --report "$W/rep_$side.json" > "$W/run_$side.log" 2> "$W/run_$side.err" )
  wall=$(grep Elapsed "$W/run_$side.err" | awk '{print $NF}')
  usr=$(grep "User time" "$W/run_$side.err" | awk '{print $NF}'); sys=$(grep "System time" "$W/run_$side.err" | awk '{print $NF}')
  rss=$(grep "Maximum resident" "$W/run_$side.err" | awk '{print $NF}')
  stages=$(python3 -c "
import json; r=json.load(open('$W/rep_$side.json')); s=r['seconds']
w=json.load(open('$W/run/manifest.json')).get('indexes') or {}; ws=w.get('seconds') or {}
print(' '.join(f'{k}={s.get(k,0):.2f}' for k in ('discover','parse','link','history','notes','embed','write','total')), 'embedded', r.get('embedded'), 'parsed', r.get('files_parsed'),
      'warm', ' '.join(f'{k}={ws.get(k,0):.2f}' for k in ('prepare','keyword','graph')), 'redone', w.get('keyword_docs_redone'),
      'calls_kept', (r.get('link') or {}).get('calls_kept'))")
  echo -e "$side\t$(date +%H:%M:%S)\tload=$load\twall=$wall\tcpu=$(python3 -c "print(round($usr+$sys,2))")\trss_mib=$((rss/1024))\t$stages" | tee -a "$out"
done
rm -rf "$W/run"
