# `mode` chooses between one cache node and a replicated cluster. Changing
# it moves to the other branch: the old branch's resources are removed
# (the user's explicit choice) and the new branch's are created.
locals {
  params = req.composite.spec.parameters
}

switch "mode" {
  case "single" {
    condition = params.mode == "single"
    resource node {
      body = {
        apiVersion = "elasticache.aws.upbound.io/v1beta1"
        kind       = "Cluster"
        spec = {
          forProvider = {
            region        = params.region
            engine        = "redis"
            nodeType      = "cache.t3.micro"
            numCacheNodes = 1
          }
        }
      }
    }
  }
  case "replicated" {
    condition = params.mode == "replicated"
    resource replication_group {
      body = {
        apiVersion = "elasticache.aws.upbound.io/v1beta1"
        kind       = "ReplicationGroup"
        spec = {
          forProvider = {
            region                   = params.region
            engine                   = "redis"
            nodeType                 = "cache.r6g.large"
            numCacheClusters         = 3
            automaticFailoverEnabled = true
            description              = "sessions cache"
          }
        }
      }
    }
    resource parameter_group {
      body = {
        apiVersion = "elasticache.aws.upbound.io/v1beta1"
        kind       = "ParameterGroup"
        spec = {
          forProvider = {
            region    = params.region
            family    = "redis7"
            parameter = [{ name = "maxmemory-policy", value = "allkeys-lru" }]
          }
        }
      }
    }
  }
}

composite status {
  body = {
    mode     = switch.mode.evaluated
    branches = switch.mode.branches
  }
}
