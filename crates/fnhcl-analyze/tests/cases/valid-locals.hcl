locals {
  comp     = req.composite
  compName = comp.metadata.name
  params   = comp.spec.parameters
}

resource my-bucket {
  locals {
    region = params.region
  }
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata   = { name = "${compName}-bucket" }
    spec       = { forProvider = { region = region } }
  }
}
