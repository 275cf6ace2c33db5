locals {
  x = 1
}

resource foo {
  locals {
    x = 2
  }
  body = { kind = "Foo" }
}
