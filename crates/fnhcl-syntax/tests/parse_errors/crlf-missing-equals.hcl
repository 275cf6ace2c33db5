locals {
  a 1
}
