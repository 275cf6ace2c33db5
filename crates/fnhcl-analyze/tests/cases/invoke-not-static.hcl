locals {
  fname = "f"
}
function f {
  body = 1
}
resource r {
  body = { v = invoke(fname, {}) }
}
