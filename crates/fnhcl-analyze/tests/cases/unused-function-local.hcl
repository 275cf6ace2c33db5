function f {
  arg a {}
  locals {
    helper = a
    spare  = 1
  }
  body = helper
}
resource r {
  body = { v = invoke("f", { a = 1 }) }
}
