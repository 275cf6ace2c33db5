locals {
  c =# comment
}
