resources buckets {
  for_each = ["a"]
  template {
    body = {
      kind     = "Bucket"
      metadata = "oops"
    }
  }
}
