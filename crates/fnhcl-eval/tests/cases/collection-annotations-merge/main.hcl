resources buckets {
  for_each = ["a"]
  template {
    body = {
      kind = "Bucket"
      metadata = {
        name = "x"
        annotations = {
          mine = "kept"
          "hcl.fn.crossplane.io/collection-index" = "overridden"
        }
      }
    }
  }
}
