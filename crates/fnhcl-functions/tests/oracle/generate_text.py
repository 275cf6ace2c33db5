#!/usr/bin/env python3
"""Generates the differential corpus for the string, format, regex and
encoding built-ins that hcl-oracle provides (go-cty 1.12 stdlib and
go-cty-yaml, as Terraform 1.5.7 uses them), runs it through hcl-oracle and
writes corpus_text.jsonl (expression + the oracle's answer). The Rust test
tests/oracle_text.rs replays it against the registry. Regenerate with:

    bash /work/shared/tools/hcl-oracle/build.sh /tmp/hcl-oracle
    python3 crates/fnhcl-functions/tests/oracle/generate_text.py /tmp/hcl-oracle

Expressions use only literals and calls, so the test's mini language can
evaluate them too. Strings avoid `${` and `%{` (HCL templates).
"""
import itertools, json, os, random, subprocess, sys

rng = random.Random(1557)

VALS = ["0", "1", "-1", "2.5", "-0.5", "1e3", "1e20", "0.1", "123456789", "1.005", "2.675", "0.5", "1.5",
        "-0", "100000000000000000000000000000000000001", "0.00001", "\"3\"", "\"x\"", "\"\"", "\"-7\"",
        "\"日本語\"", "\"<&>\"", "true", "false", "null", "[1]", "[]", "{a = 1}", "{}", "[\"a\", 1]",
        "\"tab\\there\"", "\"a\\nb\"", "\"💃🏿x\"", "\"quote\\\"d\"", "\"back\\\\slash\""]
VERBS = ["%d", "%f", "%.2f", "%5s", "%-5s|", "%q", "%v", "%#v", "%t", "%x", "%X", "%o", "%b", "%e", "%E",
         "%g", "%G", "%s", "%+d", "% d", "%05d", "%-5d|", "%#x", "%#o", "%.3d", "%8.3f", "%08.3f", "%+.2e",
         "%.0f", "%.10g", "%5t", "%.1s", "%3.1q", "%-08.3f|", "%.30f", "%10v", "%-10v|", "%+v", "%05s",
         "%.3g", "%.0e", "%#v", "%.2v", "%+f", "% f", "%+g"]
STRS = ["\"\"", "\"hello\"", "\"Hello World\"", "\"  padded  \"", "\"a,b,,c\"", "\"noël\"", "\"İstanbul ΣΟΦΟΣ\"",
        "\"straße\"", "\"ǆemal hello-world foo_bar\"", "\"line1\\nline2\\n\"", "\"x\\r\\n\\n\"", "\"\\ttab\"",
        "\"😸😾\"", "\"a ☃ b\"", "\"123\"", "\"__init__\"", "\"mIxEd CaSe\"", "\"ǅ ǈ\""]
PATTERNS = ["\"[a-z]+\"", "\"(\\\\d+)-(\\\\d+)\"", "\"(?P<k>[a-z])=(?P<v>[0-9])\"", "\"^$\"", "\"a*\"",
            "\"(a)(x)?\"", "\"(?i)HELLO\"", "\"\\\\bw\"", "\"[[:alpha:]]+\"", "\"(\"", "\"a{2,3}\"", "\"x|\"",
            "\"\\\\w+\"", "\"\\\\s+\"", "\"(?P<a>x)(y)\"", "\"\\\\pL+\"", "\"[^a-z]\"", "\".\"", "\"a{1001}\"",
            "\"(?<n>a)\"", "\"(?x)a b\"", "\"(?u)a\"", "\"(?-u:a)\"", "\"a{2}{3}\"", "\"a**\"", "\"a++\"", "\"(?i:a)(?s:.)\"",
            "\"[a&&b]\"", "\"[[:word:]]+\"", "\"\\\\Qa.b\\\\E\"", "\"(?U)a+\"", "\"a*?\"", "\"\\\\x{41}\"",
            "\"a{,3}\"", "\"a{\"", "\"{\"", "\"x{1,2\"", "\"{1}\"", "\"a{01}\"", "\"a{ 1}\"", "\"*\"", "\"a{2,1}\""]
