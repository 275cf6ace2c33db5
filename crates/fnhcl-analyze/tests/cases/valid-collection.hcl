resources buckets {
  locals {
    params = req.composite.spec.parameters
  }
  for_each = range(try(params.numBuckets, 1))
  name     = "${self.basename}-${each.value}"
  template {
    locals {
      name = "${req.composite.metadata.name}-bucket-${each.value}"
    }
    body = {
      apiVersion = "s3.aws.upbound.io/v1beta1"
      kind       = "Bucket"
      metadata = {
        name = name
        annotations = {
          base-name       = self.basename
          crossplane-name = self.name
        }
      }
      spec = { forProvider = { region = params.region } }
    }
  }
}

resource summary {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    data       = { count = length(req.resources.buckets) }
  }
}
