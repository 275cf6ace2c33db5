#!/usr/bin/env python3
"""The expression workload of issue 18: `fn-hcl eval --jsonl` against the Go
reference libraries (`hcl-oracle`), whole-process time, in one run.

  expr_workload.py gen [LINES] [--seed N] > /tmp/workload.jsonl   # default 300 lines, seed 18
  expr_workload.py bench FN_HCL ORACLE [--lines 300] [--runs 7]

`gen` writes LINES deterministic JSON lines {"id","expr","vars"}: each
expression is heavy (for-expressions, templates, conditionals and the
built-ins both implementations have: merge, lookup, keys, values, length,
join, split, upper, lower, format, jsondecode, jsonencode, sort, distinct,
flatten, contains, max) over ~20 KB of JSON variables of its own.

`bench` generates the file, checks once that both programs give the same
answers (value and type per line), then runs each program over the file
RUNS times, alternating, and prints each one's median and fastest
whole-process wall time and CPU time (user + system; the Go runtime uses
more than one thread, so its CPU time exceeds its wall time) and the ratios
fn-hcl / oracle (a ratio of 0.02 is 50x faster). Wall time depends on the
other load of the machine; CPU time much less.
"""

import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REGIONS = ["us-east-1", "eu-west-1", "ap-south-1", "sa-east-1"]
TEAMS = ["core", "data", "edge", "infra", "ml"]
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]

# Each piece is one attribute of the expression's result object.
PIECES = [
    'by_name = {for i in items : i.name => merge(i.tags, {region = upper(i.region)}) if i.enabled}',
    'labels = join(",", [for i in items : format("%s-%d", lower(i.name), i.size)])',
    'rows = length(jsondecode(doc).rows) + length(keys(config))',
    'summary = "%{ for i in items }${i.name}:${i.size > 50 ? "big" : "small"};%{ endfor }"',
    'encoded = jsonencode({for k, v in config : k => [for s in split(",", v) : upper(s)]})',
    'teams = [for i in items : lookup(i.tags, "team", "none") if length(keys(i.tags)) > 2]',
    'tag_keys = sort(distinct(flatten([for i in items : keys(i.tags)])))',
    'largest = max([for i in items : i.size]...)',
    'regions = {for i in items : i.region => i.name...}',
    'decoded = [for r in jsondecode(doc).rows : "${r.id}/${contains(names, r.owner) ? r.owner : "-"}"]',
    'sizes = values({for i in items : i.name => i.size * 2 if i.size % 3 == 0})',
    'words = [for w in split(" ", phrase) : contains(["alpha", "charlie", "delta", "infra"], w) ? upper(w) : title(w)]',
]


def variables(rng, target_bytes=20_000):
    items = []
    nitems = 48
    for n in range(nitems):
        tags = {"env": rng.choice(["prod", "dev", "stage"])}
        for extra in range(rng.randrange(0, 4)):
            tags[rng.choice(["team", "owner", "cost", "tier"])] = rng.choice(TEAMS + WORDS)
        items.append({
            "name": f"{rng.choice(WORDS)}-{n:03d}",
            "region": rng.choice(REGIONS),
            "size": rng.randrange(1, 100),
            "enabled": rng.random() < 0.7,
            "tags": tags,
        })
    owners = [f"{w}-{t}" for w in WORDS for t in TEAMS]
    rows = [{"id": f"r{k:04d}", "owner": rng.choice(owners), "weight": rng.randrange(0, 1000)}
            for k in range(60)]
    config = {f"key{k:02d}": ",".join(rng.choice(WORDS) for _ in range(4)) for k in range(30)}
    names = rng.sample(owners, 20)
    phrase = " ".join(rng.choice(WORDS + TEAMS) for _ in range(60))
    v = {"items": items, "config": config, "doc": json.dumps({"rows": rows}),
         "names": names, "phrase": phrase}
    # Pad with a lookup table to reach the size (read by `lookup`).
    table = {}
    while len(json.dumps(v, separators=(",", ":"))) < target_bytes:
        table[f"k{len(table):04d}"] = rng.choice(WORDS) * 2
        if len(table) % 16 == 0:
            v["table"] = table
    v["table"] = table
    return v


