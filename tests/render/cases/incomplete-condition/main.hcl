resource monitor {
  condition = req.resource.db.status.atProvider.monitoring == "enabled"
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "${req.composite.metadata.name}-monitor" }
  }
}

resource db {
  body = {
    apiVersion = "rds.aws.upbound.io/v1beta1"
    kind       = "Instance"
    metadata   = { name = "${req.composite.metadata.name}-db" }
  }
}
