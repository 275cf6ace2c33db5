context {
  key   = "mf"
  value = can(req.composite.metadata.managedFields)
}
