composite ready {
  value = "READY_TRUE"
}

resource r {
  body = { kind = "R" }
  composite ready {
    value = "READY_FALSE"
  }
}
