#!/usr/bin/env python3
"""Generates the differential expression corpus (JSON lines for
`fn-hcl eval --jsonl` and the project's hcl-oracle variant).

Usage:
  scripts/gen_expr_corpus.py > /tmp/corpus.jsonl
  /tmp/hcl-oracle-x < /tmp/corpus.jsonl > /tmp/oracle.jsonl      # scripts/hcl-oracle/build.sh
  scripts/gen_expr_corpus.py --record /tmp/corpus.jsonl /tmp/oracle.jsonl \
      > crates/fnhcl-expr/tests/data/differential.jsonl

Covers every syntax form (literals, templates with directives and strip
markers, heredocs, operators, conditionals, traversals, splats, for
expressions, calls with expansion), unknown propagation ({"$unknown": T}
vars), sensitive marks, type unification and number printing. The output
is deterministic (fixed seed). Functions are limited to ones whose
semantics are the same in the oracle's cty stdlib and Terraform.
"""

import hashlib
import itertools
import json
import random
import sys

random.seed(20261122)

VARS = {
    "n": 5,
    "m": -3,
    "f": 1.5,
    "z": 0,
    "big": 123456789012345678901234567890,
    "s": "str",
    "ns": "42",
    "fs": "2.5",
    "bs": "true",
    "es": "",
    "uni": "h\u00e9llo w\u00f6rld",
    "b": True,
    "nb": False,
    "nul": None,
    "l": [1, 2, 3],
    "ls": ["a", "b", "c"],
    "mixed": [1, "a", True, None],
    "e": [],
    "eo": {},
    "o": {"a": 1, "b": "x", "c": [1, 2], "d": {"e": "f"}, "n": None},
    "objs": [{"name": "a", "v": 1, "tags": ["x"]}, {"name": "b", "v": 2, "tags": []},
             {"name": "c", "v": 3, "tags": ["y", "z"]}],
    "nested": {"x": {"y": {"z": [10, 20, {"w": "deep"}]}}},
    "un": {"$unknown": "number"},
    "us": {"$unknown": "string"},
    "ub": {"$unknown": "bool"},
    "ud": {"$unknown": "dynamic"},
    "ul": {"$unknown": "list(string)"},
    "uset": {"$unknown": "set(number)"},
    "um": {"$unknown": "map(string)"},
    "uo": {"$unknown": "object({a: number, b: string})"},
    "ut": {"$unknown": "tuple([number, string])"},
    "ulo": {"$unknown": "list(object({name: string}))"},
    "pu": [1, {"$unknown": "number"}, 3],
    "po": {"a": 1, "u": {"$unknown": "string"}},
    "pobjs": [{"name": "a"}, {"name": {"$unknown": "string"}}],
    "sec": {"$sensitive": "secret"},
    "secn": {"$sensitive": 7},
    "seco": {"$sensitive": {"k": "v"}},
}

out = []


def add(expr, vars_=True):
    out.append((expr, vars_))


# Atoms of various types and knownness.
NUMS = ["0", "1", "2", "-1", "3.5", "0.1", "0.2", "10", "1e3", "1.5e-3", "100000000000000000000",
        "n", "m", "f", "z", "big", "un", "secn"]
STRS = ['"a"', '"b"', '""', '"42"', '"2.5"', '"true"', '"x y"', "s", "ns", "fs", "bs", "es", "uni",
        "us", "sec", '"${n}"', '"é"']
BOOLS = ["true", "false", "b", "nb", "ub"]
COLLS = ["[]", "[1, 2]", '["a", "b"]', '[1, "a"]', "{}", "{a = 1}", '{a = 1, b = "x"}', "l", "ls",
         "mixed", "e", "eo", "o", "objs", "ul", "um", "uo", "ut", "pu", "po", "uset"]
NULLS = ["null", "nul"]
ALL = NUMS + STRS + BOOLS + COLLS + NULLS + ["ud"]

