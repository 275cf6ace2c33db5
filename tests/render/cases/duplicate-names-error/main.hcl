resource bucket-0 {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
  }
}

resources bucket {
  for_each = ["only"]
  template {
    body = {
      apiVersion = "v1"
      kind       = "ConfigMap"
    }
  }
}
