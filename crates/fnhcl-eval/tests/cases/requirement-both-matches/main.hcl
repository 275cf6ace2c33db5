requirement r {
  select {
    apiVersion  = "v1"
    kind        = "X"
    matchName   = "a"
    matchLabels = { a = "b" }
  }
}
