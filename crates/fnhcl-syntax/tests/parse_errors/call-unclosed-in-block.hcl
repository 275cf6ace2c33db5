locals {
  a = f(1
}
