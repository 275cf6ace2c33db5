resources bucket {
  for_each = req.composite.spec.parameters.names
  template {
    body = {
      apiVersion = "s3.aws.upbound.io/v1beta1"
      kind       = "Bucket"
      metadata = {
        name = "${req.composite.metadata.name}-${each.value}"
      }
      spec = {
        forProvider = { region = req.composite.spec.parameters.region }
      }
    }
    composite status {
      body = {
        arns = { (each.value) = self.resource.status.atProvider.arn }
      }
    }
  }
}
