requirement optional-config {
  condition = try(req.composite.spec.parameters.useConfig, false)
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    matchName  = "optional"
  }
}

resource app {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "${req.composite.metadata.name}-app" }
    data = {
      mode = try(req.extra_resources.optional-config[0].data.mode, "default")
    }
  }
}
