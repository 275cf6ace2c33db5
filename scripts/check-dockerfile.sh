#!/usr/bin/env bash
# Checks the runtime image's build without a container runtime.
#
# Reads the Dockerfile (it is the one source of truth; nothing of it is
# repeated here), then on this machine:
#   1. checks the final stage: `FROM` a distroless/static image, a non-root
#      `USER`, a `COPY --from=<build stage>` of the binary the build stage
#      copies out, and an `ENTRYPOINT` running it with `serve`;
#   2. checks that the toolchain is the build stage's (`FROM rust:X.Y-...`)
#      and that the Debian packages the build stage installs are present
#      (with --install-deps they are installed, with apt-get, as root);
#   3. runs the build stage's own commands for the target triple: the
#      `target=...` step, `rustup target add`, `cargo fetch`, and the
#      whole RUN that builds (`cargo build`, or `scripts/pgo-build.sh`
#      with PGO=1) with the stage's ARG/ENV values, the binary the final
#      stage copies written to a file under the target directory instead,
#      and the stage's own check of it (`/fn-hcl version`) run on that file;
#   4. checks the binary is statically linked.
# Exits non-zero on the first mismatch. Slow (a release build for another
# target), so not part of .ci/run.
#
# Usage: scripts/check-dockerfile.sh [--install-deps] [DOCKERFILE]
#   CARGO_TARGET_DIR is honoured (the Dockerfile builds into ./target).
#   ARGs are taken from the environment as --build-arg: PGO=1 checks the
#   profile-guided build (two builds and a training run).
set -euo pipefail
cd "$(dirname "$0")/.."

install_deps=0
dockerfile=Dockerfile
for arg in "$@"; do
  case "$arg" in
    --install-deps) install_deps=1 ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) dockerfile=$arg ;;
  esac
done

fail() { echo "check-dockerfile: FAIL: $*" >&2; exit 1; }
note() { echo "check-dockerfile: $*" >&2; }
[[ -f $dockerfile ]] || fail "no $dockerfile"

# --- Parse: logical instructions (continuations joined, comments dropped),
# grouped by stage. Arrays indexed by stage number.
declare -a stage_from stage_alias stage_user stage_entry stage_runs stage_copies stage_env
stage=-1
while IFS= read -r line; do
  keyword=${line%% *}
  keyword=${keyword^^}
  rest=${line#* }
  case "$keyword" in
    FROM)
      stage=$((stage + 1))
      read -r -a words <<<"$rest"
      image=""
      alias=""
      for ((i = 0; i < ${#words[@]}; i++)); do
        case "${words[i]}" in
          --*) ;;
          [Aa][Ss]) alias=${words[i + 1]:-}; break ;;
          *) [[ -z $image ]] && image=${words[i]} ;;
        esac
      done
      stage_from[stage]=$image
      stage_alias[stage]=$alias
      stage_user[stage]=""
      stage_entry[stage]=""
      stage_runs[stage]=""
      stage_copies[stage]=""
      stage_env[stage]=""
      ;;
    RUN) stage_runs[stage]+="$rest"$'\n' ;;
    COPY) stage_copies[stage]+="$rest"$'\n' ;;
    USER) stage_user[stage]=$rest ;;
    ENTRYPOINT) stage_entry[stage]=$rest ;;
    # ARG name=default and ENV name=value, in order; ENV may refer to ARGs.
    ARG | ENV) stage_env[stage]+="$keyword $rest"$'\n' ;;
  esac
