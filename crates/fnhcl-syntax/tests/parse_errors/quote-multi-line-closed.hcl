locals {
  a = "abc
def"
}
