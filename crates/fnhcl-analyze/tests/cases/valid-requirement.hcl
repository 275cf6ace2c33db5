requirement env {
  condition = true
  locals {
    ecName = "foo-bar"
  }
  select {
    apiVersion = "apiextensions.crossplane.io/v1beta1"
    kind       = "EnvironmentConfig"
    matchName  = ecName
  }
}

resource my-bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata   = { labels = req.extra_resources.env[0].data.labels }
  }
}
