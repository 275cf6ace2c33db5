#!/usr/bin/env bash
# Interop test: `fn-hcl serve` called through the gRPC stubs of the PyPI
# package crossplane-function-sdk-python. Installs that package into a
# virtualenv under target/pyvenv, starts the server on a free loopback port,
# runs the Python tests, then stops the server with SIGTERM and checks that
# it shut down cleanly. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../../../.."

SDK_VERSION="0.15.1"
VENV=target/pyvenv
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
  python3 -m venv "$VENV"
fi
if ! "$PY" -c "import crossplane.function, grpc, grpc_reflection" 2>/dev/null \
  || [ "$("$PY" -c 'from importlib.metadata import version; print(version("crossplane-function-sdk-python"))')" != "$SDK_VERSION" ]; then
  "$PY" -m pip install --quiet --disable-pip-version-check \
    "crossplane-function-sdk-python==$SDK_VERSION" grpcio grpcio-reflection
fi

BIN="${FN_HCL_BIN:-}"
if [ -z "$BIN" ]; then
  cargo build --quiet -p fnhcl-cli
  BIN=target/debug/fn-hcl
fi

PORT="$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
LOG="$(mktemp)"
"$BIN" serve --insecure --address "127.0.0.1:$PORT" --metrics-address "" 2>"$LOG" &
SERVER=$!
stop_server() {
  if kill -0 "$SERVER" 2>/dev/null; then
    kill -TERM "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
  fi
}
trap stop_server EXIT

status=0
FNHCL_ADDRESS="127.0.0.1:$PORT" "$PY" crates/fnhcl-server/tests/python/test_sdk_python.py || status=$?

# Graceful shutdown on SIGTERM: the server must exit 0.
kill -TERM "$SERVER"
server_status=0
wait "$SERVER" || server_status=$?
trap - EXIT
if [ "$server_status" -ne 0 ]; then
  echo "fn-hcl serve exited with $server_status after SIGTERM" >&2
  status=1
fi
# D38: the credentials test runs with debug dumps on; its credential never
# reaches the log.
if ! grep -q "## start request ##" "$LOG"; then
  echo "the server log has no debug dump: the credentials test did not reach it" >&2
  status=1
elif grep -q -e "h7Qz9" -e "dG9rLWg3UXo5" "$LOG"; then
  echo "a credential reached the server log" >&2
  status=1
fi
if [ "$status" -ne 0 ]; then
  echo "--- server log ---" >&2
  cat "$LOG" >&2
fi
rm -f "$LOG"
exit "$status"
