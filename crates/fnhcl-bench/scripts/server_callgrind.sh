#!/usr/bin/env bash
# Instructions of the server process over CALLS calls of the bucket workload
# at SIZE buckets from the grpcio client with Crossplane's Python SDK stubs
# (issue 18's per-call figure): valgrind's callgrind on `BIN --serve`, driven
# by `BIN --mode cpu --client python --connect ... --pid ...`.
#
#   crates/fnhcl-bench/scripts/server_callgrind.sh BIN CALLS SIZE OUT
#
# BIN is a release `fnhcl-loadtest`; PYTHON (default target/pyvenv/bin/python,
# set up by crates/fnhcl-server/tests/python/run.sh) runs the client. Per call:
# (Ir at 2,000 calls - Ir at 1,000 calls) / 1,000 (both runs include the
# start, the 200 warm-up calls and the first compile).
set -euo pipefail
BIN=$1 CALLS=$2 SIZE=$3 OUT=$4
PY=${PYTHON:-target/pyvenv/bin/python}
PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
LOG=$(mktemp)
valgrind --tool=callgrind --callgrind-out-file="$OUT" "$BIN" --serve "127.0.0.1:$PORT" >"$LOG" 2>&1 &
VP=$!
sleep 4
"$BIN" --mode cpu --client python --python "$PY" --requests "$CALLS" --sizes "$SIZE" \
  --connect "127.0.0.1:$PORT" --pid "$VP" 2>&1 | tail -1
kill -INT "$VP"
wait "$VP" || true
grep Collected "$LOG"
rm -f "$LOG"
