resources buckets {
  for_each = range(3)
  name     = "${self.basename}-n${each.value + 1}"
  template {
    body = {
      kind     = "Bucket"
      metadata = { name = self.name, annotations = { keep = "yes" } }
    }
  }
}
