#!/usr/bin/env python3
"""Generates the differential corpus for the numeric, collection and
type-conversion built-ins that hcl-oracle provides (cty stdlib semantics),
runs it through hcl-oracle and writes corpus.jsonl (expression + the
oracle's answer). The Rust test tests/oracle.rs replays the corpus against
the registry. Regenerate (needs the Go oracle):

    bash /work/shared/tools/hcl-oracle/build.sh /tmp/hcl-oracle
    python3 crates/fnhcl-functions/tests/oracle/generate.py /tmp/hcl-oracle

Only functions whose oracle implementation is the one Terraform 1.5.7
uses are included (not length/lookup/index/coalesce..., which Terraform
replaces with its own versions).
"""
import itertools, json, os, random, subprocess, sys

rng = random.Random(1557)

NUMS = ["0", "1", "-1", "2.5", "-0.5", "1e3", "7", "100", "-13", "0.1", "16", "\"3\"", "\"x\"", "true", "null", "[1]"]
STRS = ["\"\"", "\"a\"", "\"b\"", "\"hello\"", "\"1\"", "\"true\"", "\"FF\"", "\"-10\"", "\"1.5\"", "1", "true", "null", "[\"a\"]"]
SEQS = [
    "[]", "[\"a\", \"b\"]", "[\"b\", \"a\", \"b\"]", "[1, 2, 3]", "[3, 1, 2, 1]", "[\"a\", 1]", "[[1], [2]]",
    "[[\"a\"], [\"b\", \"c\"]]", "[true, false]", "[\"a\", \"\", \"b\"]", "[null, \"a\"]", "[1, [2, [3]]]",
    "tolist([\"x\", \"y\"])", "tolist([1, 2])", "tolist([])", "toset([\"b\", \"a\", \"b\"])", "toset([3, 1])",
    "toset([])", "[{a = 1}, {a = 2}]", "[[1, 2], [\"x\"]]", "\"abc\"", "1", "null", "{a = 1}",
    "tomap({a = \"x\"})", "[\"10\", \"9\", \"1\"]", "[1.5, -2, 10]",
]
MAPS = [
    "{}", "{a = 1}", "{a = 1, b = \"x\"}", "{b = [1], a = [2]}", "tomap({a = \"x\", b = \"y\"})",
    "tomap({a = 1})", "tomap({})", "{a = {b = 1}}", "[\"a\"]", "\"a\"", "null", "{\"x y\" = true}",
]
ANY = sorted(set(NUMS[:6] + STRS[:6] + SEQS[:14] + MAPS[:6]))

def calls():
    out = []
    for f in ["abs", "ceil", "floor", "signum"]:
        out += [f"{f}({a})" for a in NUMS]
    for f in ["log", "pow"]:
        out += [f"{f}({a}, {b})" for a, b in itertools.product(["1", "2", "16", "0.5", "100", "-1", "0", "\"4\""], ["2", "10", "0.5", "-1", "0", "3"])]
    for f in ["max", "min"]:
        out += [f"{f}({', '.join(c)})" for n in range(0, 4) for c in itertools.combinations(NUMS[:12], n)][:120]
        out += [f"{f}([3, 1, 2]...)", f"{f}([]...)"]
    out += [f"parseint({a}, {b})" for a, b in itertools.product(STRS + ["\"zz\"", "\"-00FF\"", "\"aA\"", "\"0x1\"", "\"1_0\"", "\"101\""], ["2", "10", "16", "36", "62", "1", "63", "2.5"])]
    for f in ["tobool", "tonumber", "tostring", "tolist", "toset", "tomap"]:
        out += [f"{f}({a})" for a in sorted(set(NUMS + STRS + SEQS + MAPS))]
    for f in ["compact", "distinct", "flatten", "reverse", "sort", "keys", "values"]:
        out += [f"{f}({a})" for a in SEQS + MAPS]
    out += [f"chunklist({a}, {n})" for a in SEQS for n in ["0", "1", "2", "-1", "1.5"]]
    out += [f"element({a}, {n})" for a in SEQS for n in ["0", "1", "5", "-1", "0.5", "\"1\""]]
    out += [f"contains({a}, {v})" for a in SEQS for v in ["\"a\"", "1", "[1]", "true"]]
    out += [f"slice({a}, {s}, {e})" for a in SEQS[:20] for s, e in [("0", "0"), ("0", "1"), ("1", "2"), ("1", "0"), ("0", "5"), ("-1", "1")]]
    out += [f"range({', '.join(c)})" for c in [["3"], ["0"], ["-3"], ["1", "4"], ["4", "1"], ["1", "8", "2"], ["10", "5", "-2"], ["0", "1", "0.25"], ["0", "1", "0.1"], ["1", "4", "-1"], ["1", "2", "0"], ["0", "0", "0"], ["2000"], [], ["1", "2", "3", "4"], ["\"3\""], ["null"], ["1.5"], ["0", "-1.5"], ["5", "5"]]]
    pairs = list(itertools.product(SEQS, SEQS))
    rng.shuffle(pairs)
    for f in ["concat", "setunion", "setintersection", "setsubtract", "setproduct", "coalescelist", "zipmap"]:
        out += [f"{f}({a}, {b})" for a, b in pairs[:70]]
    out += [f"concat({a}, {b}, {c})" for a, b, c in [tuple(rng.choice(SEQS) for _ in range(3)) for _ in range(40)]]
    out += ["concat()", "setproduct([\"a\"])", "coalescelist()", "merge()", "setunion([\"a\"])"]
    mpairs = list(itertools.product(MAPS, MAPS))
    rng.shuffle(mpairs)
    out += [f"merge({a}, {b})" for a, b in mpairs[:100]]
    out += [f"merge({a})" for a in MAPS]
    out += [f"zipmap({k}, {v})" for k in ["[\"a\", \"b\"]", "[]", "[\"a\", \"a\"]", "[1, 2]", "tolist([\"x\", \"y\"])"] for v in ["[1, 2]", "[]", "[\"x\", 1]", "tolist([1, 2])", "[1]", "\"ab\""]]
    seen, uniq = set(), []
    for c in out:
        if c not in seen:
            seen.add(c)
            uniq.append(c)
    return uniq

def main():
    oracle = sys.argv[1] if len(sys.argv) > 1 else "/tmp/hcl-oracle"
    exprs = calls()
    inp = "".join(json.dumps({"id": str(i), "expr": e}) + "\n" for i, e in enumerate(exprs))
    res = subprocess.run([oracle], input=inp, capture_output=True, text=True, check=True)
    lines = res.stdout.splitlines()
    assert len(lines) == len(exprs)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "corpus.jsonl"), "w") as f:
        for e, l in zip(exprs, lines):
            o = json.loads(l)
            head = '{"expr": %s' % json.dumps(e, ensure_ascii=False)
            if "error" in o:
                f.write(head + ', "error": %s}\n' % json.dumps(o["error"], ensure_ascii=False))
            else:
                # Keep the oracle's number text exactly: copy the raw value.
                raw = l[l.index('"value":') + len('"value":'):l.rindex("}")]
                f.write(head + ', "type": %s, "value": %s}\n' % (json.dumps(o["type"]), raw))
    print(len(exprs), "expressions")

main()
