locals {
  cidr = req.composite.spec.cidr
  n    = req.composite.spec.index
}

resource subnet {
  body = {
    kind  = "Subnet"
    a     = cidrsubnet(cidr, "eight", n)
    b     = cidrsubnet(cidr, "8", n)
    c     = substr(cidr, [0], 3)
    d     = cidrsubnet("10.0.0.0/16", "eight", 1)
  }
}
