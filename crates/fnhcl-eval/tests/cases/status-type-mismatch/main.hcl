composite status {
  body = { a = { b = "x" } }
}

resource foo {
  body = { kind = "Foo" }
  composite status {
    body = { a = { b = 1 } }
  }
}