# 1. Literals and number printing.
for lit in ["0", "1", "-0", "007", "1.0", "1.50", "0.1", "1e10", "1E-5", "1.5e+3", "123456789012345678901234567890",
            "0.000001", "1e-20", "99999999999999999999999999", "1e309", "-1e400", "1e400 / 1e399", "[1e309]",
            "1e-400", "1e-400 * 1e400", "3.14159265358979323846264338327950288",
            "1e100", "12345678.9", "-2.5", "0.5e1", "true", "false", "null", '"hello"', '"a\\nb"',
            '"tab\\there"', '"quote\\"d"', '"\\u00e9"', '"\\U0001F600"', '"$${not}"', '"%%{not}"',
            '"e\\u0301"', "[]", "{}", "[[]]", "[{}]", "{a = {}}", '{"a b" = 1}', '{a: 1, b: 2}',
            "{(s) = 1}", '{"${s}x" = 1}', "{a = 1, b = [1, 2], c = {d = null}}", "[1, [2, [3, [4]]]]",
            '{for = 1, if = 2, in = 3}', "{true = 1}", "{null = 1}", "{1 = 2}", "{(n) = 1}",
            "{(b) = 1}", "{(nul) = 1}", "{(l) = 1}", "{(un) = 1}", "{(us) = 1, a = 2}",
            "{a = 1, a = 2}", "{a = 1, b = 2, a = \"x\"}", '{"k" = 1, "k" = 2}', "{a = 1, (s) = 2, str = 3}",
            "{a = {b = 1, b = 2}, a = 3}"]:
    add(lit)

for a, b in itertools.product(["1", "0.1", "1/3", "2/3", "10", "1e30", "7", "-7", "0.5", "big"], repeat=2):
    for op in ["+", "-", "*", "/", "%"]:
        add(f"{a} {op} {b}")

# 2. Operators over typed atoms (including conversions and errors).
for op in ["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||"]:
    pool = random.sample(ALL, 24)
    for a in pool:
        for b in random.sample(ALL, 6):
            add(f"{a} {op} {b}")
for op in ["-", "!"]:
    for a in ALL:
        add(f"{op}{a}")
        add(f"{op}({a})")

# Precedence: random trees.
def rand_arith(d):
    if d == 0 or random.random() < 0.3:
        return random.choice(["1", "2", "3", "4", "0.5", "n", "m", "f", "10", "un"])
    op = random.choice(["+", "-", "*", "/", "%"])
    e = f"{rand_arith(d - 1)} {op} {rand_arith(d - 1)}"
    return f"({e})" if random.random() < 0.3 else e


def rand_bool(d):
    if d == 0 or random.random() < 0.3:
        return random.choice(["true", "false", "b", "nb", "ub", "n > 2", "s == \"str\"", "!b"])
    op = random.choice(["&&", "||", "==", "!="])
    e = f"{rand_bool(d - 1)} {op} {rand_bool(d - 1)}"
    return f"({e})" if random.random() < 0.3 else e


for _ in range(150):
    add(rand_arith(4))
for _ in range(100):
    add(rand_bool(3))
for _ in range(60):
    add(f"{rand_arith(2)} {random.choice(['<', '>', '<=', '>=', '==', '!='])} {rand_arith(2)}")

# Equality across types and structures.
EQ = ['1', '"1"', "1.0", "true", '"true"', "null", "nul", "[1]", "[1.0]", "tolist([1])", "toset([1])",
      "{a = 1}", 'tomap({a = 1})', "[]", "{}", "tolist([])", "un", "us", "ud", "pu", "[1, 2, 3]", "l",
      "ul", "uo", '{a = 1, b = "x"}', "sec", '"secret"']
for a, b in itertools.product(EQ, repeat=2):
    add(f"{a} == {b}")

# 3. Conditionals and unification.
BR = ["1", '"a"', "true", "null", "nul", "[1]", '["a"]', "[1, 2]", '[1, "a"]', "{a = 1}", '{a = "x"}',
      "{b = 1}", "{}", "[]", "l", "ls", "o", "un", "us", "ud", "ul", "tolist([1])", "tomap({a = 1})",
      "toset([1])", "sec"]
for t in BR:
    for f in random.sample(BR, 9):
        c = random.choice(["true", "false", "b", "ub", "n > 3", "nul", '"true"', "1", "sec == \"x\""])
        add(f"{c} ? {t} : {f}")
for c in ["null", "1", '"yes"', '"false"', "[true]", "ud", "ub"]:
    add(f"{c} ? 1 : 2")
add("true ? 1 : nosuch")
add("false ? nosuch : 2")
add("ub ? nosuch : 2")
add("b ? (nb ? 1 : 2) : 3")
add("b ? nb ? 1 : 2 : 3")

