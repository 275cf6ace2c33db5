requirement r {
  select {
    apiVersion = "v1"
    kind       = "X"
    matchName  = req.composite.spec.envName
  }
}

requirement ok {
  select {
    apiVersion  = "v1"
    kind        = "X"
    matchLabels = tomap({ app = "web" })
  }
}
