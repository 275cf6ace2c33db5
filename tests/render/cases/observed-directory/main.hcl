resource a {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "${req.composite.metadata.name}-a" }
  }
  composite status {
    body = { a = self.resource.data.value }
  }
}

resource b {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "${req.composite.metadata.name}-b" }
  }
  composite status {
    body = { b = req.resource.b.data.value }
  }
}
