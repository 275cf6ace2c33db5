resource {
  body = { kind = "Foo" }
}

group extra {
}

resources a b {
  for_each = []
  template {
    body = {}
  }
}
