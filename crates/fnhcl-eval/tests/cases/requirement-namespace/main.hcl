# D36: a requirement can name the namespace it selects in; a null
# namespace is none.
requirement settings {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    namespace  = "team-a"
    matchName  = "settings"
  }
}

requirement team_configs {
  select {
    apiVersion  = "v1"
    kind        = "ConfigMap"
    namespace   = req.composite.metadata.namespace
    matchLabels = { team = "a" }
  }
}

requirement cluster_wide {
  select {
    apiVersion  = "example.org/v1"
    kind        = "EnvironmentConfig"
    namespace   = null
    matchLabels = { env = "prod" }
  }
}
