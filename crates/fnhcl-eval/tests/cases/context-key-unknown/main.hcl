locals {
  k = req.composite.spec.key
}

context {
  key   = k
  value = 1
}
