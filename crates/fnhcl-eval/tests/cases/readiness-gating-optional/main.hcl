# D32: a deferred resource gates the composite's readiness unless it is
# optional; so does a group whose condition is incomplete, when it holds a
# non-optional resource.
resource vpc {
  body = {
    kind = "VPC"
  }
}

resource subnet {
  body = {
    kind  = "Subnet"
    vpcId = req.resource.vpc.status.atProvider.id
  }
}

resource dashboard {
  optional = true
  body = {
    kind  = "Dashboard"
    vpcId = req.resource.vpc.status.atProvider.id
  }
}

resources replicas {
  optional = true
  for_each = ["a", "b"]
  template {
    body = {
      kind = "Replica"
      vpc  = req.resource.vpc.status.atProvider.id
    }
  }
}

group {
  condition = req.composite.spec.monitoring
  resource alarms {
    optional = true
    body = {
      kind = "Alarms"
    }
  }
}

group {
  condition = req.composite.spec.logging
  resource logs {
    body = {
      kind = "Logs"
    }
  }
}
