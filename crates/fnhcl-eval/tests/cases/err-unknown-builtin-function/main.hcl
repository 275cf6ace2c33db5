locals {
  a = uppper("x")
  b = timestamp()
}

resource r {
  body = { kind = "R", v = lenght([1]) }
}
