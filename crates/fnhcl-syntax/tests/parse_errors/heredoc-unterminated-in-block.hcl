locals {
  a = <<EOT
abc
}
