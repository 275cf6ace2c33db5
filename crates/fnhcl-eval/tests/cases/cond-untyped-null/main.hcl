resources foo {
  condition = null
  for_each  = []
  template {
    body = { kind = "Foo" }
  }
}
