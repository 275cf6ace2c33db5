resource r {
  body = {}
  body = {}
}