# 4. Templates.
TPL = ['"${n}"', '"x${n}y"', '"${s}-${b}"', '"${nul}"', '"${l}"', '"${o}"', '"${un}"', '"a${us}b"',
       '"${ud}"', '"${sec}"', '"${1.5}${true}"', '"${ {a = 1} }"', '"${n + 1}"', '"${"in${"ner"}"}"',
       '"%{if b}yes%{endif}"', '"%{if nb}yes%{else}no%{endif}"', '"%{if ub}yes%{endif}"',
       '"%{if nul}yes%{endif}"', '"%{if n}yes%{endif}"', '"%{ if b ~} yes %{~ endif }"',
       '"a ${~ s ~} b"', '"a  ${~s}  b"', '"a ${s~}  b"', '"%{for x in l}${x},%{endfor}"',
       '"%{for i, x in ls}${i}=${x} %{endfor}"', '"%{for k, v in o}${k};%{endfor}"',
       '"%{for x in ul}${x}%{endfor}"', '"%{for x in nul}${x}%{endfor}"', '"%{for x in n}${x}%{endfor}"',
       '"%{for x in ud}${x}%{endfor}"', '"%{for x in mixed}${x}%{endfor}"', '"%{for x in pu}${x}%{endfor}"',
       '"%{for x in l ~}  ${x}  %{~ endfor}"', '"%{for x in objs}${x.name}%{if x.v > 1}!%{endif}%{endfor}"',
       '"$${n}"', '"%%{if}"', '"${"$"}{n}"', '"\\${n}"', '"unicode: ${uni}"', '"${es}"', '"${e}"',
       '"${[for x in l: x]}"', '"%{for x in [1, 2]}%{for y in ["a", "b"]}${x}${y} %{endfor}%{endfor}"',
       '"${b ? "t" : "f"}"', '"%{if b}${n}%{else}${s}%{endif}!"', '"${secn + 1}"', '"x${secn}"',
       '"%{for x in toset(["b", "a"])}${x}%{endfor}"', '"%{for k, v in tomap({b = 1, a = 2})}${k}${v}%{endfor}"',
       '"${ ~s}"', '"%{if true}a%{else}b%{endif}"', '"%{for x in []}${x}%{endfor}"', '"${tostring(null)}"']
for t in TPL:
    add(t)

# 5. Heredocs.
HD = [
    "<<EOT\nhello\nEOT\n",
    "<<EOT\nhello ${s}\nworld\nEOT\n",
    "<<-EOT\n    indented\n      more\n    EOT\n",
    "<<-EOT\n  a\n\n  b\n  EOT\n",
    "<<-EOT\n\ta\n\tb\n\tEOT\n",
    "<<-EOT\n    ${n}\n      x\n    EOT\n",
    "<<-EOT\n  x ${s}\n    y\n  EOT\n",
    "<<EOT\n%{for x in l}${x}\n%{endfor}EOT\n",
    "<<EOT\n%{ for x in l ~}\n${x}\n%{ endfor ~}\nEOT\n",
    "<<-EOT\n  %{ if b ~}\n  yes\n  %{ endif ~}\n  EOT\n",
    "<<EOT\n  keep   \n  spaces\nEOT\n",
    "<<EOT\nEOT\n",
    "<<-EOT\nEOT\n",
    "<<EOT\n$${literal}\nEOT\n",
    "<<EOT\n${un}\nEOT\n",
    "<<EOT\nEOTX\nEOT\n",
    "<<-END\n      deep\n    shallow\n        deeper\n    END\n",
    "<<-EOT\n    a\n  b\n    EOT\n",
    "<<EOT\n\"quoted\" and \\backslash\nEOT\n",
    "<<-EOT\n  a ${~ s}\n  b\n  EOT\n",
]
for h in HD:
    add(h)


# Random templates and heredocs: strip markers, directives, indentation.
def strip(open_):
    l = "~" if random.random() < 0.4 else ""
    r = "~" if random.random() < 0.4 else ""
    return l, r


