resources buckets {
  for_each = "abc"
  template {
    body = { kind = "Bucket" }
  }
}
