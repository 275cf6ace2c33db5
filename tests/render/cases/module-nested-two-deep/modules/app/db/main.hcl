param "region" {}

param "size" {
  default = "small"
}

resource instance {
  body = {
    apiVersion = "rds.aws.upbound.io/v1beta1"
    kind       = "Instance"
    spec = {
      forProvider = {
        region           = param.region
        engine           = "postgres"
        instanceClass    = param.size == "large" ? "db.r5.large" : "db.t3.micro"
        allocatedStorage = param.size == "large" ? 100 : 20
      }
    }
  }
}

export {
  address = req.resource.instance.status.atProvider.address
}
