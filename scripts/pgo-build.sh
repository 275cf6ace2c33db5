#!/usr/bin/env bash
# Builds `fn-hcl` (and the benchmark drivers) with profile-guided
# optimization: an instrumented build runs a training workload, the
# profiles are merged, and the release build uses them to lay out hot code
# together and cold code apart. The evaluator's code per resource is
# larger than the CPU's 32 KiB instruction cache; ordering it by use is
# what this buys (docs/notes/pgo.md, numbers in docs/benchmarks.md).
#
# Training (the same work every run, ~10 s): the benchmark driver's
# composition, bucket and live-sized workloads from request bytes, an
# uncached compile of a large program, `fn-hcl render` of the example,
# `fn-hcl test` of the render cases, `fn-hcl eval --jsonl` over the
# expression corpora of the tests and 60 generated heavy lines (when
# python3 is there; other data than the benchmark's: seed 7, not 18),
# and `fn-hcl serve` answering 3,000 calls from the load test's own
# (tonic) client.
#
# Usage: scripts/pgo-build.sh [--target TRIPLE] [--out PATH]
#   Needs `llvm-profdata` of rustc's LLVM: the rustup component
#   `llvm-tools` (installed when missing), or LLVM_PROFDATA=path.
#   --target  build for TRIPLE (cargo --target); the training runs the
#             instrumented binaries, so TRIPLE must run on this machine.
#   --out     copy the optimized `fn-hcl` to this path (printed either way).
#   Extra RUSTFLAGS are kept. Instrumented build: target/pgo-gen; final
#   build: target/pgo (or CARGO_TARGET_DIR/pgo-gen, .../pgo).
set -euo pipefail
cd "$(dirname "$0")/.."

triple=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --target) triple="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "pgo-build: unknown argument $1" >&2; exit 2 ;;
  esac
done

base="${CARGO_TARGET_DIR:-target}"
gen_dir="$base/pgo-gen"
use_dir="$base/pgo"
data="$(realpath -m "$base/pgo-data")"
profile="$data/merged.profdata"
target_args=()
sub=release
if [ -n "$triple" ]; then
  target_args=(--target "$triple")
  sub="$triple/release"
fi

profdata="${LLVM_PROFDATA:-}"
if [ -z "$profdata" ]; then
  sysroot="$(rustc --print sysroot)"
  host="$(rustc -vV | sed -n 's/^host: //p')"
  profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
  if [ ! -x "$profdata" ]; then
    rustup component add llvm-tools >&2
  fi
fi
[ -x "$profdata" ] || { echo "pgo-build: no llvm-profdata at $profdata" >&2; exit 1; }

flags="${RUSTFLAGS:-}"
rm -rf "$data"
mkdir -p "$data"

echo "pgo-build: instrumented build ($gen_dir)" >&2
RUSTFLAGS="$flags -Cprofile-generate=$data" CARGO_TARGET_DIR="$gen_dir" \
  cargo build --release --locked "${target_args[@]}" -p fnhcl-cli \
  -p fnhcl-bench --bin fn-hcl --bin fnhcl-loadtest --example run_loop
# Build scripts and proc macros ran instrumented too; their profiles are
# of no use to the binaries.
rm -f "$data"/*.profraw

bin="$gen_dir/$sub"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "pgo-build: training" >&2
loop="$bin/examples/run_loop"
"$loop" 10 3000 bytes >/dev/null
"$loop" 50 600 bytes >/dev/null
"$loop" 20 1000 buckets >/dev/null
"$loop" 5 300 live-bytes >/dev/null
"$loop" 1 40 compile >/dev/null
"$bin/fn-hcl" render examples/modules/xr.yaml examples/modules/composition.yaml \
  --observed-resources examples/modules/observed.yaml >/dev/null
"$bin/fn-hcl" test tests/render >/dev/null
for f in crates/fnhcl-expr/tests/data/*.jsonl crates/fnhcl-functions/tests/oracle/*.jsonl; do
  "$bin/fn-hcl" eval --jsonl <"$f" >/dev/null
done
if command -v python3 >/dev/null; then
  python3 crates/fnhcl-bench/scripts/expr_workload.py gen 60 --seed 7 >"$work/expr.jsonl"
  for _ in 1 2 3; do "$bin/fn-hcl" eval --jsonl <"$work/expr.jsonl" >/dev/null; done
fi
"$bin/fnhcl-loadtest" --server "$bin/fn-hcl" --mode cpu --client tonic \
  --requests 1500 --sizes 1,20 >/dev/null

"$profdata" merge -o "$profile" "$data"/*.profraw
echo "pgo-build: merged $(ls "$data"/*.profraw | wc -l) profiles into $profile" >&2

echo "pgo-build: optimized build ($use_dir)" >&2
# Functions the training never ran have no profile; that is expected.
RUSTFLAGS="$flags -Cprofile-use=$profile -Cllvm-args=-pgo-warn-missing-function=false" \
  CARGO_TARGET_DIR="$use_dir" \
  cargo build --release --locked "${target_args[@]}" -p fnhcl-cli \
  -p fnhcl-bench --bin fn-hcl --bin fnhcl-loadtest --example run_loop
final="$use_dir/$sub/fn-hcl"
if [ -n "$out" ]; then
  cp "$final" "$out"
  echo "$out"
else
  echo "$final"
fi
