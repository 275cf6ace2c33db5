resources buckets {
  for_each = []
  template {
    body = { kind = "Bucket" }
  }
}
