#!/usr/bin/env bash
# Builds the VS Code extension (editors/vscode) into a .vsix:
#   bash scripts/build-vscode-extension.sh
# Needs Node.js 20+ and npm; fetches the npm dependencies pinned in
# package-lock.json. The .vsix lands in editors/vscode/.
# Install it with: code --install-extension editors/vscode/function-hcl-rs-*.vsix
set -euo pipefail

cd "$(dirname "$0")/../editors/vscode"

python3 test/check_grammar.py
npm ci --no-audit --no-fund
npm run compile
node test/smoke.js
npx vsce package --skip-license
ls -l ./*.vsix
