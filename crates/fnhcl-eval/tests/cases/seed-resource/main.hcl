// format: resource <crossplane-name>
resource my-s3-bucket {
  // self.name will be set to "my-s3-bucket"

  // locals are private to this resource
  locals {
    resourceName = "${req.composite.metadata.name}-bucket"
    params       = req.composite.spec.parameters
    tagValues = {
      foo : "bar"
    }
  }

  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata : {
      name : resourceName
      annotations : {
        crossplane-name : self.name
      }
    }
    spec : {
      forProvider : {
        forceDestroy : true
        region = params.region
        tags   = tagValues
      }
    }
  }
}
