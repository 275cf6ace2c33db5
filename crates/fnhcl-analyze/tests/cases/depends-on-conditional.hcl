resource vpc {
  condition = req.composite.spec.network
  body      = { kind = "VPC" }
}

group {
  condition = req.composite.spec.cache

  resource cache {
    body = { kind = "Cache" }
  }
}

resource subnet {
  depends_on = ["vpc"]
  body       = { kind = "Subnet" }
}

resource app {
  depends_on = ["subnet", "cache"]
  body       = { kind = "App" }
}
