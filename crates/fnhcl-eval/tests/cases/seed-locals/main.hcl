locals {
  baseName     = req.composite.metadata.name
  computedName = "${baseName}-bucket" // refers to the baseName local
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
