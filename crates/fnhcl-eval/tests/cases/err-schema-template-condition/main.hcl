resources things {
  for_each = [1]
  template {
    condition = true
    body      = { kind = "Thing" }
  }
}
