requirement r {
  select {
    apiVersion = "v1"
    kind       = "X"
  }
}
