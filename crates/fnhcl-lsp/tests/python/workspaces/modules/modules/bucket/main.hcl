param "region" {
  description = "where the bucket lives"
}

resource bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    spec       = { forProvider = { region = param.region } }
  }
}

export {
  arn = req.resource.bucket.status.atProvider.arn
}
