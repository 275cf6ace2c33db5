resources cms {
  for_each = req.composite.spec.buckets
  name     = "bucket-${each.key}"
  template {
    body = {
      kind = "Bucket"
      spec = each.value
    }
  }
}
