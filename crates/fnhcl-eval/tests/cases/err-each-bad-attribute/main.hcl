resources bars {
  for_each = [1, 2]
  name     = "bar-${each.index}"
  template {
    body = { kind = "Bar" }
  }
}
