locals {
  a = 1
}
locals {
  a = 2
}
context {
  key   = "k"
  value = a
}
