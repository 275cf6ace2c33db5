resource foo {
  body {
    kind = "Foo"
    metadata {
      name = "x"
    }
  }
}
