resources buckets {
  for_each = [1]
  name     = "${req.composite.spec.prefix}-${each.key}"
  template {
    body = { kind = "Bucket" }
  }
}
