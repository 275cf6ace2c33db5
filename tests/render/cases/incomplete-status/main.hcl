resource queue {
  body = {
    apiVersion = "sqs.aws.upbound.io/v1beta1"
    kind       = "Queue"
    metadata   = { name = "${req.composite.metadata.name}-queue" }
    spec       = { forProvider = { region = req.composite.spec.parameters.region } }
  }
  composite status {
    body = {
      queueUrl = self.resource.status.atProvider.url
    }
  }
}

composite status {
  body = {
    region = req.composite.spec.parameters.region
  }
}
