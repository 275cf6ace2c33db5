resource r {
  body = {}
  composite stat {
    body = {}
  }
}