SUBJECTS = ["\"53453453.345345aaabbbccc23454\"", "\"2019-02-01\"", "\"a=1,b=2\"", "\"\"", "\"aaa\"", "\"ab\"",
            "\"hello HELLO\"", "\"word wide\"", "\"١٢٣ 123\"", "\"日本 語\"", "\"tab\\tand\\nnewline\"", "\"xy\"", "\"a{,3} a{ x{1,2 a{01}\""]
CSVS = ["\"a,b,c\\n1,2,3\\n4,5,6\"", "\"a\\n\\\"multi\\nline\\\"\"", "\"a,b\\n1\"", "\"\"", "\"a,a\\n1,2\"",
        "\"a\\nx\\\"y\"", "\"a\\n\\\"xy\"", "\"a,b\\r\\n1,2\\r\\n\\r\\n3,4\"", "\"a\\n\\\"x\\\"y\"", "\"h\\n\\n\\nv\"",
        "\"a, b\\n 1, 2\"", "\"a\"", "\"a,b\\n\\\"1\\\",\\\"2\\\"\\n\"", "\"a\\n\\\"\\\"\\\"q\\\"\\\"\\\"\""]
JSONS = ["\"{\\\"hello\\\": \\\"world\\\"}\"", "\"true\"", "\"1.5e3\"", "\"null\"", "\"[1, \\\"a\\\", null, [true]]\"",
         "\"{\\\"b\\\": 1, \\\"a\\\": []}\"", "\"{\"", "\"[1,]\"", "\"01\"", "\"\\\"\\\\u00e9\\\\ud83d\\\\ude00\\\"\"",
         "\"1 2\"", "\"\"", "\" \\n 7 \"", "\"{\\\"a\\\": 1, \\\"a\\\": 2}\"", "\"-0.0\"", "\"1e400\"", "\"[\\\"\\\\/\\\"]\""]
ENCODE = ["null", "true", "0", "-1.5", "1e20", "0.1", "\"\"", "\"hello\"", "\"<cats & kittens>\"",
          "\"tab\\there\\nnl \\\"q\\\" \\\\\"", "[]", "{}", "[1, \"a\", null]", "{b = 1, a = [2, 3], c = {}}",
          "{\"x y\" = true}", "toset([\"b\", \"a\"])", "tolist([1, 2])", "tomap({k = \"v\"})",
          "\"\\u2028\\u2029\"", "\"😀\"", "\"multi\\nline\\n\"", "\"multi\\nline\"", "\"trailing \\nspace\"",
          "\"a\\n\\nb\\n\\n\"", "\"\\nleading\"", "\" lead\\nspace\"", "\"x\\ty\\nz\"", "[[1, 2], [[]], [{}]]",
          "{a = {b = {c = [1, {d = \"e\"}]}}}", "[{a = 1, b = 2}, [3, 4]]", "\"yes\"", "\"1\"", "\"null\"",
          "\"" + "long words here " * 8 + "end\"", "{k = \"" + "word " * 30 + "x\"}",
          "{\"" + "k" * 130 + "\" = 1}", "[\"" + "a " * 60 + "\"]", "\"-\"", "\"# not a comment\"",
          "\"\\u00e9\\u00a0nbsp\"", "\"\\u0085nel\"", "{\"multi\\nkey\" = 1}"]
