locals {
  params = req.composite.spec.parameters
}

resources bucket {
  for_each = params.sizes
  name     = "bucket-${each.key}"
  template {
    body = {
      apiVersion = "s3.aws.upbound.io/v1beta1"
      kind       = "Bucket"
      metadata = {
        name = "${req.composite.metadata.name}-${each.key}"
        labels = { size = each.key }
      }
      spec = {
        forProvider = {
          region = params.region
          count  = each.value * 2
        }
      }
    }
  }
}
