requirement my-config {
  select {
    apiVersion  = "apiextensions.crossplane.io/v1beta1"
    kind        = "EnvironmentConfig"
    matchLabels = { foo = "bar" }
  }
}

locals {
  myLabelValue = req.extra_resources.my-config[0].metadata.labels["my-label"]
}

resource cm {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    data       = { label = myLabelValue }
  }
}