def rand_tpl_body(depth, heredoc):
    parts = []
    for _ in range(random.randint(1, 4)):
        k = random.random()
        if k < 0.35:
            txt = random.choice(["a", " b ", "  c", "d  ", "x y", "", " "])
            if heredoc and random.random() < 0.5:
                txt += "\n" + " " * random.randint(0, 4)
            parts.append(txt)
        elif k < 0.6:
            l, r = strip(True)
            parts.append("${%s %s %s}" % (l, random.choice(["s", "n", "\"q\"", "b", "1.5"]), r))
        elif k < 0.8 and depth > 0:
            l1, r1 = strip(True)
            l2, r2 = strip(True)
            inner = rand_tpl_body(depth - 1, heredoc)
            if random.random() < 0.5:
                l3, r3 = strip(True)
                other = rand_tpl_body(depth - 1, heredoc)
                parts.append("%%{%s if %s %s}%s%%{%s else %s}%s%%{%s endif %s}" % (
                    l1, random.choice(["b", "nb", "n > 2"]), r1, inner, l3, r3, other, l2, r2))
            else:
                parts.append("%%{%s if %s %s}%s%%{%s endif %s}" % (l1, random.choice(["b", "nb"]), r1, inner, l2, r2))
        elif depth > 0:
            l1, r1 = strip(True)
            l2, r2 = strip(True)
            inner = rand_tpl_body(depth - 1, heredoc)
            parts.append("%%{%s for x in %s %s}%s${x}%%{%s endfor %s}" % (
                l1, random.choice(["l", "ls", "[]"]), r1, inner, l2, r2))
    return "".join(parts)


for _ in range(200):
    body = rand_tpl_body(2, False).replace("\n", "\\n")
    add('"' + body + '"')
for _ in range(200):
    lines = []
    for _ in range(random.randint(1, 5)):
        lines.append(" " * random.choice([0, 2, 4, 4, 6]) + rand_tpl_body(1, True).replace("\n", "\n" + " " * random.randint(0, 4)))
    op = random.choice(["<<EOT", "<<-EOT"])
    add(op + "\n" + "\n".join(lines) + "\n" + " " * random.choice([0, 2]) + "EOT\n")

# 6. Index and attribute access.
IDX = ["0", "1", "2", "3", "-1", "1.5", '"1"', '"a"', '"b"', "null", "true", "un", "us", "ud", "n", "f", '"x"']
for c in ["l", "ls", "mixed", "e", "o", "eo", "objs", "[1, 2, 3]", '["a", "b"]', '{a = 1, b = 2}',
          "tolist([1, 2])", 'tomap({a = 1})', "toset([1, 2])", "nul", "n", "s", "ul", "um", "uo", "ut",
          "uset", "ud", "pu", "po", "seco", "sec"]:
    for i in random.sample(IDX, 8):
        add(f"{c}[{i}]")
ATTR = ["a", "b", "c", "n", "name", "missing", "0", "1"]
for c in ["o", "eo", "objs", "nested", "nul", "n", "s", "l", "uo", "um", "ud", "ul", "ulo", "po", "seco",
          "{a = {b = 1}}", 'tomap({a = "x"})', "tolist([{a = 1}])", "toset([{a = 1}])", "objs[0]",
          "nested.x", "ut", "pobjs[1]"]:
    for a in ATTR:
        add(f"{c}.{a}")
for e in ["nested.x.y.z[2].w", "nested.x.y.z.2.w", "nested.x.y.z[1]", "nested.x.y.z.0", "nested[\"x\"].y",
          "nested.x[\"y\"][\"z\"][0]", "o.c[1]", "o.c.1", "o.d.e", "o.n.x", "o.n[0]", "objs[1].tags[0]",
          "objs[1].tags", "objs[2].tags.1", "l[n - 4]", "l[un]", "ls[length(ls) - 1]", "o[s]",
          "o[\"a\"]", "{a = 1}[\"a\"]", "[1, 2][0]", "[[1, 2], [3]][0][1]", "o.d[\"e\"]", "(o).a",
          "(l)[1]", "o.c[*]", "uo.a", "uo.c", "uo[\"a\"]", "ut[0]", "ut[2]", "um.k", "um[\"k\"]",
          "ulo[0].name", "ulo[0].other", "ul[0]", "uset[0]", "po.u", "po.a", "pu[1]", "pu[0]",
          "sec[0]", "seco.k", "seco[\"k\"]", "nosuch.a", "nosuch[0]", "nested.x.y.z.0.1", "objs.*.tags.0",
          "objs.*.tags.0.1", "objs.*.*", "objs.*.tags.*", "objs[*].tags[*]", "nested.x.y.z.2.w",
          "[[1]].0.0", "[[1]].0[0]"]:
    add(e)

