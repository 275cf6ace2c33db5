resources buckets {
  condition = req.composite.spec.enabled
  for_each  = ["a"]
  template {
    body = { kind = "Bucket" }
  }
}
