#!/usr/bin/env bash
# Regenerates number_cases.expected with the Go oracle (see
# /work/shared/tools/hcl-oracle): one line per case, `tostring(case)` as
# cty prints it, or `error: <text>`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
oracle=${ORACLE:-/tmp/hcl-oracle}
python3 - "$here" "$oracle" <<'PY'
import json, subprocess, sys
here, oracle = sys.argv[1], sys.argv[2]
cases = [l.rstrip("\n") for l in open(f"{here}/number_cases.txt") if l.strip()]
import re
def hcl(c):
    # L(n): a cty NumberIntVal (64-bit precision) via length(range(n));
    # F(x): a cty NumberFloatVal (53-bit) via pow(x, 1).
    c = re.sub(r"L\((\d+)\)", r"length(range(\1))", c)
    return re.sub(r"F\(([^()]*)\)", r"pow(\1, 1)", c)
inp = "".join(json.dumps({"id": str(i), "expr": f"tostring({hcl(c)})"}) + "\n" for i, c in enumerate(cases))
out = subprocess.run([oracle], input=inp, capture_output=True, text=True, check=True).stdout
res = {}
for line in out.splitlines():
    r = json.loads(line)
    if "error" in r:
        msg = r["error"].split("Error during operation: ")[-1].rstrip(".")
        res[r["id"]] = "error: " + msg
    else:
        res[r["id"]] = r["value"]
with open(f"{here}/number_cases.expected", "w") as f:
    for i, c in enumerate(cases):
        f.write(f"{c}\t{res[str(i)]}\n")
PY
