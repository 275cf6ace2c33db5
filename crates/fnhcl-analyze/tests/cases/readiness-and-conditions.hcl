group {
  optional = true
  resource a {
    optinal = true
    body = { kind = "A" }
  }
}

composite condition {
  type   = "Synced"
  status = "Maybe"
  reason = "not-camel"
  mesage = "x"
}

result {
  severity = "Fatal"
}

resource b {
  optional = req.composite.spec.optional
  body     = { kind = "B" }
}

composite ready {
  value = "READY"
}
