resource foo {
  body = {
    kind = "Foo"
    spec = { optional = null, list = [null, 1] }
  }
}
