locals {
  x = x + 1
}
context {
  key   = "k"
  value = x
}
