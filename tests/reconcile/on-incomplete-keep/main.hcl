resource network {
  body = {
    apiVersion = "example.com/v1"
    kind       = "Network"
    metadata   = { name = "app-1-net" }
  }
}

# When the network's status goes missing, the database is kept as it is
# observed (D41) instead of stopping every update of the XR (D12).
resource db {
  on_incomplete = "keep"
  body = {
    apiVersion = "example.com/v1"
    kind       = "Database"
    metadata   = { name = "app-1-db" }
    spec       = { subnet = req.resource.network.status.subnet }
  }
}

resource cache {
  body = {
    apiVersion = "example.com/v1"
    kind       = "Cache"
    metadata   = { name = "app-1-cache" }
    spec       = { size = req.composite.spec.size }
  }
}