def lines(count, seed=18):
    rng = random.Random(seed)
    out = []
    for i in range(count):
        vars_ = variables(rng)
        k = len(PIECES)
        chosen = [PIECES[(i + j * 5) % k] for j in range(3)]
        chosen.append('hit = lookup(table, "k%04d", "missing")' % (i % 40))
        expr = "{\n  " + "\n  ".join(chosen) + "\n}"
        out.append(json.dumps({"id": f"w{i:03d}", "expr": expr, "vars": vars_},
                              separators=(",", ":")))
    return out


def run(cmd, path, out=subprocess.DEVNULL):
    """Wall time and CPU time (user + system, from the kernel's accounting)
    of one whole process over the file, and its output if asked."""
    with open(path, "rb") as f:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdin=f, stdout=out, check=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu, p.stdout


def answers(out):
    got = {}
    for line in out.decode().splitlines():
        a = json.loads(line)
        got[a["id"]] = a
    return got


def bench(argv):
    fn_hcl, oracle = argv[0], argv[1]
    nlines = int(argv[argv.index("--lines") + 1]) if "--lines" in argv else 300
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 7
    text = "\n".join(lines(nlines)) + "\n"
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        f.write(text)
        path = f.name
    print(f"workload: {nlines} lines, {len(text) / 1e6:.2f} MB "
          f"({len(text) / nlines / 1e3:.1f} KB per line)")
    ours_cmd, theirs_cmd = [fn_hcl, "eval", "--jsonl"], [oracle]
    ours = run(ours_cmd, path, subprocess.PIPE)[2]
    theirs = run(theirs_cmd, path, subprocess.PIPE)[2]
    a, b = answers(ours), answers(theirs)
    errors = [k for k, v in a.items() if "error" in v]
    differ = [k for k in b if a.get(k) != b[k]]
    print(f"answers: {len(a)} from fn-hcl, {len(b)} from the oracle, "
          f"{len(errors)} errors, {len(differ)} differ")
    if errors:
        print("  first error:", a[errors[0]]["error"][:300])
    if differ:
        k = differ[0]
        print(f"  first difference ({k}):\n   fn-hcl {str(a.get(k))[:300]}\n   oracle {str(b[k])[:300]}")
    t_ours, t_theirs = [], []
    for _ in range(runs):
        t_ours.append(run(ours_cmd, path)[:2])
        t_theirs.append(run(theirs_cmd, path)[:2])
    print(f"{runs} runs each, alternating; load average {os.getloadavg()[0]:.1f}")
    for col, what in ((0, "wall time"), (1, "CPU time (user + system)")):
        o = [t[col] for t in t_ours]
        t = [t[col] for t in t_theirs]
        mo, mt = statistics.median(o), statistics.median(t)
        print(f"{what}: fn-hcl eval --jsonl median {mo * 1e3:.1f} ms (fastest {min(o) * 1e3:.1f}), "
              f"hcl-oracle median {mt * 1e3:.1f} ms (fastest {min(t) * 1e3:.1f}); "
              f"ratio {mo / mt:.4f} median ({mt / mo:.1f}x faster), {min(o) / min(t):.4f} fastest")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "gen":
        rest = sys.argv[2:]
        seed = 18
        if "--seed" in rest:
            at = rest.index("--seed")
            seed = int(rest[at + 1])
            del rest[at:at + 2]
        count = int(rest[0]) if rest else 300
        sys.stdout.write("\n".join(lines(count, seed)) + "\n")
    elif len(sys.argv) >= 4 and sys.argv[1] == "bench":
        bench(sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
