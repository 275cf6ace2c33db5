resource r {
  body = {}
  stauts {
    x = 1
  }
}
