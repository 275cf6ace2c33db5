resources buckets {
  for_each = ["a", "b"]
  template {
    body = {
      kind = "Bucket"
      spec = { seen = try(self.resource.status.id, "none") }
    }
    composite status {
      body = {
        ids = { (self.name) = self.resource.status.id }
      }
    }
  }

  composite status {
    body = { count = length(self.resources) }
  }
}
