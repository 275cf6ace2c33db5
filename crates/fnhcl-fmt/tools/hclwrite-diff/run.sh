#!/usr/bin/env bash
# Differential check of `fn-hcl fmt` against hclwrite.Format (the formatter
# behind terraform fmt), on random HCL from gen.py and on every .hcl file of
# the repository. Not part of CI (needs Go and Debian's HCL package, as the
# hcl-oracle tool does). Usage: run.sh [N_RANDOM]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
n=${1:-300}
if ! command -v go >/dev/null || [ ! -d /usr/share/gocode/src/github.com/hashicorp/hcl/v2 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go golang-github-hashicorp-hcl-v2-dev >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$here" && GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$work/gocache" go build -o "$work/hclwrite-fmt" .)
(cd "$repo" && cargo build -q -p fnhcl-cli)
fnhcl="$repo/target/debug/fn-hcl"
# Our documented differences: newlines are LF, trailing blanks go, the file
# ends with a newline. Blank lines are kept as hclwrite keeps them.
squeeze() { tr -d '\r' | sed -e 's/[ \t]*$//' | sed -e '$a\'; }
same=0 diff=0 invalid=0
check() {
  if ! "$fnhcl" fmt --normalize-literals=false - <"$1" >"$work/mine" 2>/dev/null; then
    invalid=$((invalid + 1)); return
  fi
  if cmp -s <("$work/hclwrite-fmt" <"$1" | squeeze) <(squeeze <"$work/mine"); then
    same=$((same + 1))
  else
    diff=$((diff + 1)); echo "differs: $2"
  fi
}
while IFS= read -r f; do check "$f" "$f"; done < <(find "$repo" -name '*.hcl' -not -path '*/target/*')
for i in $(seq 1 "$n"); do python3 "$here/gen.py" "$i" >"$work/in.hcl"; check "$work/in.hcl" "gen.py $i"; done
echo "same: $same, different: $diff, rejected as invalid: $invalid"
[ "$diff" -eq 0 ]
