requirement none {
}

requirement two {
  select {
    apiVersion = "v1"
    kind       = "X"
    matchName  = "a"
  }
  select {
    apiVersion = "v1"
    kind       = "X"
    matchName  = "b"
  }
}
