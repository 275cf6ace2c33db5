# Random HCL (often invalid on purpose) for run.sh: python3 gen.py SEED
import random, sys
r = random.Random(int(sys.argv[1]))
ids = ["a","b","foo","bar-baz","x_1","req","each","self","in","for","if"]
def ws():
    return r.choice(["", " ", "  ", "\t"])
def ident():
    return r.choice(["a","b","foo","bar_baz","x1","req","local","each"])
def tmpl(depth):
    parts = []
    for _ in range(r.randint(0,3)):
        k = r.random()
        if k < 0.5: parts.append(r.choice(["abc","x y","$${lit}","%%{lit}","\\\"q\\\"","-",":"," "]))
        elif k < 0.8: parts.append("${" + ws() + r.choice(["","~"]) + ws() + expr(depth+1) + ws() + r.choice(["","~"]) + "}")
        else: parts.append("%{" + ws() + "if " + expr(depth+1) + ws() + "}" + "yes" + "%{" + ws() + "endif" + ws() + "}")
    return '"' + "".join(parts) + '"'
def expr(depth=0):
    if depth > 3:
        return r.choice(["1","2.5","true","null",ident(),'"s"'])
    k = r.random()
    d = depth+1
    if k < 0.1: return r.choice(["1","-1","2.5","1e3","true","false","null"])
    if k < 0.2: return ident() + "".join(r.choice([".x","[0]",ws()+"["+ws()+"\"k\""+ws()+"]",".*.y","[*].z",".0"]) for _ in range(r.randint(0,3)))
    if k < 0.3: return tmpl(d)
    if k < 0.4: return "[" + ws() + ("," + ws()).join(expr(d) for _ in range(r.randint(0,3))) + ws() + r.choice(["",","]) + "]"
    if k < 0.5:
        items = [r.choice(["k%d" % i, '"q%d"' % i, "(" + ident() + ")"]) + ws() + r.choice(["=",":"]) + ws() + expr(d) for i in range(r.randint(0,3))]
        return "{" + ws() + ("," + ws()).join(items) + ws() + "}"
    if k < 0.6: return expr(d) + ws() + r.choice(["+","-","*","/","%","==","!=","<",">","<=",">=","&&","||"]) + ws() + expr(d)
    if k < 0.65: return r.choice(["-","!"]) + ws() + expr(d)
    if k < 0.72: return expr(d) + ws() + "?" + ws() + expr(d) + ws() + ":" + ws() + expr(d)
    if k < 0.8: return r.choice(["upper","f","merge","try"]) + "(" + ws() + ("," + ws()).join(expr(d) for _ in range(r.randint(0,3))) + ws() + r.choice(["","..."]) + ")" if False else r.choice(["upper","f","merge","try"]) + "(" + ws() + ("," + ws()).join(expr(d) for _ in range(r.randint(0,3))) + ws() + ")"
    if k < 0.88: return "[" + ws() + "for " + ident() + ws() + "," + ws() + "v in " + expr(d) + ws() + ":" + ws() + expr(d) + r.choice([""," if " + expr(d)]) + ws() + "]"
    if k < 0.93: return "{" + ws() + "for k, v in " + expr(d) + ws() + ":" + ws() + expr(d) + ws() + "=>" + ws() + expr(d) + r.choice(["", "..."]) + ws() + "}"
    return "(" + ws() + expr(d) + ws() + ")"
def body(depth, indent):
    out = []
    for _ in range(r.randint(1,5)):
        k = r.random()
        pre = r.choice(["", "  ", "\t", " "*r.randint(0,6)])
        if k < 0.6 or depth > 2:
            line = pre + "attr%d" % r.randint(0, 10**9) + ws() + "=" + ws() + expr()
            if r.random() < 0.2: line += ws() + r.choice(["# c", "// c", "/* c */"])
            out.append(line)
        elif k < 0.7:
            out.append(pre + r.choice(["#", "//"]) + " comment")
        elif k < 0.8:
            out.append("")
        elif k < 0.85:
            out.append(pre + "h%d" % r.randint(0,10**9) + " = <<" + r.choice(["", "-"]) + "EOT\n  line ${x}\n    two\n  EOT")
        else:
            out.append(pre + r.choice(["resource", "group", "locals"]) + r.choice(["", " n", ' "q"']) + ws() + "{\n" + body(depth+1, indent) + "\n" + pre + "}")
    return "\n".join(out)
print(body(0, 0))