# 7. Splats.
for e in ["objs[*].name", "objs.*.name", "objs[*].tags[0]", "objs[*].tags", "objs.*.tags",
          "objs[*].v", "objs[*]", "l[*]", "e[*]", "e[*].a", "nul[*]", "nul.*", "nul[*].a",
          "o[*]", "o[*].a", "o.*.a", "n[*]", "s[*]", "ud[*]", "ud[*].a", "ul[*]", "ulo[*].name",
          "ulo.*.name", "uo[*].a", "pobjs[*].name", "tolist(objs)[*].name", "toset(l)[*]",
          "tolist([])[*].a", "objs[*].name[0]", "objs.*.name[0]", "objs[*].missing", "objs.*.missing",
          "[{a = {b = 1}}, {a = {b = 2}}][*].a.b", "[{a = {b = 1}}, {a = {b = 2}}].*.a.b",
          "[[1, 2], [3, 4]][*][0]", "objs[*].tags[*]", "nested.x.y.z[*]", "[o, o][*].d.e",
          "[{a = 1}, {b = 2}][*].a", "tolist([{a = 1}, {a = 2}])[*].a", "seco[*]", "objs.*.v[0]",
          "[for x in objs : x][*].name", "mixed[*]", "[null][*]", "[nul][*].a", "pu[*]"]:
    add(e)

# 8. For expressions.
COLL = ["l", "ls", "o", "objs", "e", "eo", "mixed", "[1, 2, 2]", '{b = 1, a = 2}', "toset([3, 1, 2])",
        'toset(["b", "a"])', 'tomap({x = 1, y = 2})', "tolist([1, 2])", "nul", "n", "s", "ud", "ul",
        "um", "uo", "pu", "po", "uset", "[]", "seco", "nested.x.y.z"]
BODIES = ["[for x in C : x]", "[for i, x in C : i]", "[for k, v in C : v]", "{for k, v in C : k => v}",
          "{for k, v in C : tostring(v) => k}", "{for k, v in C : tostring(v) => k...}",
          "[for x in C : x if x != 2]", "{for k, v in C : k => v if k != \"a\"}", "[for x in C : x if ub]",
          "[for x in C : x if null]", "[for x in C : x if 1]", "[for x in C : x if \"true\"]",
          "{for k, v in C : v => k}", "{for x in C : x => x}", "[for x in C : [x]]", "[for x in C : {v = x}]",
          "{for k, v in C : k => [v]...}", "[for x in C : x if x == x]", "{for x in C : \"k\" => x}",
          "{for x in C : \"k\" => x...}", "{for x in C : null => x}", "{for x in C : un => x}",
          "[for k, v in C : \"${k}=${v}\"]", "[for x in C : un]", "[for x in C : nosuch]"]
for body in BODIES:
    for c in random.sample(COLL, 10):
        add(body.replace("C", c))
for e in ["[for x in [for y in l : y * 2] : x + 1]", "{for k, v in {for x in ls : x => upper(x)} : v => k}",
          "[for x in l : [for y in l : x * y]]", "[for x in objs : x.name if x.v >= 2]",
          "{for x in objs : x.name => x.v}", "{for x in objs : x.v > 1 => x.name...}",
          "[for x in l : x if x > n]", "[for x in l : n]", "[for l in ls : l]", "[for n in l : n + n]",
          "{for i, x in ls : x => i}", "[for i, x in ls : i + 1]", "[for k, v in o : k]",
          "length([for x in l : x])", "[for x in l : x][1]", "{for x in ls : x => x}.a",
          "[for x in l : x if x > 1][0]", "[for x in secn == 7 ? l : [] : x]", "[for x in l : x if x == secn]",
          "{for x in ls : x => sec}", "{for x in ls : sec => x}", "[for x in l: x]", "[for x in l:x]"]:
    add(e)