YAMLS = ["\"hello: world\"", "\"true\"", "\"~\"", "\"- 1\\n- a\\n- true\\n- null\"", "\"v: '1'\"", "\"v: yes\"",
         "\"s: |\\n  line1\\n  line2\\n\"", "\"s: >-\\n  folded\\n  text\\n\"", "\"{a: &foo [1, *foo, 3]}\"",
         "\"{a: !not-supported foo}\"", "\"0x1f\"", "\"0o77\"", "\"077\"", "\"1_000\"", "\"0ba\"", "\"2006-1-2\"",
         "\"!!str true\"", "\"!!binary 'aGVsbG8='\"", "\".NaN\"", "\".inf\"", "\"-.Inf\"", "\"<<\"", "\"!!bool bananas\"",
         "\"- &a x\\n- *a\"", "\"base: &b\\n  a: 1\\nother:\\n  <<: *b\\n  c: 2\"", "\"---\"", "\"---\\ntrue\\n---\\nfalse\"",
         "\"null: 1\"", "\"a: [\"", "\"yes: 1\"", "\"1: one\\n2.5: two\"", "\"on: off\"", "\"Y\"", "\"n\"",
         "\"2001-12-14t21:59:43.10-05:00\"", "\"2001-12-14 21:59:43.10\"", "\"!!int '12'\"", "\"!!float 1\"",
         "\"+\"", "\"-12\"", "\"+12\"", "\".5\"", "\"1e3\"", "\"1.5e+3\"", "\"'single ''quoted'''\"",
         "\"\\\"double \\\\\\\"quoted\\\\\\\"\\\"\"", "\"[a, b, true]\"", "\"{}\"", "\"[]\"", "\"a: {b: [c, {d: e}]}\"",
         "\"*undefined\"", "\"a: 1\\na: 2\"", "\"!!timestamp 2006-1-2\"", "\"!!null ''\"", "\"key: 'yes'\"",
         "\"- - 1\\n  - 2\\n- 3\"", "\"? complex\\n: value\"", "\"|\\n  hello\\n  world\"", "\"0b101\"", "\"0xZZ\""]
YAML_DOCS = [
    "a: 1\nb:\n  - x\n  - y\nc: {d: e, f: [1, 2]}\n", "# comment\nkey: value # trailing\n",
    "plain: multi\n  line\n  scalar\n", "s: \"esc \\u00e9 \\x41 \\t tab \\n nl\"\n", "s: 'it''s'\n",
    "? complex key\n: value\n", "!!set {a, b}\n", "!!omap [a: 1]\n", "- !!str 123\n- !!int '7'\n- !!float '1.5'\n- !!null ''\n",
    "a: 1e3\nb: .5\nc: +.5\nd: -1.5e-3\ne: 1_000.5\nf: 0x_1F\ng: 0o_17\n",
    "a: 2001-12-14t21:59:43.10-05:00\nb: 2001-12-14 21:59:43.10\nc: 2002-12-14\n", "a: ~\nb: null\nc: Null\nd: NULL\ne:\n",
    "a: y\nb: N\nc: On\nd: oFF\ne: True\nf: tRUE\n", "---\na: 1\n...\n", "--- |\n  literal doc\n", "a: |+\n  keep\n\n\nb: 1\n",
    "a: >\n  folded\n  more\n\n  para\n", "a: |2\n    indented\n", "- [a, [b, [c]]]\n- {x: {y: {z: 1}}}\n",
    "list: &l [1, 2]\nother: *l\n", "a:\n\tb: 1\n", "a: b: c\n", "[1, 2\n", "a: 'unterminated\n", "\"key with spaces\": 1\n'single': 2\n",
    "1: a\n2.5: b\ntrue: c\n~: d\n", "a: \"\\\n  continued\"\n", "a: !!binary |\n  aGVsbG8gd29ybGQ=\n", "a: &x 1\nb: &x 2\nc: *x\n",
    "- a\n -b\n", "a: [1,2,]\n", "{a: 1, a: 2}\n", "a:\n  - b\n  -\n  - c\n", "? [a, b]\n: c\n", "- 0.0\n- -0\n- 00\n- 08\n- 0b101\n- 1:20\n",
    "a: .inf\nb: -.INF\nc: .NaN\n", "a: 12345678901234567890123\nb: 1.00000000000000000000001\n", "   \n", "# only comment\n", "---\n",
    "--- \n...\n---\n", "a: b\n---\n", "- |\n  x\n- >-\n  y\n  z\n", "key: \"\\N\\_\\L\\P\\e\\0\\a\"\n", "a: @x\n",
    "a: b\n c: d: e\n", "{a: 1", "- a\n-b: [\n", "a: \"line1\nline2\"\n", "%YAML 1.2\n---\na: 1\n"]
