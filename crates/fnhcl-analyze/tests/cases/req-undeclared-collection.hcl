resources buckets {
  for_each = [1]
  template {
    body = {}
  }
}
resource r {
  body = { n = length(req.resources.bucket) }
}
