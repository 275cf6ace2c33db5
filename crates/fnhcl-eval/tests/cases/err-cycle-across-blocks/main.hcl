locals {
  a = "${b}-a"
}

locals {
  b = "${a}-b"
}
