resource foo {
  body = {
    kind = "Foo"
