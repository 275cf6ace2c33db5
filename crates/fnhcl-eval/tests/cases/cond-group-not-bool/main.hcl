group {
  condition = 1
  resource foo {
    body = { kind = "Foo" }
  }
}
