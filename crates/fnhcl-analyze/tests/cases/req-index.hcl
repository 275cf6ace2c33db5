resource r {
  body = { name = req[0] }
}
