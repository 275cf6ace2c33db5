resource foo {
  body = { kind = "Foo" }
  condition {
  }
}
