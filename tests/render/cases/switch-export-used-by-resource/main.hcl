# The tier chooses the database class and whether a read replica exists;
# the chosen branch's exports configure the primary outside the switch.
locals {
  params = req.composite.spec.parameters
}

switch "tier" {
  case "dev" {
    condition = params.tier == "dev"
    export {
      instance_class = "db.t3.micro"
      storage_gb     = 20
      multi_az       = false
    }
  }
  case "production" {
    condition = params.tier == "production"
    resource replica {
      body = {
        apiVersion = "rds.aws.upbound.io/v1beta1"
        kind       = "Instance"
        spec = {
          forProvider = {
            region            = params.region
            instanceClass     = "db.r5.large"
            replicateSourceDb = "${req.composite.metadata.name}-primary"
          }
        }
      }
    }
    export {
      instance_class = "db.r5.large"
      storage_gb     = 500
      multi_az       = true
    }
  }
  default {
    export {
      instance_class = "db.t3.small"
      storage_gb     = 50
      multi_az       = false
    }
  }
}

resource primary {
  body = {
    apiVersion = "rds.aws.upbound.io/v1beta1"
    kind       = "Instance"
    metadata   = { name = "${req.composite.metadata.name}-primary" }
    spec = {
      forProvider = {
        region           = params.region
        engine           = "postgres"
        instanceClass    = switch.tier.instance_class
        allocatedStorage = switch.tier.storage_gb
        multiAz          = switch.tier.multi_az
      }
    }
  }
}

composite status {
  body = {
    tier     = switch.tier.evaluated
    branches = switch.tier.branches
    replica  = switch.tier.case.production.evaluated
  }
}
