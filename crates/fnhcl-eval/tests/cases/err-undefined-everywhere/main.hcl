resource a {
  condition = enabled
  body      = { kind = "A" }
  ready {
    value = state
  }
}

composite status {
  body = { x = missing1 }
}

context {
  key   = missing2
  value = 1
}

requirement r {
  select {
    apiVersion = "v1"
    kind       = "X"
    matchName  = missing3
  }
}
