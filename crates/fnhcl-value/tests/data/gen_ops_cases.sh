#!/usr/bin/env bash
# Regenerates ops_cases.expected with the Go oracle
# (/work/shared/tools/hcl-oracle). Cases:
#   bin<TAB>OP<TAB>A<TAB>B   evaluates `A OP B`
#   cond<TAB>A<TAB>B         evaluates `true ? A : B` (HCL unifies the two
#                            result types with cty UnifyUnsafe)
# Expected: `TYPE<TAB>JSON` or `error: DETAIL` (HCL's diagnostic detail).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
oracle=${ORACLE:-/tmp/hcl-oracle}
python3 - "$here" "$oracle" <<'PY'
import json, re, subprocess, sys
here, oracle = sys.argv[1], sys.argv[2]
cases = [l.rstrip("\n") for l in open(f"{here}/ops_cases.txt") if l.strip()]
def expr(c):
    p = c.split("\t")
    if p[0] == "bin":
        return f"{p[2]} {p[1]} {p[3]}"
    return f"true ? {p[1]} : {p[2]}"
inp = "".join(json.dumps({"id": str(i), "expr": expr(c)}) + "\n" for i, c in enumerate(cases))
out = subprocess.run([oracle], input=inp, capture_output=True, text=True, check=True).stdout
res = {}
for line in out.splitlines():
    r = json.loads(line)
    if "error" in r:
        msg = r["error"].split(": ", 1)[-1]
        res[r["id"]] = "error: " + msg
    else:
        raw = re.search(r'"value":(.*)\}$', line).group(1)
        res[r["id"]] = r["type"] + "\t" + raw
with open(f"{here}/ops_cases.expected", "w") as f:
    for i, c in enumerate(cases):
        f.write(f"{c}\t{res[str(i)]}\n")
PY
