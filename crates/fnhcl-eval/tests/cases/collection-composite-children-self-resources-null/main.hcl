resources buckets {
  for_each = [1]
  template {
    body = { kind = "Bucket" }
  }
  composite status {
    body = { first = self.resources[0].status.id }
  }
  composite status {
    body = { base = self.basename }
  }
  context {
    key   = "example.com/${self.basename}"
    value = "set"
  }
}
