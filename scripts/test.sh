#!/usr/bin/env bash
# Runs every test of the project. Needs Rust, Python 3 (with venv and pip)
# and Go with the module proxy; installs the rest under target/: Python
# virtualenvs (target/pyvenv, target/lspvenv) and the Go-built Crossplane
# CLI (target/crossplane-bin). Nothing is installed system-wide unless
# FNHCL_INSTALL_NEOVIM=1 (below); Go keeps its module and build caches
# where it always does.
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v cargo-nextest >/dev/null 2>&1; then
  cargo nextest run --workspace --no-fail-fast
  cargo test --workspace --doc
else
  cargo test --workspace
fi
# Interop: fn-hcl serve called through the gRPC stubs of the PyPI package
# crossplane-function-sdk-python (installed into target/pyvenv).
bash crates/fnhcl-server/tests/python/run.sh
# The language server with a real LSP client: pytest-lsp (installed into
# target/lspvenv) with VS Code's and Neovim's client capabilities, plus
# smoke tests in a headless Neovim when `nvim` is on PATH. Installing
# Neovim is opt-in: with FNHCL_INSTALL_NEOVIM=1, as root with apt-get, it
# is installed here; otherwise the smoke tests are skipped, and say so.
if ! command -v nvim >/dev/null 2>&1; then
  if [ "${FNHCL_INSTALL_NEOVIM:-}" = 1 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      export DEBIAN_FRONTEND=noninteractive
      if ! { apt-get install -y -qq neovim >/dev/null 2>&1 \
          || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq neovim >/dev/null 2>&1; }; }; then
        echo "test.sh: cannot install neovim with apt-get: the Neovim smoke tests will be skipped"
      fi
    else
      echo "test.sh: FNHCL_INSTALL_NEOVIM=1 needs root and apt-get: install neovim yourself; the Neovim smoke tests will be skipped"
    fi
  else
    echo "test.sh: nvim is not installed: the Neovim smoke tests will be skipped (install neovim, or set FNHCL_INSTALL_NEOVIM=1 to have this script install it with apt-get as root)"
  fi
fi
bash crates/fnhcl-lsp/tests/python/run.sh
# The VS Code extension's grammar and manifest (stdlib Python; the npm
# build is scripts/build-vscode-extension.sh, not run here).
python3 editors/vscode/test/check_grammar.py
# Crossplane's own code in the loop: the real `crossplane render` (CLI
# 2.2.1 and 1.20.7) and function-auto-ready, built from the Go module
# proxy, render every case of tests/render/ against `fn-hcl serve`; the
# output must equal `fn-hcl render`'s (needs Go and the proxy).
bash tests/crossplane/run.sh