# 9. Function calls with expansion and try/can.
for e in ["concat(l, ls)", "concat([1], [\"a\"])", "concat(l...)", "concat([l, [4]]...)", "max(l...)",
          "max([]...)", "min(1, l...)", "max(nul...)", "max(n...)", "max(ud...)", "max(ul...)",
          "format(\"%s-%s\", ls...)", "format(\"%s-%s\", \"a\", ls...)", "join(\",\", ls)",
          "length(l)", "length(o)", "length(s)", "length(un)", "length(ul)", "length(nul)", "upper(s)",
          "upper(us)", "upper(sec)", "upper(n)", "upper(b)", "upper(l)", "upper()", "upper(\"a\", \"b\")",
          "nosuchfn(1)", "uper(s)", "try(nosuch, 1)", "try(o.missing, \"d\")", "try(un, 1)", "try(ud.a, 1)",
          "try(l[5], l[0])", "try(nosuch, nosuch2)", "try(nul.a, \"n\")", "try(po.u, 1)", "try(1)",
          "can(o.a)", "can(o.missing)", "can(un)", "can(ud.x)", "can(l[5])", "can(nul.a)", "can(pu)",
          "can(po.a)", "can(nosuch)", "keys(o)", "values({a = 1, b = 2})", "merge(o, {z = 1})",
          "merge({a = 1}, {a = \"x\"})", "tostring(n)", "tostring(b)", "tostring(l)", "tonumber(ns)",
          "tonumber(s)", "tobool(bs)", "tolist(ls)", "tolist(mixed)", "toset([1, \"1\"])", "tomap(o)",
          "tomap({a = 1, b = \"x\"})", "tolist([1, [2]])", "split(\",\", \"a,b\")", "lookup(o, \"a\", 0)",
          "lookup(o, \"zz\", 0)", "contains(l, 2)", "contains(l, un)", "reverse(l)", "sort(ls)",
          "distinct([1, 1, 2])", "flatten([[1], [2, [3]]])", "element(l, 1)", "range(3)", "zipmap(ls, l)",
          "coalescelist([], l)", "compact([\"a\", \"\", \"b\"])", "chunklist(l, 2)", "abs(m)",
          "ceil(f)", "floor(f)", "signum(m)", "parseint(\"ff\", 16)", "pow(2, 10)", "jsonencode(o)",
          "jsondecode(\"{\\\"a\\\": [1, 2]}\")", "jsonencode(un)", "jsonencode(sec)", "trimspace(\"  x \")",
          "substr(s, 1, 1)", "title(s)", "strrev(s)", "indent(2, \"a\\nb\")", "chomp(\"x\\n\")",
          "regex(\"[a-z]+\", \"abc123\")", "regexall(\"[0-9]\", \"a1b2\")", "setunion([1], [2])",
          "slice(l, 0, 2)", "length(pu)", "concat(pu, l)", "keys(po)", "join(\"-\", [for x in l : x])",
          "upper(\"${s}\")", "length(sec)", "f(1)", "provider::x::f(1)", "upper(nosuch, nosuch2)",
          "upper(nosuch)", "max(nosuch, nosuch2...)", "max(1, nosuch...)", "upper()", "nosuchfn(nosuch)",
          "join(nosuch, [nosuch2])", "format(\"%d\", \"x\")", "upper(s, nosuch...)"]:
    add(e)

# 10. Unknown propagation combinations.
UNK = ["un", "us", "ub", "ud", "ul", "um", "uo", "ut", "uset", "pu", "po", "ulo"]
for u in UNK:
    for tpl in ["U", "[U]", "{a = U}", "U == U", "U != null", "U == null", "[U, 1]", "{k = U}.k",
                "\"${U}\"", "true ? U : U", "ub ? U : U", "[for x in [1] : U]", "{for x in [\"a\"] : x => U}",
                "[U][0]", "U[0]", "U.a", "U[*]", "U + 1", "!U", "-U", "U && true", "U || false", "U > 1",
                "[for x in U : x]", "{for k, v in U : k => v}", "length(U)", "can(U)", "try(U, 0)",
                "tostring(U)", "jsonencode(U)", "U == U ? 1 : 2", "{(U) = 1}"]:
        add(tpl.replace("U", u))

# 11. Sensitive marks.
for e in ["sec", "secn", "seco", "sec == \"secret\"", "secn + 1", "\"${sec}\"", "[sec]", "{a = sec}",
          "seco.k", "upper(sec)", "b ? sec : \"x\"", "secn > 3 ? 1 : 2", "[for x in [1] : sec]",
          "length(sec)", "sec != null", "tostring(secn)", "{(sec) = 1}", "[sec][0]", "l[secn - 6]",
          "can(sec)", "try(sec, 1)", "jsonencode(seco)", "toset([sec])", "concat([sec], [1])"]:
    add(e)

