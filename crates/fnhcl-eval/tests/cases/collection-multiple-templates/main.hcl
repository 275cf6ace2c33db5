resources buckets {
  for_each = [1]
  template {
    body = { kind = "A" }
  }
  template {
    body = { kind = "B" }
  }
}
