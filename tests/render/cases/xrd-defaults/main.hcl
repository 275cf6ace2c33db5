locals {
  params = req.composite.spec.parameters
}

resource app {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "${req.composite.metadata.name}-app" }
    data = {
      region   = params.region
      replicas = tostring(params.replicas)
      tier     = params.tier
    }
  }
}
