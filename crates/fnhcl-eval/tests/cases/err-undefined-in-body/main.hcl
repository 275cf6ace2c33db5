locals {
  params = req.composite.spec
}

resource foo {
  body = {
    kind   = "Foo"
    region = parms.region
  }
}
