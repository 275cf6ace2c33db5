resources buckets {
  for_each = req.composite.spec.names
  template {
    body = { kind = "Bucket" }
  }
}
