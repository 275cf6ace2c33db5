# D36/D16: a namespace not known yet omits the requirement.
requirement settings {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    namespace  = req.composite.spec.teamNamespace
    matchName  = "settings"
  }
}
