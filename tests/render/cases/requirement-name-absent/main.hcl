requirement db-config {
  select {
    apiVersion = "apiextensions.crossplane.io/v1beta1"
    kind       = "EnvironmentConfig"
    matchName  = "database"
  }
}

resource database {
  body = {
    apiVersion = "rds.aws.upbound.io/v1beta1"
    kind       = "Instance"
    metadata   = { name = "${req.composite.metadata.name}-db" }
    spec = {
      forProvider = {
        instanceClass = req.extra_resources.db-config[0].data.class
      }
    }
  }
}

resource always {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "${req.composite.metadata.name}-always" }
  }
}
