param "region" {}

param "retention_seconds" {
  default = 345600
}

resource queue {
  body = {
    apiVersion = "sqs.aws.upbound.io/v1beta1"
    kind       = "Queue"
    spec = {
      forProvider = {
        region                  = param.region
        messageRetentionSeconds = param.retention_seconds
      }
    }
  }
}

export {
  url = req.resource.queue.status.atProvider.url
}
