locals {
  "a" = 1
}
