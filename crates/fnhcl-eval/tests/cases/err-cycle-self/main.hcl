resource foo {
  locals {
    x = x + 1
  }
  body = { kind = "Foo", x = x }
}
