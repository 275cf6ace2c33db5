locals {
  region = req.composite.spec.region
  names  = req.composite.spec.buckets
}

resources buckets {
  for_each = toset(names)

  template {
    body = {
      apiVersion = "s3.aws.upbound.io/v1beta1"
      kind       = "Bucket"
      metadata = {
        name = each.value
      }
      spec = {
        forProvider = {
          region = region
        }
      }
    }
  }
}
