group {
  locals {
    foo = "bar"
  }

  resource one {
    body = {
      apiVersion = "v1"
      kind       = "ConfigMap"
      data       = { foo = foo }
    }
  }

  resource two {
    body = {
      apiVersion = "v1"
      kind       = "ConfigMap"
      data       = { foo = "${foo}-two" }
    }
  }
}

// but not here ...
resource three {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
  }
}