DATES = ["\"2017-03-04T22:45:09.005Z\"", "\"2018-01-02T23:12:01-08:00\"", "\"2018-01-02T00:05:00Z\"",
         "\"2018-01-02T13:05:00+05:30\"", "\"2017-11-22 10:00:00Z\"", "\"2017-02-30T10:00:00Z\"",
         "\"2017-11-22T10:00:00\"", "\"2017-11-22T1:00:00Z\"", "\"20\"", "\"2017-11-22T10:00:00Zjunk\"",
         "\"2000-02-29T23:59:59.999999999Z\"", "\"1999-12-31T23:59:60Z\""]
DATEFMTS = ["\"DD MMM YYYY hh:mm ZZZ\"", "\"EEEE, DD-MMM-YY hh:mm:ss ZZZ\"", "\"EEE, DD MMM YYYY hh:mm:ss ZZZ\"",
            "\"h:mm AA\"", "\"H:mm aa\"", "\"'quoted ''text'''\"", "\"''\"", "\"YYYY-MM-DD'T'hh:mm:ssZ\"",
            "\"ZZZZZ ZZZZ Z\"", "\"YYY\"", "\"'abc\"", "\"Q\"", "\"M/D/YY\"", "\"MMMM\"", "\"A\"", "\"ss.s\""]
DURS = ["\"1h30m\"", "\"-1.5s\"", "\"300ms\"", "\"0\"", "\".5s\"", "\"1\"", "\"1d\"", "\"\"", "\"2562047h\"",
        "\"1h1h\"", "\"1.5h\"", "\"-0.000000001s\"", "\"10us\"", "\"1µs\""]


