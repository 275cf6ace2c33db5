requirement env {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    matchName  = "a"
  }
}
requirement env {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    matchName  = "b"
  }
}
