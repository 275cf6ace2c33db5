requirement labels-config {
  condition = req.composite.metadata.labels["special"] == "true"
  locals {
    ecName = "foo-bar"
  }
  select {
    apiVersion = "apiextensions.crossplane.io/v1beta1"
    kind       = "EnvironmentConfig"
    matchName  = ecName
  }
}

requirement skipped-config {
  condition = req.composite.metadata.labels["special"] == "false"
  select {
    apiVersion = "apiextensions.crossplane.io/v1beta1"
    kind       = "EnvironmentConfig"
    matchName  = "other"
  }
}