def calls():
    out = []
    out += [f"format(\"{v}\", {a})" for v in VERBS for a in VALS]
    out += ["format(\"\")", "format(\"%%\")", "format(\"abc%\")", "format(\"%[2]d %[1]d\", 1, 2)",
            "format(\"%[0]s\", true)", "format(\"%z\", 1)", "format(\"only %d\", 1, 2)", "format(\"none\", 1)",
            "format(\"%v %v %v\", true, true)", "format(\"%[3]v\", 1, 2)", "format(\"%5\", 1)", "format(\"%.\", 1)",
            "format(\"%.s\", \"abc\")", "format(\"%-+5d|\", 3)", "format(\"%[1]d %d\", 1, 2)", "format(\"%[2]*d\", 1, 2)",
            "format(\"%d\", \"abc\")", "format(\"%s\", [1])", "format(\"%t\", 1)", "format(\"%v\", {b = [1, \"x\"], a = null})"]
    out += [f"formatlist({f}, {a})" for f in ["\"%s\"", "\"%d!\"", "\"%v\"", "\"%s=%s\""]
            for a in ["[\"a\", \"b\"]", "[]", "[1, 2]", "\"x\"", "tolist([\"p\"])", "toset([\"b\", \"a\"])", "null", "[null]", "{a = 1}"]]
    out += ["formatlist(\"%s %s\", [\"hello\", \"goodbye\"], [\"world\"])", "formatlist(\"hello\")",
            "formatlist(\"%s=%d\", [\"a\", \"b\"], [1, 2])", "formatlist(\"%s-%s\", \"x\", [\"a\", \"b\"])"]
    for f in ["upper", "lower", "title", "strrev", "chomp", "trimspace"]:
        out += [f"{f}({s})" for s in STRS + ["1", "true", "null", "[\"a\"]"]]
    out += [f"substr({s}, {o}, {l})" for s in STRS[:10] + ["\"hello world\""]
            for o, l in [(0, 1), (1, 4), (1, -1), (-3, 2), (10, 10), (-1, 0), (0, 0), (-10, 2), (5, 1), (2, 100), ("1.5", 1), ("\"2\"", 2)]]
    out += [f"indent({n}, {s})" for n in ["0", "2", "4", "-1", "1.5"] for s in STRS[:12]]
    out += [f"split({sep}, {s})" for sep in ["\",\"", "\"\"", "\" \"", "\"ll\"", "\"\\n\""] for s in STRS]
    out += [f"join({sep}, {l})" for sep in ["\"-\"", "\", \"", "\"\""]
            for l in ["[\"foo\", \"bar\"]", "[]", "[1, true, \"x\"]", "[\"a\"], [\"b\"]", "[null]", "[\"a\"], [null]", "tolist([\"x\"])", "toset([\"b\", \"a\"])"]]
    out += [f"{f}({s}, {c})" for f in ["trim", "trimprefix", "trimsuffix"]
            for s in ["\"?!hello?!\"", "\"foobar\"", "\"xxhixx\"", "\"helloworld\"", "\"\"", "\"ééaéé\""]
            for c in ["\"!?\"", "\"far\"", "\"x\"", "\"hello\"", "\"world\"", "\"\"", "\"é\""]]
    out += [f"{f}({p}, {s})" for f in ["regex", "regexall"] for p in PATTERNS for s in SUBJECTS]
    out += [f"csvdecode({c})" for c in CSVS]
    out += [f"jsondecode({j})" for j in JSONS]
    out += [f"jsonencode({v})" for v in ENCODE]
    out += [f"yamlencode({v})" for v in ENCODE]
    out += [f"yamldecode({y})" for y in YAMLS]
    out += ["yamldecode(%s)" % json.dumps(d, ensure_ascii=False) for d in YAML_DOCS]
    out += [f"formatdate({f}, {d})" for f in DATEFMTS for d in DATES]
    out += [f"timeadd({d}, {u})" for d in DATES[:4] + DATES[6:8] for u in DURS]
    # Random format calls (flags, widths, precisions, verbs, values).
    frng = random.Random(21)
    fflags = ["", "-", "+", " ", "0", "#", "-0", "+0", " -", "#0", "+-"]
    fwidths = ["", "1", "5", "10", "20"]
    fprecs = ["", ".0", ".1", ".2", ".5", ".10", ".", ".25"]
    fvals = ["0", "1", "-1", "2.5", "-0.5", "1e3", "1e20", "1e-7", "0.1", "123456789", "1.005", "2.675",
             "0.5", "1.5", "-123.456", "3.14159265358979", "1e100", "-1e-100", "0.000123", "255", "-255",
             "4294967296", "\"3\"", "\"x\"", "\"\"", "\"日本語\"", "\"💃🏿x\"", "true", "false", "null",
             "[1]", "{a = 1}", "\"12.5\"", "18446744073709551616", "0.3"]
    for _ in range(1000):
        fs, args = "", []
        for _ in range(frng.randint(1, 3)):
            fs += frng.choice(["", "x", " ", "|"]) + "%" + frng.choice(fflags) + frng.choice(fwidths) \
                + frng.choice(fprecs) + frng.choice("vdfeEgGxXobstq")
            args.append(frng.choice(fvals))
        out.append("format(%s, %s)" % (json.dumps(fs), ", ".join(args)))
    # Random nested values for yamlencode (quoting, folding, block scalars, keys).
    yrng = random.Random(12)
    pieces = ["a", "b c", "  lead", "trail  ", "x\ny", "x\n", "\n", "\nlead", "tab\there", "emoji😀", "é",
              "\u00a0nb", "\u2028", "quote\"q", "back\\s", "#hash", ":colon", "- dash", "yes", "null", "1.5", "",
              "word " * 30, "long" * 30 + " tail", "a  b" * 25, "x" * 200, "k: v", "[1]", "*ref", "&anc",
              "!tag", "@at", "|pipe", ">gt", "'sq'", "end\n\n", "mid\n\nmid", " \n ", "a \nb", "a\n b"]
    def hs(x):
        return json.dumps(x, ensure_ascii=False)
    def val(d=0):
        r = yrng.random()
        if d > 3 or r < 0.45:
            t = yrng.random()
            if t < 0.7:
                return hs("".join(yrng.choice(pieces) for _ in range(yrng.randint(1, 3))))
            if t < 0.8:
                return yrng.choice(["0", "1", "-1.5", "1e20", "0.001", "123456789012345678901234567890"])
            return yrng.choice(["true", "false", "null"])
        if r < 0.7:
            return "[" + ", ".join(val(d + 1) for _ in range(yrng.randint(0, 4))) + "]"
        keys, items = set(), []
        for _ in range(yrng.randint(0, 4)):
            k = "".join(yrng.choice(pieces) for _ in range(yrng.randint(1, 2)))
            if k not in keys:
                keys.add(k)
                items.append(f"{hs(k)} = {val(d + 1)}")
        return "{" + ", ".join(items) + "}"
    out += [f"yamlencode({val()})" for _ in range(300)]
    # Random YAML documents for yamldecode (block/flow nesting, tags, anchors,
    # merge keys, block scalars, resolution of plain scalars, syntax errors).
    drng = random.Random(33)
    scal = ["a", "yes", "No", "on", "~", "null", "1", "-2", "0x1F", "0o17", "017", "1_000", "1.5", "1e3", ".5",
            ".inf", "-.inf", "2001-12-14", "2001-12-14T21:59:43Z", "'q'", "\"dq\"", "\"e\\u00e9\"", "'it''s'",
            "true", "False", "<<", "''", "a b", "c: d", "!!str 12", "!!int '5'", "&a x", "*a", "[1, 2]", "{k: v}",
            "[]", "{}", "- x", "|\n  lit", "|-\n  lit\n  two", ">\n  fold\n  ed"]
    def ynode(d, ind):
        r = drng.random()
        pad = "  " * ind
        if d > 2 or r < 0.5:
            return drng.choice(scal)
        if r < 0.75:
            return "".join(f"\n{pad}- {ynode(d + 1, ind + 1)}" for _ in range(drng.randint(1, 3)))
        keys = [drng.choice(["a", "b", "c", "yes", "1", "key with space", "<<", "'q'", "~"])
                for _ in range(drng.randint(1, 3))]
        return "".join(f"\n{pad}{k}: {ynode(d + 1, ind + 1)}" for k in keys)
    for _ in range(600):
        n = ynode(0, 0)
        doc = n.lstrip("\n") if drng.random() < 0.9 else "---" + n
        out.append("yamldecode(%s)" % json.dumps(doc, ensure_ascii=False))
    # Random RE2 patterns for regex/regexall (classes, Perl/Unicode classes,
    # groups named/unnamed/duplicate, alternation, greedy/lazy repetition).
    rrng = random.Random(44)
    ratoms = ["a", "b", ".", "\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "[ab]", "[^a]", "[a-c]", "[[:alpha:]]",
              "[[:digit:]]", "\\pL", "\\p{Greek}", "é", "日", "\\.", "\\b", "\\B", "^", "$", "(?i)A", "x",
              "\\x41", "\\n", "[\\d\\s]", "[^\\w]", "\\x{42}", "[\\p{L}]", "\\PL"]
    def rpat(d=0):
        r = rrng.random()
        if d > 2 or r < 0.4:
            p = rrng.choice(ratoms)
        elif r < 0.55:
            p = "(" + rpat(d + 1) + ")"
        elif r < 0.65:
            p = "(?P<n%d>" % rrng.randint(0, 3) + rpat(d + 1) + ")"
        elif r < 0.75:
            p = "(?:" + rpat(d + 1) + "|" + rpat(d + 1) + ")"
        else:
            p = rpat(d + 1) + rpat(d + 1)
        if rrng.random() < 0.3:
            p += rrng.choice(["*", "+", "?", "*?", "+?", "??", "{2}", "{1,3}", "{2,}", "{0}", "{0,0}"])
        return p
    rsubj = ["aab b1 2c", "ΑΒΓ abc", "日本 語", "a.b\nc", "  x  ", "é É e", "abab", "123abc456", "", "b", "AB BA"]
    for _ in range(1000):
        out.append("%s(%s, %s)" % (rrng.choice(["regex", "regexall"]), json.dumps(rpat(), ensure_ascii=False),
                                   json.dumps(rrng.choice(rsubj), ensure_ascii=False)))
    # Random formatdate formats and timeadd durations over odd timestamps.
    trng = random.Random(55)
    tverbs = ["YYYY", "YY", "YYY", "M", "MM", "MMM", "MMMM", "MMMMM", "D", "DD", "DDD", "EEE", "EEEE", "E", "h", "hh",
              "hhh", "H", "HH", "A", "AA", "a", "aa", "m", "mm", "mmm", "s", "ss", "Z", "ZZZ", "ZZZZ", "ZZZZZ", "ZZ",
              "'lit'", "''", "'it''s'", "'", "-", ":", " ", "/", "T", "é", "Q", "x", "'a", "q"]
    tdates = ["2017-03-04T22:45:09.005Z", "2018-01-02T23:12:01-08:00", "2018-12-31T12:00:00+05:30",
              "2000-02-29T23:59:59.999999999Z", "1999-12-31T23:59:60Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
              "2017-11-22 10:00:00Z", "2017-02-30T10:00:00Z", "2017-11-22T1:00:00Z", "2017-11-22T10:00:00", "20",
              "2017-13-01T00:00:00Z", "2017-11-22T24:00:00Z", "2017-11-22T10:00:00+24:00", "2017-11-22t10:00:00z",
              "+2017-11-22T10:00:00Z", "2017-11-22T10:00:00,5Z", "2017-11-22T10:00:00-00:00", "2017-11-22T10:00:00+01",
              "2017-11-22T10:00Z", "2016-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2017-11-00T00:00:00Z"]
    tdurs = ["1h", "-1h30m", "1.5h", "0.5s", "100ms", "1us", "1µs", "1ns", "-0", "0", "+5m", "1h1h", "2562047h",
             "2562048h", "1.0000000001s", ".5h", "5.h", "1e3s", "1 h", "1hour", "", "h", "1", "-", "3h2m1s0.5ms",
             "9223372036854775807ns", "9223372036854775808ns", "-9223372036854775808ns", "1.9999999999ns"]
    for _ in range(800):
        f = "".join(trng.choice(tverbs) for _ in range(trng.randint(1, 5)))
        out.append("formatdate(%s, %s)" % (json.dumps(f, ensure_ascii=False), json.dumps(trng.choice(tdates))))
    for _ in range(500):
        out.append("timeadd(%s, %s)" % (json.dumps(trng.choice(tdates)), json.dumps(trng.choice(tdurs), ensure_ascii=False)))
    # Random CSV documents and string function calls (case mapping, grapheme
    # clusters, separators, trimming).
    srng = random.Random(66)
    cparts = ["a", "b", ",", "\"", "\n", "\r\n", "\r", " ", "x y", "é", "日本", "😸", "noë", "\t", "''", "\"\"", "1", "-"]
    for _ in range(600):
        doc = "".join(srng.choice(cparts) for _ in range(srng.randint(0, 12)))
        out.append("csvdecode(%s)" % json.dumps(doc, ensure_ascii=False))
    sstrs = ["", "a", "hello world", "  pad  ", "A-b_c d", "İstanbul", "ΣΟΦΟΣ σοφός", "straße", "ǆ ǅ Ǆ", "noël", "😸😾",
             "a\nb\r\nc\n", "\u00a0x\u00a0", "x\ty", "ß", "ﬁ", "ǰ", "Ⅻ", "ⓐ", "123abc", "__a__", "don't stop",
             "o'neil", "ǈ", "ᾳ", "ꭰ", "K", "İi"]
    def js(x):
        return json.dumps(x, ensure_ascii=False)
    for _ in range(1000):
        f = srng.choice(["upper", "lower", "title", "strrev", "trimspace", "chomp", "substr", "split", "trim", "indent", "join"])
        a = js(srng.choice(sstrs))
        if f == "substr":
            out.append("substr(%s, %d, %d)" % (a, srng.randint(-6, 8), srng.randint(-2, 8)))
        elif f == "split":
            out.append("split(%s, %s)" % (js(srng.choice(["", " ", "a", "\n", "ll", "é"])), a))
        elif f == "trim":
            out.append("trim(%s, %s)" % (a, js(srng.choice(["a", " ", "é", "İ", "ab", "x y"]))))
        elif f == "indent":
            out.append("indent(%d, %s)" % (srng.randint(0, 3), a))
        elif f == "join":
            out.append("join(%s, [%s, %s])" % (js(srng.choice(["-", "", "é"])), a, js(srng.choice(sstrs))))
        else:
            out.append("%s(%s)" % (f, a))
    # Random JSON documents and token soup for jsondecode (duplicate keys
    # checked against the last value's type, trailing text, syntax errors),
    # and jsonencode of what they decode to.
    jrng = random.Random(88)
    jtoks = ["{", "}", "[", "]", ",", ":", "\"a\"", "\"b\\u00e9\"", "\"\\ud83d\\ude00\"", "\"\\ud83d\"", "\"\\x\"", "1",
             "-0", "1.5e3", "1e400", "0.1", "01", "-", "true", "false", "null", "tru", " ", "\n", "\"\\\"\"", "\"\\/\"",
             "\"<&>\"", "\"\t\"", "1E+2", ".5", "+1", "\"\\u00\""]
    def jval(d=0):
        r = jrng.random()
        if d > 3 or r < 0.5:
            return jrng.choice(["1", "-2.5", "0", "1e2", "\"s\"", "\"é\"", "true", "false", "null", "\"\\n\"",
                                "\"\\u2028\"", "123456789012345678901234567890", "1.0000000000000000000001",
                                "\"true\"", "\"12\""])
        if r < 0.75:
            return "[" + ",".join(jval(d + 1) for _ in range(jrng.randint(0, 3))) + "]"
        return "{" + ",".join('"%s":%s' % (jrng.choice(["a", "b", "c", "é", "", "type", "value"]), jval(d + 1))
                              for _ in range(jrng.randint(0, 3))) + "}"
    jdocs = []
    for _ in range(1200):
        if jrng.random() < 0.6:
            jdocs.append(jval())
        else:
            jdocs.append("".join(jrng.choice(jtoks) for _ in range(jrng.randint(1, 6))))
    out += ["jsondecode(%s)" % json.dumps(d, ensure_ascii=False) for d in jdocs]
    out += ["jsonencode(jsondecode(%s))" % json.dumps(d, ensure_ascii=False) for d in jdocs[:400]]
    # mini has no templates, but HCL does: keep ${ and %{ out of the corpus.
    out = [c for c in out if "${" not in c and "%{" not in c]
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
    lines = res.stdout.rstrip("\n").split("\n")
    assert len(lines) == len(exprs)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "corpus_text.jsonl"), "w") as f:
        for e, l in zip(exprs, lines):
            o = json.loads(l)
            head = '{"expr": %s' % json.dumps(e, ensure_ascii=False)
            if "error" in o:
                f.write(head + ', "error": %s}\n' % json.dumps(o["error"], ensure_ascii=False))
            elif o.get("unknown"):
                f.write(head + ', "type": %s, "unknown": true}\n' % json.dumps(o["type"]))
            else:
                raw = l[l.index('"value":') + len('"value":'):l.rindex("}")]
                f.write(head + ', "type": %s, "value": %s}\n' % (json.dumps(o["type"]), raw))
    print(len(exprs), "expressions")


main()
