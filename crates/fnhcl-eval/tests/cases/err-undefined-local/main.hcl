locals {
  foo = "x"
  bar = "${fooo}-y"
}
