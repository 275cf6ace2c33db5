resources buckets {
  for_each = ["a", "b"]
  template {
    body = {
      kind   = "Bucket"
      region = each.value == "a" ? "x" : req.composite.spec.region
    }
  }
}
