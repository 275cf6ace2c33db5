locals {
  env = req.context["example.com/env"]
}

resource config {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "${req.composite.metadata.name}-config" }
    data = {
      tier    = env.tier
      zones   = join(",", env.zones)
      owner   = req.context.owner
      enabled = tostring(req.context.flags.enabled)
    }
  }
}

context {
  key   = "example.com/rendered"
  value = { names = ["config"], env = env.tier }
}

context {
  key   = "example.com/rendered"
  value = { count = 1 }
}
