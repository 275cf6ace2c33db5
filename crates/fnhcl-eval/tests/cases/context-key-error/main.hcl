context {
  key   = req.composite.spec.key
  value = 1
}
