// format: resources <base-crossplane-name>
resources additional_buckets {
  locals {
    params   = req.composite.spec.parameters
    suffixes = req.composite.spec.parameters.suffixes
  }
  for_each = suffixes

  name = "${self.basename}-${each.key}" // optional, default is as shown

  template {
    locals {
      resourceName = "${req.composite.metadata.name}-${self.name}"
    }
    body = {
      apiVersion = "s3.aws.upbound.io/v1beta1"
      kind       = "Bucket"
      metadata = {
        name = resourceName
      }
      spec = {
        forProvider = {
          forceDestroy = true
          region       = params.region
          suffix       = each.value
        }
      }
    }
  }
}
