locals {
  a = [1, 2
  b = 1
}
