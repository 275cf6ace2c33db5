resource r {
  optional = req.composite.spec.optional
  body     = { kind = "R" }
}

composite ready {
  value = "YES"
}
