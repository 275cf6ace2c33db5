locals {
  name = "x"
}
resource r {
  body = { metadata = { name = nmae } }
}
