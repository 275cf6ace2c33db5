locals {
  a = "abc
  b = 1
}
