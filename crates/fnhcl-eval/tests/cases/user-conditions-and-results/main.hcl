# D35: conditions and results of the program's own, in declaration order.
locals {
  vpc_id = try(req.resource.vpc.status.atProvider.id, null)
}

resource vpc {
  body = { kind = "VPC" }

  composite condition {
    type    = "NetworkReady"
    status  = vpc_id != null
    reason  = vpc_id != null ? "Available" : "WaitingForVPC"
    message = vpc_id != null ? "the VPC is ${vpc_id}" : "waiting for the VPC's id"
    target  = "CompositeAndClaim"
  }
}

# The same condition again: kept once.
composite condition {
  type    = "NetworkReady"
  status  = vpc_id != null
  reason  = vpc_id != null ? "Available" : "WaitingForVPC"
  message = vpc_id != null ? "the VPC is ${vpc_id}" : "waiting for the VPC's id"
  target  = "CompositeAndClaim"
}

composite condition {
  type   = "QuotaChecked"
  status = "Unknown"
  reason = "NotChecked"
}

result {
  severity = "Warning"
  message  = "spec.size is deprecated; use spec.storage"
  reason   = "Deprecated"
}

result {
  severity = "Normal"
  message  = "rendered for ${req.composite.metadata.name}"
}

result {
  condition = false
  severity  = "Warning"
  message   = "never shown"
}

result {
  severity = "Warning"
  message  = "size is ${req.composite.spec.size}"
}
