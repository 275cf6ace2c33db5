context {
  key   = 42
  value = 1
}
