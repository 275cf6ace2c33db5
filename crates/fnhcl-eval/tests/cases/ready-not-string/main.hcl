resource foo {
  locals {
    v = true
  }
  body = { kind = "Foo" }
  ready {
    value = v
  }
}
