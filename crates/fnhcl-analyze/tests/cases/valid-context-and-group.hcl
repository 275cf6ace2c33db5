group {
  condition = req.composite.spec.enabled
  locals {
    suffix = "x"
  }
  resource a {
    body = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "a-${suffix}" } }
  }
}

context {
  key   = "processed"
  value = req.composite.metadata.name
}
