resource foo {
  body = { kind = "Foo" }
  body = { kind = "Bar" }
}
