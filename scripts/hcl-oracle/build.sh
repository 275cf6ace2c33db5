#!/usr/bin/env bash
# Builds the project's hcl-oracle variant (with the $unknown/$sensitive
# conventions) from Debian's Go packages; see shared/tools/hcl-oracle.
# Usage: scripts/hcl-oracle/build.sh [OUTPUT]   (default /tmp/hcl-oracle-x)
set -euo pipefail
out=${1:-/tmp/hcl-oracle-x}
here=$(cd "$(dirname "$0")" && pwd)
pkgs="golang-go golang-github-hashicorp-hcl-v2-dev golang-github-zclconf-go-cty-dev golang-github-zclconf-go-cty-yaml-dev"
if ! command -v go >/dev/null || [ ! -d /usr/share/gocode/src/github.com/hashicorp/hcl/v2 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs >/dev/null
fi
cd "$here"
GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=${GOCACHE:-/tmp/hcl-oracle-gocache} go build -o "$out" .
echo "$out"
