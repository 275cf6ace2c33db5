requirement envs {
  select {
    apiVersion  = "apiextensions.crossplane.io/v1beta1"
    kind        = "EnvironmentConfig"
    matchLabels = { team = "platform" }
  }
}

resource settings {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "${req.composite.metadata.name}-settings" }
    data = {
      count  = tostring(length(req.extra_resources.envs))
      names  = join(",", [for e in req.extra_resources.envs : e.metadata.name])
      region = req.extra_resources.envs[0].data.region
    }
  }
}
