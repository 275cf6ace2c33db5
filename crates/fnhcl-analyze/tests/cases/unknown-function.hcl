resource r {
  body = { name = uper("x") }
}
