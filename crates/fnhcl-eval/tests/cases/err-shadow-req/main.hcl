locals {
  req = 1
}

resource foo {
  locals {
    self = 2
  }
  body = { kind = "Foo" }
}