# 12. Parse errors and odd syntax.
for e in ["1 +", "(1", "[1,", "{a = }", "a..b", "\"unterminated", "1 ? 2", "for x in l", "[for x in l]",
          "{for x in l : x}", "a.", "a[", "%{if true}", "\"%{if b}x\"", "\"%{endif}\"", "\"${}\"", "@", "1 2",
          "a = 1", "[for x in l : x if]", "\"\\q\"", "<<EOT\nunterminated\n", "l[*", "l.*.", "!", "- -1",
          "!!b", "--n", "1 + + 2", "(((1)))", "[,]", "{,}", "{a = 1,}", "[1,]", "{a = 1 b = 2}",
          "{a = 1\nb = 2}", "[\n1,\n2\n]", "f(\n1,\n2\n)", "l[\n0\n]", "true\n? 1\n: 2"]:
    add(e)

# 13. Unknowns of many types through every construct (one set of
# variables per type: uN = unknown, kN = [1, unknown], oN = {a = unknown}).
UTYPES = ["number", "string", "bool", "dynamic", "list(number)", "list(string)", "set(string)", "map(number)",
          "map(list(string))", "object({a: number})", "object({a: string, b: list(number)})",
          "tuple([string, number])", "list(object({name: string, v: number}))",
          "tuple([object({a: number}), object({a: string})])", "object({})", "tuple([])", "list(dynamic)",
          "map(dynamic)"]
UVALS = ['1', '"s"', 'true', 'null', '[1]', '["a"]', '{a = 1}', '{a = "x", b = [1]}', 'tolist([1])',
         'tomap({k = 1})', '[]', '{}']
UTPLS = ["U", "[U]", "{x = U}", "U[*]", "U.*", "U[0]", "U.a", "U[\"a\"]", "K[*]", "[for x in K : x]",
         "{for i, x in K : i => x}", "true ? U : VAL", "false ? VAL : U", "true ? VAL : U", "U == VAL",
         "VAL == U", "[U, VAL]", "O.a", "O[\"a\"]", "O.*.a", "K[1]", "K[0]", "\"${U}\"", "[for x in U : x]",
         "{for kk, vv in U : kk => vv}", "U != null", "try(U, VAL)", "can(U.a)", "U ? 1 : 2", "-U", "!U",
         "U + 1", "U && true", "U[*].a", "U[*].name", "[for x in U : x.name]", "ub ? U : VAL"]
for i, t in enumerate(UTYPES):
    VARS[f"u{i}"] = {"$unknown": t}
    VARS[f"k{i}"] = [1, {"$unknown": t}]
    VARS[f"o{i}"] = {"a": {"$unknown": t}, "b": 2}
    for tpl in UTPLS:
        add(tpl.replace("VAL", random.choice(UVALS)).replace("U", f"u{i}").replace("K", f"k{i}")
            .replace("O", f"o{i}"))

# Deduplicate, keep order.
seen = set()
lines = []
for expr, v in out:
    if expr in seen:
        continue
    seen.add(expr)
    lines.append(expr)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--record":
        corpus = [json.loads(l) for l in open(sys.argv[2])]
        oracle = [l.strip() for l in open(sys.argv[3])]
        assert len(corpus) == len(oracle), "corpus and oracle outputs differ in length"
        for c, raw in zip(corpus, oracle):
            # Keep the oracle's line verbatim: re-encoding through Python
            # floats would lose the exact numbers.
            assert json.loads(raw).get("id") == c["id"], (c, raw)
            print('{"id": %s, "expr": %s, "oracle": %s}' % (
                json.dumps(c["id"]), json.dumps(c["expr"], ensure_ascii=False), raw))
        return
    if len(sys.argv) >= 2 and sys.argv[1] == "--vars":
        print(json.dumps(VARS, ensure_ascii=False))
        return
    for expr in lines:
        # Ids derive from the text, so they stay stable when cases are added.
        h = hashlib.sha1(expr.encode("utf-8")).hexdigest()[:10]
        print(json.dumps({"id": f"d-{h}", "expr": expr, "vars": VARS}, ensure_ascii=False))


main()
