locals {
  unused = 1
}
resource r {
  body = { a = missing, b = req.nope, c = lenght([]) }
}
