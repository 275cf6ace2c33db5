locals {
  a = 1
  nested {
    b = 2
  }
}