done < <(awk '
  /^[[:space:]]*#/ { next }
  { sub(/\r$/, "") }
  /\\$/ { sub(/\\$/, ""); buf = buf $0; next }
  { line = buf $0; buf = ""; sub(/^[[:space:]]+/, "", line); if (line != "") print line }
' "$dockerfile")
((stage >= 1)) || fail "$dockerfile has $((stage + 1)) stage(s); expected a build stage and a runtime stage"
final=$stage

# The build stage: the one whose RUN runs `cargo build` (itself or through
# scripts/pgo-build.sh).
build_re='cargo build|scripts/pgo-build\.sh'
build=-1
for ((s = 0; s <= final; s++)); do
  if grep -Eq "$build_re" <<<"${stage_runs[s]}"; then build=$s; fi
done
((build >= 0)) || fail "no RUN with 'cargo build' or scripts/pgo-build.sh in $dockerfile"
((build != final)) || fail "the final stage builds; expected a separate runtime stage"
note "build stage $build: FROM ${stage_from[build]} AS ${stage_alias[build]:-(no name)}"

# The `&&`-separated steps of every RUN of the build stage (an `if` is
# split too; only its commands are looked for), and the RUN that builds.
steps=()
build_run=""
while IFS= read -r run; do
  [[ -n $run ]] || continue
  grep -Eq "$build_re" <<<"$run" && build_run=$run
  while IFS= read -r step; do
    step=$(sed -E 's/^[[:space:]]+//; s/[[:space:]]+$//' <<<"$step")
    [[ -n $step ]] && steps+=("$step")
  done < <(sed 's/ && /\n/g' <<<"$run")
done <<<"${stage_runs[build]}"
step_matching() { # first step matching the extended regex $1
  local s
  for s in "${steps[@]}"; do
    if [[ $s =~ $1 ]]; then printf '%s\n' "$s"; return 0; fi
  done
  return 1
}

target_step=$(step_matching '^target=') || fail "no 'target=...' step in the build stage"
fetch_step=$(step_matching 'cargo fetch') || fetch_step=""
rustup_step=$(step_matching 'rustup target add') || rustup_step=""
apt_step=$(step_matching 'apt-get install') || apt_step=""

# --- 1. The runtime stage (checked first: it needs no build). The binary
# is what it copies from the build stage.
alias=${stage_alias[build]}
dest=""
while IFS= read -r c; do
  read -r -a words <<<"$c"
  [[ ${words[0]:-} == "--from=$alias" || ${words[0]:-} == "--from=$build" ]] && dest=${words[1]:-}
done <<<"${stage_copies[final]}"
[[ $dest == /* ]] || fail "the final stage copies no absolute path from the build stage ($alias)"
from=${stage_from[final]}
[[ $from =~ (^|/)distroless/static(-[a-z0-9]+)?(:|@|$) ]] ||
  fail "the final stage is FROM $from, expected a distroless/static image"
user=${stage_user[final]}
[[ -n $user ]] || fail "the final stage sets no USER (it would run as root)"
uid=${user%%:*}
gid=${user#*:}
[[ $uid != 0 && $uid != root ]] || fail "the final stage runs as root (USER $user)"
[[ $user != *:* || ($gid != 0 && $gid != root) ]] || fail "the final stage runs with group root (USER $user)"
copy_ok=0
while IFS= read -r c; do
  [[ -n $c ]] || continue
  read -r -a words <<<"$c"
  from_build=0
  paths=()
  for w in "${words[@]}"; do
    case "$w" in
      --from=*) [[ $w == "--from=$alias" || $w == "--from=$build" ]] && from_build=1 ;;
      --*) ;;
      *) paths+=("$w") ;;
    esac
  done
  # COPY --from=<build> <sources>... <destination>: one source is the binary.
  if ((from_build && ${#paths[@]} >= 2)); then
    for ((i = 0; i < ${#paths[@]} - 1; i++)); do
      [[ ${paths[i]} == "$dest" ]] && copy_ok=1
    done
  fi
done <<<"${stage_copies[final]}"
((copy_ok)) || fail "the final stage does not COPY --from=$alias $dest"
entry=${stage_entry[final]}
[[ $entry == *"\"$dest\""* && $entry == *'"serve"'* ]] ||
  fail "the final stage's ENTRYPOINT is '$entry', expected [\"$dest\", \"serve\"]"
note "runtime stage: FROM $from, USER $user, COPY --from=$alias $dest, ENTRYPOINT $entry"


# --- 2. Toolchain and packages.
if [[ ${stage_from[build]} =~ ^(docker\.io/(library/)?)?rust:([0-9]+\.[0-9]+) ]]; then
  want=${BASH_REMATCH[3]}
  have=$(rustc --version | awk '{print $2}')
  [[ $have == "$want".* || $have == "$want" ]] ||
    fail "the build stage uses Rust $want, this machine has rustc $have"
  note "toolchain: rustc $have matches ${stage_from[build]}"
else
  note "build stage image ${stage_from[build]} is not rust:X.Y; toolchain not compared"
fi
if [[ -n $apt_step ]]; then
  read -r -a words <<<"${apt_step#*apt-get install}"
  pkgs=()
  for w in "${words[@]}"; do [[ $w == -* ]] || pkgs+=("$w"); done
  missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]})); then
    if ((install_deps)); then
      note "installing the build stage's packages: ${missing[*]}"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
    else
      fail "the build stage installs ${pkgs[*]}; missing here: ${missing[*]} (rerun with --install-deps, as root)"
    fi
  fi
  note "packages: ${pkgs[*]} present"
fi

# --- 3. The build stage's commands, in a shell with its ARG/ENV values
# (ARG defaults can be overridden from the environment, as --build-arg).
out_dir=${CARGO_TARGET_DIR:-target}
env_setup=""
while IFS= read -r decl; do
  [[ -n $decl ]] || continue
  kind=${decl%% *}
  body=${decl#* }
  name=${body%%=*}
  if [[ $kind == ARG ]]; then
    default=${body#*=}
    [[ $body == *=* ]] || default=""
    env_setup+="export $name=\"\${$name:-$default}\""$'\n'
  else
    env_setup+="export $body"$'\n'
  fi
done <<<"${stage_env[build]}"

target=$(bash -c "$env_setup$target_step"$'\n''printf %s "$target"') ||
  fail "the target step failed: $target_step"
[[ -n $target ]] || fail "the target step gave no triple: $target_step"
note "target: $target (from: $target_step)"
if [[ -n $rustup_step ]] && ! rustup target list --installed | grep -qx "$target"; then
  note "rustup target add $target"
  rustup target add "$target" ||
    fail "rustup target add $target failed (it needs network access to static.rust-lang.org)"
fi

# The binary the final stage copies, written here instead of at $dest; the
# build's paths under target/ are under $out_dir.
binary="$(realpath -m "$out_dir/image$dest")"
mkdir -p "$(dirname "$binary")"
rm -f "$binary"
grep -Eq "(^|[[:space:]\"'])$dest([[:space:]\"';]|$)" <<<"$build_run" ||
  fail "the build does not write $dest"
grep -Eq "(^|[[:space:];])$dest [a-z]" <<<"$build_run" ||
  fail "the build stage does not run $dest (expected e.g. '$dest version')"
build_run=$(sed -E "s#(^|[[:space:]\"'])$dest([[:space:]\"';]|\$)#\\1$binary\\2#g; s#(^|[[:space:]\"'])target/#\\1$out_dir/#g" <<<"$build_run")

start=$(date +%s)
run_step() { # runs build-stage commands with the stage's values and $target
  note "running: $1"
  (eval "$env_setup"; export target="$target"; eval "$1") || fail "failed: $1"
}
[[ -z $fetch_step ]] || run_step "$fetch_step"
run_step "$build_run"
note "build took $(($(date +%s) - start)) s"

# --- 4. The binary.
[[ -x $binary ]] || fail "no binary at $binary after the build"
if readelf -d "$binary" 2>/dev/null | grep -q '(NEEDED)'; then
  fail "$binary links shared libraries (distroless/static has none): $(readelf -d "$binary" | grep NEEDED)"
fi
readelf -l "$binary" | grep -q 'INTERP' && fail "$binary needs a program interpreter (dynamic loader)"
note "binary: $binary, statically linked ($(stat -c %s "$binary") bytes)"

note "OK (build and checks: $(($(date +%s) - start)) s)"
