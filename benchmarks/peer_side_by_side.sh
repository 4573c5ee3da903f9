#!/usr/bin/env bash
# Cold index, ours against the C peer codebase-memory-mcp, side by side in one run (issue 13).
#
# Definitions:
# - ours (A): `stratum index REPO --store S --json` with default settings (static embeddings,
#   in-process below the Ray threshold, history with line counts, mined fix and change nodes), S
#   emptied before every run, so every run is cold; the JSON report goes to /dev/null.
# - peer (B): ../shared/peers/index_with_codebase_memory_mcp.sh REPO (its index worker, full mode,
#   its cache emptied first: cold), built by ../shared/peers/build_codebase_memory_mcp.sh.
# - farm-bench times whole processes from outside and runs A B A B ...; the ratio A/B is taken pair
#   by pair (quote the median). Peak = the largest single process.
# Usage: benchmarks/peer_side_by_side.sh [REPO ...]   (default: flask werkzeug requests vue-core redis)
#   CBM_OUT_DIR: the peer's build folder (default .tmp/cbm); RUNS (default 3; redis 2).
# Output: farm-bench's report per repository, also appended to benchmarks/results/peer_side_by_side.txt
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
export CBM_OUT_DIR=${CBM_OUT_DIR:-$ROOT/.tmp/cbm}
PEER=$(cd "$ROOT/../shared/peers" && pwd)/index_with_codebase_memory_mcp.sh
OUT=$HERE/results/peer_side_by_side.txt
STORE=${TMPDIR:-/tmp}/stratum-peer-sbs-store
REPOS=("$@")
[ ${#REPOS[@]} -gt 0 ] || REPOS=(flask werkzeug requests vue-core redis)
{ echo "# $(date -u '+%F %T') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git -C "$ROOT" rev-parse --short HEAD)"; } | tee -a "$OUT"
for r in "${REPOS[@]}"; do
  repo=$HERE/.repos/$r
  runs=${RUNS:-3}; [ "$r" = redis ] && runs=${RUNS:-2}
  echo "## $r ($(git -C "$repo" rev-parse --short HEAD))" | tee -a "$OUT"
  farm-bench -n "$runs" --warmup 1 --timeout 1800 \
    --vs "$PEER $repo" \
    -- sh -c "rm -rf $STORE && exec $ROOT/.venv/bin/stratum index $repo --store $STORE --json >/dev/null" 2>&1 | tee -a "$OUT"
done
rm -rf "$STORE"
