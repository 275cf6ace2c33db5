resources things {
  for_each = [1]
  template {
    body = { kind = "Thing" }
  }
}

resources things {
  for_each = [2]
  template {
    body = { kind = "Thing" }
  }
}

requirement r {
  select {
    apiVersion = "v1"
    kind       = "X"
    matchName  = "a"
  }
}

requirement r {
  select {
    apiVersion = "v1"
    kind       = "X"
    matchName  = "b"
  }
}
