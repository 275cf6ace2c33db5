resource foo {
  body  = { kind = "Foo" }
  ready = "READY_TRUE"
}
