resource db {
  body = {
    apiVersion = "rds.aws.upbound.io/v1beta1"
    kind       = "Instance"
    metadata   = { name = "${req.composite.metadata.name}-db" }
  }
  composite status {
    body = { endpoints = { db = "db.example.com" } }
  }
  composite connection {
    body = { host = base64encode("db.example.com") }
  }
}

composite status {
  body = { endpoints = { cache = "cache.example.com" }, ready = true, replicas = 3 }
}
