resource foo {
  conditon = true
  body     = { kind = "Foo" }
}
