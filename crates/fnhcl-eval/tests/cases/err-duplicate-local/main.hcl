locals {
  name = "a"
}

locals {
  name = "b"
}
