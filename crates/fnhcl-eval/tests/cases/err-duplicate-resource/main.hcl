resource foo {
  body = { kind = "Foo" }
}

group {
  resource foo {
    condition = false
    body      = { kind = "Foo" }
  }
}
