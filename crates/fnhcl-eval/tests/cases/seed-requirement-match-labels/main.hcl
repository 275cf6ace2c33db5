requirement my-config {
  select {
    apiVersion  = "apiextensions.crossplane.io/v1beta1"
    kind        = "EnvironmentConfig"
    matchLabels = { foo = "bar" }
  }
}
