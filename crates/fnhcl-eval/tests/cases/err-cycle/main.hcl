locals {
  a = b
  b = c
  c = a
  d = 1
}
