resource named {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "${req.composite.metadata.name}-named" }
  }
}

resource unnamed {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    data       = { a = "b" }
  }
  ready {
    value = "READY_TRUE"
  }
}
