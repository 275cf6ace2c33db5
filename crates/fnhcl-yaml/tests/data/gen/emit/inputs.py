import json
strings = ["", "true", "True", "yes", "Yes", "no", "on", "off", "y", "n", "Y", "N", "null", "Null", "~", "12", "-3", "0x1f", "0o17", "017", "1.5", "1e3", ".5", "1_000", ".inf", "-.inf", ".nan", "2024-01-01", "2024-01-01T00:00:00Z",
  "1:20", "a: b", "a #b", "a#b", "- x", "-x", "-", "#c", "'q'", "\"d\"", "trailing ", " leading", "key:", "@at", "`tick", "%pct", "* star", "&amp", "!bang", "|pipe", ">gt",
  "{a}", "[b]", "a,b", "a[b]", "---", "---x", "...", "?x", "? x", ":x", ": x", "x:y", "<<", "=", "multi\nline", "multi\nline\n", "x\n\n", "line\n  indented\n", " lead\nx", "trail \nx", "tab\there", "ü unicode", "emoji 😀",
  "Unready resources: a, b, and c", "hcl.Diagnostics contains no warnings", "main.hcl:19,12-21,6:discarded composite-status \nself.resource.status.atProvider.arn, main.hcl:20,32-39: Attempt to get attribute from null value; This value is null, so it does not have any attributes.",
  "warnings: [main.hcl:20,32-39: Attempt to get attribute from null value]", "arn:aws:s3:::bucket", "10.0.0.0/16", "s000001", "eu-west-1", "v1", "1.20", "1.2.3", "0.0.0.0:9443", "http://x.y/z?q=1#f",
  "word " * 30, ("word " * 30).strip(), "a: " + ("word " * 30).strip(), ("x" * 90) + " tail", "long  double  spaces " * 6, ("with 'quote' " * 10).strip(), "ctl\u0001char " * 12, "a\u00a0nbsp",
]
vals = []
for s in strings:
    vals.append({"k": s})
    vals.append({"list": [s]})
    vals.append({"nested": {"deeper": {"k": s}}})
    vals.append({s if "\n" not in s else "x": 1})
keys = ["b", "a", "B", "_x", "a1", "a01", "a10", "a2", "r-10", "r-2", "r-1", "Z", "z", "1", "10", "9", "-", "a.b", "a/b", "crossplane.io/composite", "x1y", "x01y", "x1z", "ä", "A", "aa", "a_", "a-"]
vals.append({k: 1 for k in keys})
vals.append({"n": [0, 1, -1, 7.0, 0.5, -2.25, 1e21, 1e20, 123456789012, 1.5e-7, 0.0001, 0.00001, 3.14159, 1e300, 2**53, 2**53 + 2, 100.0, 1e6, 1234567.0, 12345678.5]})
vals.append({"b": [True, False, None], "e": {}, "l": [], "ll": [[1, 2], [], [[3]]], "m": [{"a": 1, "b": [1, 2]}, {}]})
vals.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"annotations": {"crossplane.io/composition-resource-name": "a"}, "labels": {"x": "y"}}, "data": {"k": "v"}})
for v in vals:
    print(json.dumps(v, ensure_ascii=False))
