requirement r {
  locals {
    n = ["a"]
  }
  select {
    apiVersion = "v1"
    kind       = "X"
    matchName  = n
  }
}
