resource my-bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata = {
      name = "${req.composite.metadata.name}-bucket"
    }
    spec = {
      forProvider = {
        region = req.composite.spec.parameters.region
      }
    }
  }
}
