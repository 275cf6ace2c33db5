locals {
  a = {x = 1
}
