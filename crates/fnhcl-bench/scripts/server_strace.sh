#!/usr/bin/env bash
# Syscalls of the server process per call: `strace -f -c` of `BIN --serve`
# over 1,000 calls (plus 200 warm-up calls; divide by 1,200).
#
#   crates/fnhcl-bench/scripts/server_strace.sh BIN python SIZE    # buckets, grpcio client
#   crates/fnhcl-bench/scripts/server_strace.sh BIN tonic RESOURCES # composition, one tonic client
set -euo pipefail
BIN=$1 CLIENT=$2 SIZE=$3
PY=${PYTHON:-target/pyvenv/bin/python}
PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
OUT=$(mktemp)
"$BIN" --serve "127.0.0.1:$PORT" >/dev/null 2>&1 &
SPID=$!
sleep 1
strace -f -c -p "$SPID" -o "$OUT" &
STPID=$!
sleep 1
if [ "$CLIENT" = python ]; then
  "$BIN" --mode cpu --client python --python "$PY" --requests 1000 --sizes "$SIZE" \
    --connect "127.0.0.1:$PORT" --pid "$SPID" 2>&1 | grep -E "resources:"
else
  "$BIN" --mode cpu --clients 1 --workload composition --requests 1000 --sizes "$SIZE" \
    --connect "127.0.0.1:$PORT" --pid "$SPID" 2>&1 | grep -E "resources:"
fi
kill -INT "$STPID"
wait "$STPID" 2>/dev/null || true
kill -INT "$SPID"
wait "$SPID" || true
head -14 "$OUT"
rm -f "$OUT"
