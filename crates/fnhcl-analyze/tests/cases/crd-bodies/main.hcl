locals {
  region = req.composite.spec.region
}

resource bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata = {
      name   = "logs"
      labels = { team = "platform" }
      annotaions = { a = "b" }
    }
    spec = {
      forProvider = {
        regoin       = region
        region       = region
        forceDestroy = "yes"
        tags         = merge({ a = "b" }, { c = 1 })
      }
      managementPolicies = ["Observe", 3]
    }
  }
}

resources roles {
  for_each = toset(["a", "b"])
  template {
    body {
      apiVersion = "iam.aws.upbound.io/v1beta1"
      kind       = "Role"
      spec = {
        forProvider = {
          assumeRolePolicy   = jsonencode({ Version = "2012-10-17" })
          maxSessionDuration = "1h"
          "${each.key}"      = 1
        }
        deletionPolicy = "Keep"
      }
    }
  }
}

resource policy {
  body = {
    apiVersion = "iam.aws.upbound.io/v1beta1"
    kind       = "Polcy"
    spec       = { forProvider = { policy = "{}" } }
  }
}

resource old {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta3"
    kind       = "Bucket"
    spec       = {}
  }
}

resource other {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "VPC"
    spec       = { anything = true }
  }
}
