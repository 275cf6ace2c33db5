# The database's endpoint went missing from the network's status: the
# database is kept as observed instead of stopping the whole run (D41),
# and the cache, whose block is complete, is still updated.
resource network {
  body = {
    apiVersion = "example.com/v1"
    kind       = "Network"
    metadata   = { name = "net" }
  }
}

resource db {
  on_incomplete = "keep"
  body = {
    apiVersion = "example.com/v1"
    kind       = "Database"
    metadata   = { name = "db", labels = { tier = "data" } }
    spec       = { subnet = req.resource.network.status.subnet }
  }
}

resource cache {
  body = {
    apiVersion = "example.com/v1"
    kind       = "Cache"
    metadata   = { name = "cache" }
    spec       = { size = req.composite.spec.size }
  }
}
