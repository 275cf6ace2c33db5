resource db {
  body = {
    apiVersion = "rds.aws.upbound.io/v1beta1"
    kind       = "Instance"
    metadata   = { name = "${req.composite.metadata.name}-db" }
  }
  ready {
    value = "READY_FALSE"
  }
}

resource cache {
  body = {
    apiVersion = "elasticache.aws.upbound.io/v1beta1"
    kind       = "Cluster"
    metadata   = { name = "${req.composite.metadata.name}-cache" }
  }
  ready {
    value = "READY_TRUE"
  }
}
