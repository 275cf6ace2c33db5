resource foo {
  body = {
    kind = "Foo"
    name = self.nmae
  }
}

resources bars {
  for_each = [1]
  condition = self.name != ""
  template {
    body = { kind = "Bar" }
  }
}
