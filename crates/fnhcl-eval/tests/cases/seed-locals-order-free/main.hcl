locals {
  computedName = "${baseName}-bucket"
}

locals {
  baseName = req.composite.metadata.name
}

resource bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata = {
      name = computedName
    }
  }
}
