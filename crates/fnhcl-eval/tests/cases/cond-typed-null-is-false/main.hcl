resource foo {
  condition = tobool(req.composite.spec.flag)
  body      = { kind = "Foo" }
}

resource bar {
  body = { kind = "Bar" }
}
