locals {
  used   = 1
  unused = 2
}
resource r {
  locals {
    inner_unused = used
  }
  body = {}
}
