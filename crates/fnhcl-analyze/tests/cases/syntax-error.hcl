resource r {
  body = {
    a = 1 +
  }
}
