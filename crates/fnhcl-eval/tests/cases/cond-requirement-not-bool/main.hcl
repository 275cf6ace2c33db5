requirement r {
  condition = "yes"
  select {
    apiVersion = "v1"
    kind       = "X"
    matchName  = "a"
  }
}
