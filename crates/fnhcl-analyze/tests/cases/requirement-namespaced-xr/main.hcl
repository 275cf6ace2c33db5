# A namespaced XR: selecting by name without a namespace finds only a
# cluster-scoped object.
requirement settings {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    matchName  = "settings"
  }
}

requirement team-settings {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    matchName  = "team-settings"
    namespace  = req.composite.metadata.namespace
  }
}

requirement by-label {
  select {
    apiVersion  = "v1"
    kind        = "ConfigMap"
    matchLabels = { team = req.composite.spec.team }
  }
}

resource app {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "app" }
    data = {
      a = req.extra_resources.settings[0].data.x
      b = req.extra_resources.team-settings[0].data.x
      c = req.extra_resources.by-label[0].data.x
      # The step's own requirement and a WatchOperation's watched resource.
      d = req.extra_resources.base-config[0].data.x
      e = req.extra_resources["ops.crossplane.io/watched-resource"][0].metadata.name
      f = req.extra_resources.base-confg[0].data.x
    }
  }
}
