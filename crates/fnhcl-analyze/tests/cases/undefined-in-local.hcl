locals {
  a = b + 1
}
context {
  key   = "k"
  value = a
}
