context {
  key   = "example.com/a"
  value = { x = req.composite.status.x }
}
