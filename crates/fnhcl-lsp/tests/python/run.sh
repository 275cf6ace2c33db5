#!/usr/bin/env bash
# Language-server tests with a real LSP client: pytest-lsp starts
# `fn-hcl lsp` and drives it with the initialize capabilities of VS Code and
# Neovim, on the fixture workspaces under workspaces/. Installs pytest-lsp
# into a virtualenv under target/lspvenv. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../../../.."

PYTEST_LSP_VERSION="1.0.1"
VENV=target/lspvenv
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
  python3 -m venv "$VENV"
fi
if [ "$("$PY" -c 'from importlib.metadata import version; print(version("pytest-lsp"))' 2>/dev/null)" != "$PYTEST_LSP_VERSION" ]; then
  "$PY" -m pip install --quiet --disable-pip-version-check "pytest-lsp==$PYTEST_LSP_VERSION"
fi

if [ -z "${FN_HCL_BIN:-}" ]; then
  cargo build --quiet -p fnhcl-cli
  export FN_HCL_BIN="$PWD/target/debug/fn-hcl"
fi

if ! command -v nvim >/dev/null 2>&1; then
  echo "run.sh: nvim not found: test_neovim.py (headless Neovim smoke tests) is skipped"
fi

cd crates/fnhcl-lsp/tests/python
exec "../../../../$PY" -m pytest -q -p no:cacheprovider "$@"
