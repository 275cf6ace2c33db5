requirement env {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
  }
}
