resouce foo {
  body = { kind = "Foo" }
}
