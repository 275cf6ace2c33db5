locals {
  kinds = { a = 1 }
}

requirement r {
  select {
    apiVersion = "v1"
    kind       = kinds.a
    matchName  = "x"
  }
}
