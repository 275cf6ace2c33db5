locals {
  _reserved = 1
}
context {
  key   = "a"
  value = 1
}
