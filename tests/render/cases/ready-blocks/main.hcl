resource db {
  body = {
    apiVersion = "rds.aws.upbound.io/v1beta1"
    kind       = "Instance"
    metadata   = { name = "${req.composite.metadata.name}-db" }
  }
  ready {
    value = "READY_TRUE"
  }
}

resources replica {
  for_each = ["r1", "r2"]
  template {
    body = {
      apiVersion = "rds.aws.upbound.io/v1beta1"
      kind       = "Instance"
      metadata   = { name = "${req.composite.metadata.name}-${each.value}" }
    }
    ready {
      value = "READY_TRUE"
    }
  }
}
