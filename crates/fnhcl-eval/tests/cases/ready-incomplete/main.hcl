resource foo {
  body = { kind = "Foo" }
  ready {
    locals {
      phase = self.resource.status.phase
    }
    value = phase == "Ready" ? "READY_TRUE" : "READY_FALSE"
  }
}
