group {
  condition = req.composite.spec.enabled
  resource other {
    body = { kind = "Other" }
  }
  resources buckets {
    for_each = [1]
    template {
      body = { kind = "Bucket" }
    }
  }
}
