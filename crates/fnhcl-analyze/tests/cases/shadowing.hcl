locals {
  name = "outer"
}
resource r {
  locals {
    name = "inner"
  }
  body = { n = name }
}
