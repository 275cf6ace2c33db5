#!/usr/bin/env bash
# Regenerates convert_cases.expected with the Go oracle
# (/work/shared/tools/hcl-oracle): for each `FN<TAB>JSON` case, evaluates
# `FN(JSON)` (JSON literals are HCL literals) and records
# `type<TAB>value-json` or `error: message`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
oracle=${ORACLE:-/tmp/hcl-oracle}
python3 - "$here" "$oracle" <<'PY'
import json, re, subprocess, sys
here, oracle = sys.argv[1], sys.argv[2]
cases = [l.rstrip("\n").split("\t", 1) for l in open(f"{here}/convert_cases.txt") if l.strip()]
inp = "".join(json.dumps({"id": str(i), "expr": f"{fn}({arg})"}) + "\n" for i, (fn, arg) in enumerate(cases))
out = subprocess.run([oracle], input=inp, capture_output=True, text=True, check=True).stdout
res = {}
for line in out.splitlines():
    r = json.loads(line)
    if "error" in r:
        msg = r["error"].split(" failed: ", 1)[-1].rstrip(".")
        res[r["id"]] = "error: " + msg
    else:
        raw = re.search(r'"value":(.*)\}$', line).group(1)
        res[r["id"]] = r["type"] + "\t" + raw
with open(f"{here}/convert_cases.expected", "w") as f:
    for i, (fn, arg) in enumerate(cases):
        f.write(f"{fn}\t{arg}\t{res[str(i)]}\n")
PY
