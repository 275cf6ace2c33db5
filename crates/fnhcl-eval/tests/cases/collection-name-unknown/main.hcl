locals {
  prefix = req.composite.spec.prefix
}

resources buckets {
  for_each = [1]
  name     = "${prefix}-${each.key}"
  template {
    body = { kind = "Bucket" }
  }
}
