resources buckets {
  for_each = [1]
  name     = each.key
  template {
    body = { kind = "Bucket" }
  }
}
