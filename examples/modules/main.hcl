# An application's storage: two buckets from one module, configured by a
# switch on the environment, and a policy that needs both buckets' ARNs.
import "modules/bucket" {}

locals {
  params = req.composite.spec.parameters
}

# Production keeps versions and a year of objects; every other environment
# keeps a week.
switch "environment" {
  case "production" {
    condition = params.environment == "production"
    export {
      versioning     = true
      retention_days = 365
    }
  }
  default {
    export {
      versioning     = false
      retention_days = 7
    }
  }
}

module "bucket" "assets" {
  region     = params.region
  versioning = switch.environment.versioning
}

module "bucket" "logs" {
  region         = params.region
  retention_days = switch.environment.retention_days
}

# Needs the buckets' ARNs, which the provider reports once they exist: the
# policy is deferred until then.
resource reader_policy {
  body = {
    apiVersion = "iam.aws.upbound.io/v1beta1"
    kind       = "Policy"
    spec = {
      forProvider = {
        policy = jsonencode({
          Version = "2012-10-17"
          Statement = [{
            Effect   = "Allow"
            Action   = ["s3:GetObject"]
            Resource = ["${module.assets.arn}/*", "${module.logs.arn}/*"]
          }]
        })
      }
    }
  }
}

composite status {
  body = {
    environment = switch.environment.evaluated
    buckets = {
      assets = module.assets.name
      logs   = module.logs.name
    }
  }
}
