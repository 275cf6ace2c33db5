resource my-bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
  }
  composite status {
    body = {
      bucketARN = self.resource.status.atProvider.arn
    }
  }
  ready {
    value = "READY_TRUE"
  }
}

resource other {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    data       = { arn = req.resource.my-bucket.status.atProvider.arn }
  }
}
