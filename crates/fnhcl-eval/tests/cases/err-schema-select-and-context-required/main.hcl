context {
  key = "a"
}

requirement r {
  select {
    kind      = "X"
    matchName = "y"
  }
}
