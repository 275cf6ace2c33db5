resource foo {
  condition = "true"
  body      = { kind = "Foo" }
}
