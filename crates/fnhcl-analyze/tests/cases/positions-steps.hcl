# Diagnostics point at the offending step (docs/differences-from-go.md, "Positions").
resources buckets {
  for_each = ["a"]
  template {
    body = { n = each.foobar, o = req.resources0.foo, p = upper("a", "b"), q = join() }
  }
}

function f {
  arg x {}
  body = x
}

locals {
  _a = invoke("f", { x = 1, nmae = 2 })
  _b = invoke("f")
}
