function f {
  arg used {}
  arg spare {}
  arg _ignored {}
  arg viaLocal {}
  locals {
    l = viaLocal
  }
  body = { a = used, b = l }
}
resource r {
  body = invoke("f", { used = 1, spare = 2, _ignored = 3, viaLocal = 4 })
}
