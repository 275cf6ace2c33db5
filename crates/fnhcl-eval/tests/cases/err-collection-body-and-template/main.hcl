resources r {
  for_each = [1]
  body = { kind = "A" }
  template {
    body = { kind = "B" }
  }
}
