resource foo {
  condition = req.composite.spec.enabled
  body      = { kind = "Foo" }
}

group {
  condition = req.composite.spec.groupEnabled
  resource bar {
    body = { kind = "Bar" }
  }
}

resources many {
  condition = req.composite.spec.manyEnabled
  for_each  = [1]
  template {
    body = { kind = "Many" }
  }
}

locals {
  x = req.composite.status.id
}

requirement r {
  condition = can(x)
  select {
    apiVersion = "v1"
    kind       = "X"
    matchName  = "a"
  }
}
