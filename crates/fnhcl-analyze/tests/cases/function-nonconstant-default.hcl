function f {
  arg a {
    default = upper("x")
  }
  body = a
}
