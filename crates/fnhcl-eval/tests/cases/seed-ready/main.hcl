resource foo {
  body = { kind = "Foo" }
  ready {
    value = "READY_TRUE"
  }
}

resource bar {
  body = { kind = "Bar" }
  ready {
    value = "READY_FALSE"
  }
  ready {
    value = "READY_UNSPECIFIED"
  }
}
