# The watched Deployment (a WatchOperation sends it under the requirement
# ops.crossplane.io/watched-resource).
locals {
  deployment = req.watched
  name       = deployment.metadata.name
  namespace  = deployment.metadata.namespace
  replicas   = try(deployment.spec.replicas, 1)
}

# What the Operation applies: only the fields it owns (server-side apply).
resource audited {
  body = {
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata = {
      name      = name
      namespace = namespace
      labels = {
        "audit.example.com/checked" = "true"
        "audit.example.com/size"    = replicas > 3 ? "large" : "small"
      }
    }
  }
}

# What the Operation's status shows for this step.
output {
  body = {
    deployment = "${namespace}/${name}"
    replicas   = replicas
  }
}

result {
  condition = replicas > 3
  severity  = "Warning"
  message   = "${namespace}/${name} runs ${replicas} replicas"
  reason    = "LargeDeployment"
}
