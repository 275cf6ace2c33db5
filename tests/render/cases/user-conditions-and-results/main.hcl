# A composition tells its users why it waits and refuses bad input (D35).
locals {
  endpoint = try(req.resource.instance.status.atProvider.address, null)
}

resource instance {
  body = {
    apiVersion = "rds.aws.upbound.io/v1beta1"
    kind       = "Instance"
    spec       = { forProvider = { allocatedStorage = req.composite.spec.size } }
  }
}

composite condition {
  type    = "EndpointReady"
  status  = endpoint != null
  reason  = endpoint != null ? "Available" : "WaitingForInstance"
  message = endpoint != null ? "reachable at ${endpoint}" : "the instance has no address yet"
  target  = "CompositeAndClaim"
}

result {
  condition = startswith(req.composite.spec.engine, "postgres1")
  severity  = "Warning"
  message   = "engine ${req.composite.spec.engine} reaches end of life soon"
  reason    = "EngineEndOfLife"
  target    = "CompositeAndClaim"
}
