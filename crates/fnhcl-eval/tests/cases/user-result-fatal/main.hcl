# A Fatal result stops the run with the user's message: nothing is emitted.
resource db {
  body = { kind = "Database", size = req.composite.spec.size }
}

result {
  condition = req.composite.spec.size > 100
  severity  = "Fatal"
  message   = "spec.size must be at most 100 GiB, got ${req.composite.spec.size}"
}
