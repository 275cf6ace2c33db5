resource bucket {
  condition = req.composite.spec.enabled
  body      = { kind = "Bucket" }
}
