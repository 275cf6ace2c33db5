locals {
  li<<EOT
}
