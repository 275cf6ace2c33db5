requirement settings {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    namespace  = 3
    matchName  = "settings"
  }
}
