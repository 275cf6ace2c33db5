resource foo {
  body = { kind = "Foo" }
  ready {
    value = "READY"
  }
}
