#!/usr/bin/env bash
# Crossplane's own code in the loop: builds the real Crossplane CLI
# (`crossplane render`, releases 2.2.1 and 1.20.7), function-auto-ready and
# the Go function-hcl from the Go module proxy, pinned by the go.mod/go.sum beside this script
# (their source is never copied here), then runs the test that renders
# every case of tests/render/ with them against `fn-hcl serve` and
# compares with `fn-hcl render` (crates/fnhcl-cli/tests/crossplane_render.rs),
# then the differential test against the Go function-hcl.
#
# Binaries go to target/crossplane-bin; Go's module and build caches make
# a second run fast. Fails (never skips) when Go or the proxy is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$root/target/crossplane-bin"
mkdir -p "$bin"

if ! command -v go >/dev/null 2>&1; then
  echo "tests/crossplane/run.sh: no go command: the Crossplane CLI suite needs Go (1.25 or newer)" >&2
  exit 1
fi
proxy="$(go env GOPROXY | cut -d, -f1)"
if [ "$proxy" != "off" ] && [ "$proxy" != "direct" ] && command -v curl >/dev/null 2>&1; then
  if ! curl -s -f -m 30 -o /dev/null "$proxy/github.com/crossplane/crossplane/v2/@v/v2.2.1.info"; then
    echo "tests/crossplane/run.sh: the Go module proxy $proxy cannot be reached (or does not serve github.com/crossplane/crossplane/v2@v2.2.1): cannot build the Crossplane CLI" >&2
    exit 1
  fi
fi

# build DIR PACKAGE OUTPUT: go build of PACKAGE in the pinned module DIR.
build() {
  local dir="$here/$1" pkg="$2" out="$bin/$3"
  if [ ! -x "$out" ] || [ "$dir/go.sum" -nt "$out" ] || [ "$dir/go.mod" -nt "$out" ]; then
    echo "building $3 ($pkg) ..."
    (cd "$dir" && go build -trimpath -o "$out.tmp" "$pkg") || {
      echo "tests/crossplane/run.sh: cannot build $pkg from the Go module proxy" >&2
      exit 1
    }
    mv "$out.tmp" "$out"
  fi
}
build crank-2.2 github.com/crossplane/crossplane/v2/cmd/crank crank-2.2.1
build crank-1.20 github.com/crossplane/crossplane/cmd/crank crank-1.20.7
build function-auto-ready github.com/crossplane/function-auto-ready function-auto-ready
build function-hcl-go github.com/crossplane-contrib/function-hcl/function function-hcl-go
# Peers for the benchmarks only (docs/benchmarks.md, `fnhcl-loadtest --mode
# peers`), when FNHCL_PEERS=1: function-starlark, and function-pythonic from
# PyPI in target/pythonicvenv (it needs Python 3.12 or newer: the first of
# FNHCL_PYTHONIC_PYTHON, python3.14 .. python3.12, pyenv's 3.14 .. 3.12).
if [ "${FNHCL_PEERS:-}" = 1 ]; then
  build function-starlark github.com/wompipomp/function-starlark function-starlark
  pythonic=crossplane-function-pythonic==0.6.3
  venv="$root/target/pythonicvenv"
  if ! "$venv/bin/pip" show -q crossplane-function-pythonic 2>/dev/null ||
    [ "$("$venv/bin/pip" show crossplane-function-pythonic | sed -n 's/^Version: //p')" != "${pythonic#*==}" ]; then
    pyenv_root="$(pyenv root 2>/dev/null || true)"
    py=
    for p in "${FNHCL_PYTHONIC_PYTHON:-}" python3.14 python3.13 python3.12 \
      "$pyenv_root"/versions/3.14*/bin/python3 "$pyenv_root"/versions/3.13*/bin/python3 \
      "$pyenv_root"/versions/3.12*/bin/python3; do
      if [ -n "$p" ] && "$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
        py="$p"
        break
      fi
    done
    if [ -z "$py" ]; then
      echo "tests/crossplane/run.sh: function-pythonic needs Python 3.12 or newer (set FNHCL_PYTHONIC_PYTHON)" >&2
      exit 1
    fi
    echo "installing $pythonic with $py ..."
    rm -rf "$venv"
    "$py" -m venv "$venv"
    "$venv/bin/pip" install -q "$pythonic"
  fi
fi

export FNHCL_CROSSPLANE_CLIS="2.2=$bin/crank-2.2.1,1.20=$bin/crank-1.20.7"
export FNHCL_FUNCTION_AUTO_READY="$bin/function-auto-ready"
export FNHCL_FUNCTION_HCL_GO="$bin/function-hcl-go"
cd "$root"
# The three tests in one run, built with the workspace's features (what
# `cargo test --workspace` built already): crossplane_render
# (crates/fnhcl-cli), hcl_oracle (crates/fnhcl-syntax: our parse errors
# against hashicorp/hcl's, tests/hcl-parse-oracle) and go_oracle, the Go
# function-hcl as an oracle
# (crates/fnhcl-bench: the evaluator's cases and FNHCL_DIFF_CASES, default
# 300, generated programs sent to both functions).
cargo test --workspace --test crossplane_render --test go_oracle --test hcl_oracle -- --ignored --nocapture
