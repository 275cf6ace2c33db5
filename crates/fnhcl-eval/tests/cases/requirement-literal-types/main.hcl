requirement r {
  select {
    apiVersion = 1
    kind       = "X"
    matchName  = "a"
  }
}

requirement s {
  select {
    apiVersion  = "v1"
    kind        = "X"
    matchLabels = { a = 1 }
  }
}
