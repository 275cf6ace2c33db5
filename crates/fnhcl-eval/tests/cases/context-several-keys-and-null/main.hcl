locals {
  prefix = "example.com"
}

context {
  key   = "${prefix}/b"
  value = null
}

context {
  key   = "${prefix}/a"
  value = [1, "two", { three = 3 }]
}

resource foo {
  body = { kind = "Foo" }
  context {
    key   = "${prefix}/${self.name}"
    value = self.name
  }
}
