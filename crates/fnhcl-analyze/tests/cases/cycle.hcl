locals {
  a = b
  b = c
  c = a
}
context {
  key   = "k"
  value = a
}
