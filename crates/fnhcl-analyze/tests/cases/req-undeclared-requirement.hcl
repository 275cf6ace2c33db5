requirement env-config {
  select {
    apiVersion = "apiextensions.crossplane.io/v1beta1"
    kind       = "EnvironmentConfig"
    matchName  = "a"
  }
}
resource r {
  body = {
    ok  = req.extra_resources.env-config
    bad = req.extra_resources.env-confg
  }
}
