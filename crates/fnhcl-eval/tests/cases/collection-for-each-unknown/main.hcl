locals {
  names = req.composite.spec.names
}

resources buckets {
  for_each = names
  template {
    body = { kind = "Bucket" }
  }
}
